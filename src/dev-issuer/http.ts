import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { DevIssuer } from './issuer.js'

/*
 * What a dev issuer serves over loopback http: its DID document (at /.well-known/did.json, or
 * /<path>/did.json for a DID with a path) and its two status list credentials (/status/revocation,
 * /status/suspension under the same base), made from its state at each request. Nothing else: 404.
 */

/** Answers one request from `issuer` as it is now (`extraMethods`: listed in its document after its keys). */
export function answerIssuerRequest(
  issuer: DevIssuer,
  req: IncomingMessage,
  res: ServerResponse,
  extraMethods: Record<string, unknown>[] = [],
): void {
  const path = (req.url ?? '/').split('?')[0]!
  const prefix = new URL(issuer.base).pathname.replace(/\/$/, '')
  const documentPath = new URL(issuer.documentUrl).pathname
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed')
    return
  }
  if (path === documentPath) {
    res
      .writeHead(200, { 'content-type': 'application/did+json' })
      .end(JSON.stringify(issuer.document(extraMethods)))
    return
  }
  const purpose = path.startsWith(`${prefix}/status/`) ? path.slice(`${prefix}/status/`.length) : ''
  if (purpose === 'revocation' || purpose === 'suspension') {
    issuer.statusListCredential(purpose).then(
      (jwt) => res.writeHead(200, { 'content-type': 'application/vc+jwt' }).end(jwt),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('cannot sign the status list'),
    )
    return
  }
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
}

/** A loopback http server: listening on `host`:`port` (0: a free one) when it resolves. */
export interface IssuerServer {
  port: number
  close(): Promise<void>
}

export async function listenLoopback(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port = 0,
  host = '127.0.0.1',
): Promise<IssuerServer> {
  const server: Server = createServer(handler)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
