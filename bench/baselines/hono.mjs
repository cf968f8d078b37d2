// Diagnostic baselines (a1) and (a2): what the framework and the request observation cost before
// any of rwa's own work, so that the gap between the bare hello (a) and GET pricing can be split.
//
//   (a1) `--observe none`: a Hono app with one route answering the hello of (a), served through
//        rwa's own Node server (server/platform/http/node-server.ts: @hono/node-server's request listener).
//   (a2) `--observe all`: the same with rwa's request id, JSON log line (to stderr, as rwa writes it)
//        and Prometheus metrics middleware (server/areas/operations/observe-requests.ts), as app.ts puts
//        them in front of every route.
//
// Both import rwa's compiled modules (dist/), so they measure the code the server runs.
import { Hono } from 'hono'
import { createHttpServer } from '../../dist/server/platform/http/node-server.js'
import { jsonLogger } from '../../dist/server/platform/logging/logger.js'
import { ServerMetrics } from '../../dist/server/platform/metrics/metrics.js'
import { observeRequests } from '../../dist/server/areas/operations/observe-requests.js'
import { argument } from './serve.mjs'

const observe = argument('observe')
const logger = jsonLogger({ level: process.env.RWA_LOG_LEVEL ?? 'info' })
const app = new Hono()
if (observe === 'all') {
  app.use('*', observeRequests(logger, new ServerMetrics({ processMetrics: true })))
} else if (observe !== 'none') throw new Error(`--observe all|none, not ${observe}`)
app.get('/', (c) => c.json({ hello: 'world' }))

const server = createHttpServer((request, env) => app.fetch(request, env), {
  logError: (message, error) => logger.error({ err: error }, message),
})
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${server.address().port}\n`)
})
const stop = () => {
  server.close(() => logger.flush())
  server.closeIdleConnections()
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
