import type { AddressInfo } from 'node:net'
import type { ServerType } from '@hono/node-server'
import { createApp, createDoorAnswers } from './app.js'
import { ensureAdminKey } from './bootstrap.js'
import { ApiError } from './platform/errors.js'
import { durationMs, type ServerConfig } from './platform/config.js'
import { AGGREGATES } from './aggregates.js'
import { type AppContext, createAppContext } from './pipeline/context.js'
import { redactUrl } from './platform/db/database.js'
import { type Deployment, openDeployment } from './deployment.js'
import { createHttpServer, type DoorAnswers, type Gate } from './platform/http/node-server.js'
import { createLogger, type Logger } from './platform/logging/logger.js'
import { type MetricsServer, serveMetrics } from './platform/metrics/metrics-server.js'
import { ServerMetrics } from './platform/metrics/metrics.js'
import { paymentProviderFromConfig } from './platform/payments/from-config.js'
import { prepareUrlFile, removeUrlFile, writeUrlFile } from './platform/url-file.js'
import { systemClock } from './platform/clock.js'
import { openKeyCustody, resolveMasterKey } from './custody.js'
import { webhookWorker } from './areas/webhooks/worker.js'
import { scheduleEvents } from './areas/events/scheduled.js'
import { scheduleIssuerRefresh } from './areas/rwa/issuer-documents/refresh.js'
import { closeEventStreams } from './areas/events/stream.js'

export interface RunningServer {
  url: string
  /** `http://HOST:PORT/metrics` when `--metrics-port` is set. */
  metricsUrl?: string
  /** The server's log (JSON or pretty, on stderr). */
  logger: Logger
  /** Writes a line about the server's life (start, signals, shutdown), whatever the log level. */
  announce(line: string): void
  /** `/readyz` answers 503 from now on, while every request is still served. */
  drain(): void
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
 * Binds the port (and the metrics port) first, so that a busy port fails before anything is
 * created; then opens the database (migrating it) and, over PostgreSQL, Redis; makes sure an admin key exists, and serves the API.
 * Logs go to stderr through the server's logger (JSON lines, or pretty on a terminal): the admin key
 * once on a new database, then `listening on http://HOST:PORT` when ready (these at any log level;
 * requests that arrive before that are answered 503), then one line per request. `log`, when given,
 * receives the start-up lines as plain text instead (the sandbox prints them its own way).
 */
export async function startServer(
  config: ServerConfig,
  log?: (line: string) => void,
): Promise<RunningServer> {
  const logger = await createLogger({ format: config.logFormat, level: config.logLevel })
  // The admin key and the address must show even at --log-level warn or silent: they are not noise.
  const lifecycle = logger.child({}, { level: 'info' })
  // Warnings an operator must act on (an ignored RWA_ADMIN_KEY, a lost Redis or PostgreSQL connection)
  // are logged at warn, so --log-level warn keeps them.
  const announce =
    log ??
    ((line: string, level: 'info' | 'warn' = 'info') =>
      level === 'warn' ? lifecycle.warn(line) : lifecycle.info(line))
  const metrics = new ServerMetrics({ processMetrics: true })

  let serveRequest: (request: Request, env: object) => Response | Promise<Response> = () =>
    new Response(JSON.stringify(new ApiError('starting', 'The server is starting').toProblem()), {
      status: 503,
      headers: { 'content-type': 'application/problem+json', 'retry-after': '1' },
    })
  // Refusals made before the app (a malformed request or Host header) are problem details too.
  let gate: Gate | undefined
  let door: DoorAnswers | undefined
  const server = createHttpServer((request, env) => serveRequest(request, env), {
    hostname: config.host,
    logError: (message, error) => logger.error(error === undefined ? {} : { err: error }, message),
    gate: () => gate,
    door: () => door,
  })
  // Before anything is bound or created: a --url-file that cannot be written fails the start at once.
  if (config.urlFile !== undefined) prepareUrlFile(config.urlFile)
  await listen(server, config.host, config.port)
  const url = urlOf(server, config.host)

  let metricsServer: MetricsServer | undefined
  let deployment: Deployment | undefined
  let ctx: AppContext
  try {
    if (config.metricsPort !== undefined) {
      metricsServer = await serveMetrics(metrics, config.host, config.metricsPort)
    }
    deployment = await openDeployment(config, announce, {
      onQueryError: (error) => metrics.databaseError(error),
      onRedisLost: (operation) => metrics.redisError(operation),
    })
    const { db } = deployment
    const where = config.databaseUrl === undefined ? config.db : redactUrl(config.databaseUrl)
    // Before anything creates a key (the admin key, a signing key): a wrong master key stops here.
    const master = await resolveMasterKey(db, {
      masterKey: config.masterKey,
      masterKeyFile: config.masterKeyFile,
      sqlitePath: deployment.kind === 'sqlite' ? config.db : undefined,
    })
    if (master.created) {
      announce(
        `created the master key file ${master.created} (0600): back it up apart from the database; without it no signing key can be read (README: Backup and restore)`,
      )
    }
    const { sealed, webhookSecrets } = await openKeyCustody(db, master.key, systemClock, {
      where,
      source: master.source,
    })
    if (sealed > 0) announce(`encrypted ${sealed} signing key(s) stored in plaintext under the master key`)
    if (webhookSecrets > 0) {
      announce(
        `encrypted ${webhookSecrets} webhook signing secret(s) stored in plaintext under the master key`,
      )
    }
    ctx = createAppContext({
      db,
      aggregates: AGGREGATES,
      masterKey: master.key,
      ...deployment.context,
      logger,
      metrics,
      payments: paymentProviderFromConfig(config, db, announce),
      // Written into every credential signed (its status list URL); by default where it listens.
      publicUrl: config.publicUrl ?? url,
      publicRateLimit: config.publicRateLimit,
      trustProxyHops: config.trustProxy,
      allowHttpWebhooks: config.allowHttpWebhooks,
      allowHttpIssuers: config.allowHttpIssuers,
      issuerStatusMaxAgeMs: durationMs(config.issuerStatusMaxAge),
    })
    const admin = await ensureAdminKey(ctx, config.adminKey)
    await ctx.signingKeys.ensureServiceKeys()
    if (admin.printable) announce(`admin API key (shown once): ${admin.printable}`)
    if (admin.presetIgnored) {
      announce(
        `RWA_ADMIN_KEY is ignored: the database ${where} already has an admin key (RWA_ADMIN_KEY applies only to a new database)`,
        'warn',
      )
    }
  } catch (error) {
    await new Promise((resolve) => server.close(resolve))
    await metricsServer?.close()
    // Open connections (PostgreSQL's pool, Redis) would keep a failed process alive.
    await deployment?.close()
    throw error
  }
  const opened = deployment
  ctx.meter.start()
  const webhooks = webhookWorker(ctx, { poll: true })
  const scheduled = scheduleEvents(ctx)
  const statusLists = scheduleIssuerRefresh(ctx)
  const app = createApp(ctx)
  serveRequest = (request, env) => app.fetch(request, env)
  gate = ctx.publicGate
  door = createDoorAnswers(ctx)
  if (config.urlFile !== undefined) {
    try {
      writeUrlFile(config.urlFile, url)
    } catch (error) {
      await new Promise((resolve) => server.close(resolve))
      await metricsServer?.close()
      await statusLists.stop()
      await ctx.meter.stop()
      await opened.close()
      throw error
    }
  }
  if (metricsServer) announce(`metrics on ${metricsServer.url}`)
  announce(`listening on ${url}`)

  let closing: Promise<void> | undefined
  return {
    url,
    metricsUrl: metricsServer?.url,
    logger,
    announce,
    drain: () => ctx.readiness.drain(),
    close() {
      closing ??= (async () => {
        ctx.readiness.drain()
        // An open event stream would hold its connection, and so close(), open for ever.
        await closeEventStreams(ctx)
        // Refusals held until their Retry-After would hold the close open: answered now.
        ctx.publicGate.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          // Keep-alive connections with no request in flight would hold close() open.
          if ('closeIdleConnections' in server) server.closeIdleConnections()
        })
        await metricsServer?.close()
        await webhooks.stop()
        scheduled.stop()
        await statusLists.stop()
        await ctx.meter.stop()
        await opened.close()
        // Last: whoever waits for the file to go knows the server has let go of everything.
        if (config.urlFile !== undefined) removeUrlFile(config.urlFile)
        logger.flush()
      })()
      return closing
    },
  }
}

