import { request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { AppContextOptions } from '../../../server/context.js'
import { createHttpServer } from '../../../server/http/node-server.js'
import { TEST_DIALECT } from '../../support/backends.js'
import { createHarness, type Harness, type TestInstance } from '../../support/harness.js'
import { OpenApiConformance } from '../../support/openapi-conformance.js'

/*
 * The per-client bucket of the routes without an API key (DESIGN §15), over real HTTP on loopback: the
 * bucket is keyed by the socket's address, so each client below binds an address of its own in
 * 127.0.0.0/8. The harness's manual clock refills the buckets only when a test advances it.
 */

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  body: any
}

let h: Harness | undefined
const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
  await h?.close()
  h = undefined
})

/** The instance's app behind the server's own Node HTTP layer, on a free loopback port. */
async function serve(instance: TestInstance): Promise<string> {
  const server = createHttpServer((request, env) => instance.app.fetch(request, env), {
    logError: (message, error) => instance.ctx.logError(message, error),
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** One request from the loopback address `from`. */
function send(
  base: string,
  from: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base)
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: from,
        agent: false,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () => {
          let body: unknown
          try {
            body = JSON.parse(text)
          } catch {}
          resolve({ status: res.statusCode!, headers: res.headers, text, body })
        })
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

async function start(options: Partial<AppContextOptions>): Promise<{ h: Harness; base: string }> {
  h = await createHarness(options)
  return { h, base: await serve(h) }
}

const RATE = { perSecond: 1, burst: 5 }

describe('the per-client bucket of the routes without an API key', () => {
  it('refuses the request past the burst with 429 public_rate_limited and Retry-After, then refills', async () => {
    const { h, base } = await start({ publicRateLimit: RATE })
    const conformance = new OpenApiConformance(
      JSON.parse((await send(base, '127.0.0.9', '/openapi.json')).text),
    )
    for (let i = 0; i < RATE.burst; i++) {
      expect((await send(base, '127.0.0.2', '/openapi.json')).status).toBe(200)
    }
    const refused = await send(base, '127.0.0.2', '/openapi.json')
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(refused.body).toMatchObject({
      status: 429,
      code: 'rate_limited',
      reason: 'public_rate_limited',
      context: { per_second: 1, burst: 5, retry_after_seconds: 1 },
    })
    expect(refused.body.detail).toMatch(/Too many requests from 127\.0\.0\.2 without an API key/)

    // Every route reachable without a key draws from the same bucket, the payment webhook too.
    const publicPaths = [
      ['GET', '/docs'],
      ['GET', '/docs/init.js'],
      ['GET', '/console/billing/pricing'],
      ['GET', '/console/rwa/.well-known/jwks.json'],
      ['GET', '/console/rwa/status/sl_0000000000000000000000'],
      ['POST', '/console/billing/webhooks/stripe'],
    ] as const
    for (const [method, path] of publicPaths) {
      const answer = await send(base, '127.0.0.2', path, { method })
      expect(answer.status, `${method} ${path}`).toBe(429)
      expect(answer.headers['retry-after'], path).toBe('1')
      if (!path.startsWith('/docs')) {
        const verdict = conformance.check({
          method,
          path,
          status: answer.status,
          headers: new Headers(answer.headers as Record<string, string>),
          text: answer.text,
        })
        expect(verdict.kind === 'skipped' ? [] : verdict.problems, path).toEqual([])
      }
    }

    // The probes are exempt, and so is every request with an API key.
    expect((await send(base, '127.0.0.2', '/healthz')).status).toBe(200)
    expect((await send(base, '127.0.0.2', '/readyz')).status).toBe(200)
    const keyed = await send(base, '127.0.0.2', '/console/billing/keys', {
      headers: { 'X-API-Key': h.adminKey },
    })
    expect(keyed.status).toBe(200)
    expect(keyed.headers['ratelimit-limit']).toBeDefined()

    // Another address has a bucket of its own.
    expect((await send(base, '127.0.0.3', '/console/billing/pricing')).status).toBe(200)

    // One token a second: one more request after a second, not two.
    h.clock.advance(1000)
    expect((await send(base, '127.0.0.2', '/console/billing/pricing')).status).toBe(200)
    expect((await send(base, '127.0.0.2', '/console/billing/pricing')).status).toBe(429)
    // Half a token later the client is told to come back in a whole second, never 0.
    h.clock.advance(500)
    expect((await send(base, '127.0.0.2', '/openapi.json')).headers['retry-after']).toBe('1')
    h.clock.advance(60_000)
    for (let i = 0; i < RATE.burst; i++) {
      expect((await send(base, '127.0.0.2', '/openapi.json')).status).toBe(200)
    }
    expect((await send(base, '127.0.0.2', '/openapi.json')).status).toBe(429)
  })

  it('says Retry-After in whole seconds at a slow rate', async () => {
    const { base } = await start({ publicRateLimit: { perSecond: 0.25, burst: 1 } })
    expect((await send(base, '127.0.0.2', '/console/billing/pricing')).status).toBe(200)
    const refused = await send(base, '127.0.0.2', '/console/billing/pricing')
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('4')
  })

  it('counts nothing when off', async () => {
    const { base } = await start({ publicRateLimit: null })
    for (let i = 0; i < 30; i++) {
      expect((await send(base, '127.0.0.2', '/console/billing/pricing')).status).toBe(200)
    }
  })

  it('ignores X-Forwarded-For unless told how many proxies stand in front', async () => {
    const { base } = await start({ publicRateLimit: RATE })
    for (let i = 0; i < RATE.burst; i++) {
      const headers = { 'X-Forwarded-For': `203.0.113.${i}` }
      expect((await send(base, '127.0.0.2', '/console/billing/pricing', { headers })).status).toBe(200)
    }
    const headers = { 'X-Forwarded-For': '203.0.113.99' }
    expect((await send(base, '127.0.0.2', '/console/billing/pricing', { headers })).status).toBe(429)
  })

  it('with --trust-proxy 1 counts the address the proxy appended, whatever the client put before it', async () => {
    const { base } = await start({ publicRateLimit: RATE, trustProxyHops: 1 })
    // The proxy (127.0.0.2) appends the address it received the request from: 198.51.100.7. Entries
    // before it came from the client and change every time.
    for (let i = 0; i < RATE.burst; i++) {
      const headers = { 'X-Forwarded-For': `203.0.113.${i}, 198.51.100.7` }
      expect((await send(base, '127.0.0.2', '/console/billing/pricing', { headers })).status).toBe(200)
    }
    const again = { 'X-Forwarded-For': '192.0.2.1, 198.51.100.7' }
    const refused = await send(base, '127.0.0.2', '/console/billing/pricing', { headers: again })
    expect(refused.status).toBe(429)
    expect(refused.body.detail).toMatch(/from 198\.51\.100\.7/)
    // Another client behind the same proxy has its own bucket.
    const other = { 'X-Forwarded-For': '198.51.100.8' }
    expect((await send(base, '127.0.0.2', '/console/billing/pricing', { headers: other })).status).toBe(200)
  })

  it.skipIf(TEST_DIALECT !== 'postgres')(
    'two instances over one Redis draw from one bucket per client',
    async () => {
      const { h, base } = await start({ publicRateLimit: RATE })
      const other = await h.newInstance()
      const otherBase = await serve(other)
      for (let i = 0; i < RATE.burst; i++) {
        const answer = await send(i % 2 ? otherBase : base, '127.0.0.2', '/console/billing/pricing')
        expect(answer.status).toBe(200)
      }
      expect((await send(otherBase, '127.0.0.2', '/console/billing/pricing')).status).toBe(429)
      expect((await send(base, '127.0.0.2', '/console/billing/pricing')).status).toBe(429)
      // A second later each instance sees the same one new token.
      h.clock.advance(1000)
      expect((await send(otherBase, '127.0.0.2', '/console/billing/pricing')).status).toBe(200)
      expect((await send(base, '127.0.0.2', '/console/billing/pricing')).status).toBe(429)
      expect((await send(base, '127.0.0.3', '/console/billing/pricing')).status).toBe(200)
    },
  )
})
