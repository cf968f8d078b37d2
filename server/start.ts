import type { AddressInfo } from 'node:net'
import type { ServerType } from '@hono/node-server'
import { createApp } from './app.js'
import { ensureAdminKey } from './bootstrap.js'
import { ApiError } from './errors.js'
import type { ServerConfig } from './config.js'
import { type AppContext, createAppContext } from './context.js'
import { type Db, openDatabase } from './db/database.js'
import { createHttpServer } from './http/node-server.js'
import { paymentProviderFromConfig } from './payments/from-config.js'

export interface RunningServer {
  url: string
  /** Stops accepting connections, lets in-flight requests finish, flushes counters, closes the database. */
  close(): Promise<void>
}

/** The listening address of a bound server, as a URL. */
function urlOf(server: ServerType, host: string): string {
  const { port } = server.address() as AddressInfo
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}

/** Binds `server` to host and port; rejects with the listen error (EADDRINUSE, EACCES...). */
function listen(server: ServerType, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error)
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      resolve()
    })
  })
}

/**
 * Binds the port first, so that a busy port fails before anything is created; then opens the
 * database (migrating it), makes sure an admin key exists, and serves the API. Logs go to stderr: the
 * admin key once on a new database, then `listening on http://HOST:PORT` when ready (requests that
 * arrive before that are answered 503).
 */
export async function startServer(
  config: ServerConfig,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<RunningServer> {
  let serveRequest: (request: Request, env: unknown) => Response | Promise<Response> = () =>
    new Response(JSON.stringify(new ApiError('unavailable', 'The server is starting').toProblem()), {
      status: 503,
      headers: { 'content-type': 'application/problem+json', 'retry-after': '1' },
    })
  // Refusals made before the app (a malformed request or Host header) are problem details too.
  const server = createHttpServer((request, env) => serveRequest(request, env), {
    hostname: config.host,
    logError: (message, error) => console.error(message, error ?? ''),
  })
  await listen(server, config.host, config.port)
  const url = urlOf(server, config.host)

  let db: Db | undefined
  let ctx: AppContext
  try {
    db = await openDatabase(config.db)
    ctx = createAppContext({
      db,
      payments: paymentProviderFromConfig(config, db, log),
      // Written into every credential signed (its status list URL); by default where it listens.
      publicUrl: config.publicUrl ?? url,
    })
    const admin = await ensureAdminKey(ctx, config.adminKey)
    if (admin.printable) log(`admin API key (shown once): ${admin.printable}`)
    if (admin.presetIgnored) {
      log(
        `RWA_ADMIN_KEY is ignored: the database ${config.db} already has an admin key (RWA_ADMIN_KEY applies only to a new database)`,
      )
    }
  } catch (error) {
    await new Promise((resolve) => server.close(resolve))
    await db?.destroy()
    throw error
  }
  ctx.meter.start()
  const app = createApp(ctx)
  serveRequest = (request, env) => app.fetch(request, env as never)
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
        await db?.destroy()
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
