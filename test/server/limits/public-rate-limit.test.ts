import { request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { AppContextOptions } from '../../../server/pipeline/context.js'
import { createHttpServer } from '../../../server/platform/http/node-server.js'
import { PublicGate } from '../../../server/platform/limits/public-gate.js'
import { ServerMetrics } from '../../../server/platform/metrics/metrics.js'
import { TEST_DIALECT } from '../../support/backends.js'
import { createHarness, type Harness, type TestInstance } from '../../support/harness.js'
import { OpenApiConformance } from '../../support/openapi-conformance.js'

/*
 * The per-client bucket of the routes without an API key (README.md, "Configuration",
 * `--public-rate-limit`), over real HTTP on loopback: the bucket is keyed by the socket's address, so each
 * client below binds an address of its own in 127.0.0.0/8. The harness's manual clock refills the buckets
 * only when a test advances it.
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

/** The instance's app behind the server's own Node HTTP layer and its gate, on a free loopback port. */
async function serve(instance: TestInstance): Promise<string> {
  const server = createHttpServer((request, env) => instance.app.fetch(request, env), {
    logError: (message, error) => instance.ctx.logError(message, error),
    gate: () => instance.ctx.publicGate,
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

/**
 * A harness served over HTTP. A refusal of a client that did not wait for its Retry-After is held for
 * HOLD_MS here (1 s by default), so that a test can send several in a row.
 */
async function start(options: Partial<AppContextOptions>): Promise<{ h: Harness; base: string }> {
  h = await createHarness({ publicHoldMs: HOLD_MS, ...options })
  return { h, base: await serve(h) }
}

const HOLD_MS = 30

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
    expect(refused.body.detail).toMatch(/Too many requests from 127\.0\.0\.2 without a valid API key/)

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

/** The value of one sample of the server's metrics (`name{labels}`), 0 when absent. */
async function metric(instance: TestInstance, sample: string): Promise<number> {
  const line = (await instance.ctx.metrics.text()).split('\n').find((l) => l.startsWith(`${sample} `))
  return line === undefined ? 0 : Number(line.slice(sample.length + 1))
}

const AT_ONCE = 'rwa_public_rate_limited_total{answer="at_once"}'
const HELD = 'rwa_public_rate_limited_total{answer="held"}'

describe('the bucket at the door (before the app)', () => {
  it('refuses with a preformatted 429 that closes the connection, logs no line per refusal, and sums them up at warn', async () => {
    const { h, base } = await start({ publicRateLimit: { perSecond: 1, burst: 2 } })
    const conformance = new OpenApiConformance(
      JSON.parse((await send(base, '127.0.0.9', '/openapi.json')).text),
    )
    for (let i = 0; i < 2; i++) {
      expect((await send(base, '127.0.0.4', '/console/billing/pricing')).status).toBe(200)
    }
    const linesBefore = h.logRecords().length
    const refused = await send(base, '127.0.0.4', '/console/billing/pricing', {
      headers: { 'X-Request-Id': 'flood-1' },
    })
    expect(refused.status).toBe(429)
    expect(refused.headers.connection).toBe('close')
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.headers['x-request-id']).toBe('flood-1')
    expect(refused.body).toMatchObject({
      status: 429,
      code: 'rate_limited',
      reason: 'public_rate_limited',
      request_id: 'flood-1',
      context: { per_second: 1, burst: 2, retry_after_seconds: 1 },
    })
    const verdict = conformance.check({
      method: 'GET',
      path: '/console/billing/pricing',
      status: refused.status,
      headers: new Headers(refused.headers as Record<string, string>),
      text: refused.text,
    })
    expect(verdict.kind === 'skipped' ? [] : verdict.problems).toEqual([])
    // A caller's id that is not one is replaced, as the app does.
    const other = await send(base, '127.0.0.4', '/openapi.json', { headers: { 'X-Request-Id': 'a b' } })
    expect(other.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(other.body.request_id).toBe(other.headers['x-request-id'])

    // Never routed: no request log line, not in the request metrics; counted apart.
    expect(h.logRecords().slice(linesBefore)).toEqual([])
    expect(await metric(h, AT_ONCE)).toBe(1)
    expect(await metric(h, HELD)).toBe(1)
    expect(await h.ctx.metrics.text()).not.toMatch(/rwa_http_requests_total\{[^}]*status="429"/)

    // One line for all of them, at warn, naming the address (here when the gate closes; else each minute).
    h.ctx.publicGate.close()
    const summary = h.logRecords().slice(linesBefore)
    expect(summary).toHaveLength(1)
    expect(summary[0]).toMatchObject({ level: 'warn' })
    expect(summary[0]!.msg).toMatch(
      /^refused 2 request\(s\) without a valid API key .* from 1 address\(es\), most from 127\.0\.0\.4 \(2\); 1 held/,
    )
  })

  it('holds the refusal of a client that comes back before its Retry-After, and only that one', async () => {
    const hold = 300
    const { h, base } = await start({ publicRateLimit: { perSecond: 1, burst: 1 }, publicHoldMs: hold })
    expect((await send(base, '127.0.0.5', '/openapi.json')).status).toBe(200)
    // Told to come back in 1 s: answered at once.
    expect((await send(base, '127.0.0.5', '/openapi.json')).status).toBe(429)
    expect(await metric(h, AT_ONCE)).toBe(1)
    // Back at once: answered only after the hold (its Retry-After, at most `hold`).
    const started = performance.now()
    const early = await send(base, '127.0.0.5', '/openapi.json')
    expect(early.status).toBe(429)
    expect(performance.now() - started).toBeGreaterThanOrEqual(hold - 10)
    expect(await metric(h, HELD)).toBe(1)
    // Another address is not held for it.
    expect((await send(base, '127.0.0.6', '/openapi.json')).status).toBe(200)
    expect((await send(base, '127.0.0.6', '/openapi.json')).status).toBe(429)
    expect(await metric(h, AT_ONCE)).toBe(2)
    // A client that waited as told is served, and its next refusal is answered at once again.
    h.clock.advance(1000)
    expect((await send(base, '127.0.0.5', '/openapi.json')).status).toBe(200)
    expect((await send(base, '127.0.0.5', '/openapi.json')).status).toBe(429)
    expect(await metric(h, AT_ONCE)).toBe(3)
    expect(await metric(h, HELD)).toBe(1)
  })

  it('counts unknown paths and requests without a valid key; a valid key from the same address still passes', async () => {
    const { h, base } = await start({ publicRateLimit: { perSecond: 1, burst: 4 } })
    const conformance = new OpenApiConformance(
      JSON.parse((await send(base, '127.0.0.9', '/openapi.json')).text),
    )
    const bogus = { 'X-API-Key': `rwa_live_${'A'.repeat(43)}` }
    const from = '127.0.0.7'
    expect((await send(base, from, '/no/such/route')).status).toBe(404)
    expect((await send(base, from, '/console/rwa/tokens')).status).toBe(401)
    expect((await send(base, from, '/console/rwa/tokens', { headers: { 'X-API-Key': 'nope' } })).status).toBe(
      401,
    )
    expect((await send(base, from, '/console/rwa/tokens', { headers: bogus })).status).toBe(401)
    // The bucket is empty: each of these is the 429 of the bucket, a key route's included.
    const refusals = [
      await send(base, from, '/console/rwa/tokens', { headers: bogus }),
      await send(base, from, '/console/rwa/tokens'),
      await send(base, from, '/no/such/route'),
    ]
    for (const refused of refusals) {
      expect(refused.status).toBe(429)
      expect(refused.body).toMatchObject({ reason: 'public_rate_limited' })
      expect(refused.headers['retry-after']).toBe('1')
      const verdict = conformance.check({
        method: 'GET',
        path: '/console/rwa/tokens',
        status: refused.status,
        headers: new Headers(refused.headers as Record<string, string>),
        text: refused.text,
      })
      expect(verdict.kind === 'skipped' ? [] : verdict.problems).toEqual([])
    }
    // The unknown key was looked up, and refused by the bucket in the app; the others at the door,
    // held: the client had been told to wait.
    expect(await metric(h, AT_ONCE)).toBe(1)
    expect(await metric(h, HELD)).toBe(2)
    const keyed = await send(base, from, '/console/rwa/tokens', { headers: { 'X-API-Key': h.adminKey } })
    expect(keyed.status).toBe(200)
  })

  it('counts every request that does not authenticate: unknown paths, methods and refused bodies with a well-formed unknown key included', async () => {
    const { h, base } = await start({ publicRateLimit: { perSecond: 1, burst: 4 } })
    // A fresh well-formed key each time: none of them is ever looked up as a key.
    const bogus = () => ({
      'X-API-Key': `rwa_live_${crypto.randomUUID().replaceAll('-', '').padEnd(43, 'x')}`,
    })
    const from = '127.0.0.8'
    expect((await send(base, from, '/no/such/route', { headers: bogus() })).status).toBe(404)
    expect((await send(base, from, '/console/rwa/nothing-here', { headers: bogus() })).status).toBe(404)
    expect(
      (await send(base, from, '/console/billing/pricing', { method: 'DELETE', headers: bogus() })).status,
    ).toBe(405)
    const tooLarge = {
      ...bogus(),
      'Content-Type': 'application/json',
      'Content-Length': String(2 * 1024 * 1024),
    }
    const refusedBody = await send(base, from, '/console/rwa/tokens', { method: 'POST', headers: tooLarge })
    expect(refusedBody.status).toBe(413)
    // The bucket is empty now: the next one is its 429, whatever the path or the key.
    for (const path of ['/no/such/route', '/console/rwa/nothing-here']) {
      const refused = await send(base, from, path, { headers: bogus() })
      expect(refused.status, path).toBe(429)
      expect(refused.body, path).toMatchObject({ reason: 'public_rate_limited' })
      expect(refused.headers['retry-after'], path).toBe('1')
    }
    // A key that authenticates is not counted against the address, and is served.
    const keyed = await send(base, from, '/console/rwa/tokens', { headers: { 'X-API-Key': h.adminKey } })
    expect(keyed.status).toBe(200)
    // Another address has its own bucket.
    expect((await send(base, '127.0.0.9', '/no/such/route', { headers: bogus() })).status).toBe(404)
  })
})

describe('a console session at the door', () => {
  it('passes like a key, counted against its organization; a forged session cookie is counted like no key', async () => {
    const { h, base } = await start({ publicRateLimit: { perSecond: 1, burst: 3 } })
    const signIn = await h.request('POST', '/console/ui/session', {
      key: null,
      body: { api_key: h.adminKey },
    })
    expect(signIn.status).toBe(201)
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!
    const from = '127.0.0.11'
    for (let i = 0; i < 8; i++) {
      const res = await send(base, from, '/console/billing/keys/self', { headers: { cookie } })
      expect([res.status, res.headers['ratelimit-limit'] !== undefined]).toEqual([200, true])
    }
    const forged = { cookie: `rwa_session=${'x'.repeat(43)}` }
    const answers = []
    for (let i = 0; i < 4; i++)
      answers.push(await send(base, from, '/console/billing/keys/self', { headers: forged }))
    expect(answers.map((a) => [a.status, a.body?.reason])).toEqual([
      [401, 'session_ended'],
      [401, 'session_ended'],
      [401, 'session_ended'],
      [429, 'public_rate_limited'],
    ])
  })
})

describe('PublicGate', () => {
  it('holds at most maxHeld refusals at once, answers the rest at once, and answers the held ones when closed', async () => {
    h = await createHarness({})
    const metrics = new ServerMetrics()
    const warnings: string[] = []
    const gate = new PublicGate({
      rate: { perSecond: 1, burst: 1 },
      trustProxyHops: 0,
      limits: h.ctx.limits,
      clock: h.clock,
      metrics,
      warn: (line) => warnings.push(line),
      holdMs: 60_000,
      maxHeld: 2,
    })
    const server = createHttpServer(() => new Response('{}', { status: 200 }), {
      logError: (message, error) => h!.ctx.logError(message, error),
      gate: () => gate,
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    expect((await send(base, '127.0.0.8', '/openapi.json')).status).toBe(200)
    expect((await send(base, '127.0.0.8', '/openapi.json')).status).toBe(429)
    const held = [send(base, '127.0.0.8', '/openapi.json'), send(base, '127.0.0.8', '/openapi.json')]
    // Wait until both are held, then one more: no room, answered at once.
    while (!(await metrics.text()).includes('rwa_public_rate_limited_total{answer="held"} 2')) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect((await send(base, '127.0.0.8', '/openapi.json')).status).toBe(429)
    expect(await metrics.text()).toContain('rwa_public_rate_limited_total{answer="at_once"} 2')
    // Closing answers the held ones now, not in a minute.
    gate.close()
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([429, 429])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^refused 4 request\(s\) .* 2 held/)
  })

  it('forgets the clients that may retry again', async () => {
    h = await createHarness({})
    const gate = new PublicGate({
      rate: { perSecond: 10, burst: 1 },
      trustProxyHops: 0,
      limits: h.ctx.limits,
      clock: h.clock,
      metrics: new ServerMetrics(),
      warn: () => {},
    })
    for (let i = 0; i < 50; i++) {
      const client = `198.51.100.${i}`
      await gate.take(client, client, h.clock.now())
      expect((await gate.take(client, client, h.clock.now())).allowed).toBe(false)
    }
    expect(gate.tracked).toBe(50)
    h.clock.advance(10_000)
    await gate.take('203.0.113.1', '203.0.113.1', h.clock.now())
    await gate.take('203.0.113.1', '203.0.113.1', h.clock.now())
    expect(gate.tracked).toBe(1)
    gate.close()
  })
})