/**
 * Runs the server until SIGINT or SIGTERM, then shuts it down cleanly. The first signal makes
 * `/readyz` answer 503 at once; the server keeps serving for `--drain-seconds` (so a load balancer
 * takes it out of rotation), then stops accepting connections and finishes what is in flight. A second
 * signal cuts the drain short; one more during the shutdown ends the process at once.
 */
export async function runServer(config: ServerConfig): Promise<void> {
  const server = await startServer(config)
  const log = (line: string) => server.announce(line)
  let draining = false
  let endDrain = () => {}
  const onSignal = (signal: NodeJS.Signals) => {
    if (draining) {
      log(`${signal} received again, shutting down now`)
      endDrain()
      return
    }
    draining = true
    server.drain()
    const drained = new Promise<void>((resolve) => {
      if (config.drainSeconds === 0) return resolve()
      log(`${signal} received, draining for ${config.drainSeconds} s: /readyz answers 503`)
      const timer = setTimeout(resolve, config.drainSeconds * 1000)
      endDrain = () => {
        clearTimeout(timer)
        resolve()
      }
    })
    void drained.then(() => {
      // From here on a signal takes Node's default action: the process ends at once.
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      log(`${signal} received, shutting down`)
      // Once the server and the database are closed nothing holds the event loop and the process exits.
      server.close().catch((error) => {
        server.logger.error({ err: error }, 'shutdown failed')
        process.exitCode = 1
      })
    })
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
}
