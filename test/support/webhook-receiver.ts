import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from 'node:net'

/** One request a receiver got: its headers and exact body. */
export interface Received {
  headers: Record<string, string>
  body: string
  path: string
}

/**
 * A real HTTP server on loopback standing for a customer's webhook endpoint: it keeps every request,
 * and answers as `respond` says (200 by default).
 */
export class WebhookReceiver {
  readonly received: Received[] = []
  respond: (req: Received, res: ServerResponse) => void = (_req, res) => res.writeHead(200).end('ok')
  private server: Server | undefined
  url = ''

  async start(port = 0): Promise<this> {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const got: Received = {
          headers: Object.fromEntries(
            Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
          ),
          body: Buffer.concat(chunks).toString('utf8'),
          path: req.url ?? '/',
        }
        this.received.push(got)
        this.respond(got, res)
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`
    return this
  }

  /** The events received (parsed bodies), in order of arrival. */
  events(): any[] {
    return this.received.map((r) => JSON.parse(r.body))
  }

  async stop(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (!server) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/**
 * A dead webhook endpoint: a real TCP server on loopback that accepts every connection, reads what is
 * sent and never answers. It counts the connections open at once (each is one delivery in flight).
 */
export class HangingEndpoint {
  private readonly sockets = new Set<Socket>()
  private server: NetServer | undefined
  /** Connections accepted so far, and the most open at once. */
  accepted = 0
  mostOpen = 0
  url = ''

  /** Connections open now. */
  get open(): number {
    return this.sockets.size
  }

  async start(): Promise<this> {
    this.server = createNetServer((socket) => {
      this.accepted++
      this.sockets.add(socket)
      this.mostOpen = Math.max(this.mostOpen, this.sockets.size)
      socket.on('data', () => {})
      socket.on('error', () => {})
      socket.on('close', () => this.sockets.delete(socket))
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`
    return this
  }

  /** Closes every connection (each delivery in flight fails at once) and stops listening. */
  async stop(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (!server) return
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
