import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { createApp } from './app.js'
import { ensureAdminKey } from './bootstrap.js'
import type { ServerConfig } from './config.js'
import { createAppContext } from './context.js'
import { openDatabase } from './db/database.js'
import { paymentProviderFromConfig } from './payments/from-config.js'

export interface RunningServer {
  url: string
  /** Stops accepting connections, lets in-flight requests finish, flushes counters, closes the database. */
  close(): Promise<void>
}

/**
 * Opens the database (migrating it), makes sure an admin key exists, and serves the API. Logs go to
 * stderr: the admin key once on a new database, then `listening on http://HOST:PORT` when ready.
 */
export async function startServer(
  config: ServerConfig,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<RunningServer> {
  const db = await openDatabase(config.db)
  const ctx = createAppContext({ db, payments: paymentProviderFromConfig(config, db, log) })
  const admin = await ensureAdminKey(ctx, config.adminKey)
  if (admin.printable) log(`admin API key (shown once): ${admin.printable}`)
  ctx.meter.start()

  const app = createApp(ctx)
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () => resolve(s))
    s.once('error', reject)
  })
  const { port } = server.address() as AddressInfo
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  const url = `http://${host}:${port}`
  log(`listening on ${url}`)

  let closing: Promise<void> | undefined
  return {
    url,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          // Keep-alive connections with no request in flight would hold close() open.
          if ('closeIdleConnections' in server) server.closeIdleConnections()
        })
        await ctx.meter.stop()
        await db.destroy()
      })()
      return closing
    },
  }
}

/** Runs the server until SIGINT or SIGTERM, then shuts it down cleanly. */
export async function runServer(config: ServerConfig): Promise<void> {
  const server = await startServer(config)
  const stop = (signal: string) => {
    process.stderr.write(`${signal} received, shutting down\n`)
    // Once the server and the database are closed nothing holds the event loop and the process exits.
    server.close().catch((error) => {
      process.stderr.write(`shutdown failed: ${String(error)}\n`)
      process.exitCode = 1
    })
  }
  process.once('SIGINT', () => stop('SIGINT'))
  process.once('SIGTERM', () => stop('SIGTERM'))
}
