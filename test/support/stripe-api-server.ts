import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { STRIPE_SECRET_KEY } from './stripe-fixtures.js'

/** One request the fake API received. */
export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, string>
  authorization: string | undefined
}

/**
 * A local HTTP server standing in for api.stripe.com in tests: it speaks Stripe's JSON wire format
 * (objects, `list` and `search_result` envelopes, `{ error: { type, code, message } }` with Stripe's
 * status codes) for the few endpoints the provider calls. The `stripe` SDK is pointed at it through its
 * host/port/protocol options, so the SDK's real HTTP client, retries and error mapping run.
 */
export class StripeApiServer {
  readonly subscriptions = new Map<string, Record<string, any>>()
  readonly customers = new Map<string, Record<string, any>>()
  readonly requests: RecordedRequest[] = []
  private server: Server | undefined
  url = ''

  /** Listens on a free port, or again on the same port after `stop()` (the outage is over). */
  async start(): Promise<this> {
    const port = this.url ? Number(new URL(this.url).port) : 0
    this.server = createServer((req, res) => this.handle(req, res))
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  /** Stops listening: later calls get "connection refused", as during an outage. */
  async stop(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (!server) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  addSubscription(sub: Record<string, any>): void {
    this.subscriptions.set(sub.id, sub)
  }

  addCustomer(customer: Record<string, any>): void {
    this.customers.set(customer.id, customer)
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://stripe.test')
    const query = Object.fromEntries(url.searchParams)
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query,
      authorization: req.headers.authorization,
    })
    const send = (status: number, body: unknown) => {
      res.writeHead(status, {
        'Content-Type': 'application/json',
        'Request-Id': `req_${this.requests.length}`,
      })
      res.end(JSON.stringify(body))
    }
    if (req.headers.authorization !== `Bearer ${STRIPE_SECRET_KEY}`) {
      send(401, {
        error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' },
      })
      return
    }
    if (req.method !== 'GET') {
      send(405, {
        error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method})` },
      })
      return
    }
    const missing = (kind: string, id: string) =>
      send(404, {
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          param: 'id',
          message: `No such ${kind}: '${id}'`,
        },
      })

    const path = url.pathname
    if (path === '/v1/subscriptions/search' || path === '/v1/customers/search') {
      const orgId = /^metadata\['org_id'\]:'(.*)'$/.exec(query.query ?? '')?.[1]
      if (orgId === undefined) {
        send(400, {
          error: { type: 'invalid_request_error', message: 'Invalid search query', param: 'query' },
        })
        return
      }
      const pool = path.startsWith('/v1/subscriptions') ? this.subscriptions : this.customers
      const data = [...pool.values()].filter((o) => o.metadata?.org_id === orgId)
      send(200, { object: 'search_result', data, has_more: false, next_page: null, url: path })
      return
    }
    if (path === '/v1/subscriptions') {
      const data = [...this.subscriptions.values()].filter(
        (s) =>
          (!query.customer || s.customer === query.customer) &&
          (query.status === 'all' || s.status !== 'canceled'),
      )
      send(200, { object: 'list', data, has_more: false, url: path })
      return
    }
    const sub = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)
    if (sub) {
      const found = this.subscriptions.get(sub[1]!)
      found ? send(200, found) : missing('subscription', sub[1]!)
      return
    }
    const customer = /^\/v1\/customers\/([^/]+)$/.exec(path)
    if (customer) {
      const found = this.customers.get(customer[1]!)
      found ? send(200, found) : missing('customer', customer[1]!)
      return
    }
    send(404, {
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (GET: ${path})` },
    })
  }
}
