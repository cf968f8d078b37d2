import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ServerMetrics } from './metrics.js'

export interface MetricsServer {
  /** e.g. `http://127.0.0.1:9464/metrics` */
  url: string
  close(): Promise<void>
}

/**
 * A listener of its own serving `GET /metrics` without a key (`--metrics-port`): for a scraper on a
 * private network, while the API port stays public. Anything else is a 404.
 */
export async function serveMetrics(
  metrics: ServerMetrics,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('only GET /metrics here\n')
      return
    }
    metrics.text().then(
      (text) =>
        res.writeHead(200, { 'Content-Type': metrics.contentType }).end(req.method === 'HEAD' ? '' : text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics failed\n'),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const address = server.address() as AddressInfo
  const shownHost = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
      }),
  }
}
