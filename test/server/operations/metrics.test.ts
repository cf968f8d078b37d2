import { sql } from 'kysely'
import { Counter, Histogram, Registry } from 'prom-client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Harness, createHarness } from '../../support/harness.js'
import { OWNER, RECIPIENT, buildWorld, transferBody } from '../../support/governance.js'
import { Scrape } from '../../support/prometheus.js'
import { TEST_DIALECT } from '../../support/backends.js'
import { ServerMetrics } from '../../../server/platform/metrics/metrics.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

/** GET /metrics with the admin key, parsed. */
async function scrape(): Promise<Scrape> {
  const res = await h.get('/metrics')
  expect(res.status).toBe(200)
  return Scrape.parse(res.text)
}

const requests = (s: Scrape, method: string, route: string, status: number) =>
  s.value('rwa_http_requests_total', { method, route, status: String(status) })

describe('GET /metrics', () => {
  it('is served to the admin key only, in the Prometheus text format', async () => {
    const org = await h.createOrg('acme', { tier: 'enterprise' })
    expect((await h.get('/metrics', { key: null })).status).toBe(401)
    const member = await h.get('/metrics', { key: org.key })
    expect(member.status).toBe(403)
    expect(member.body).toMatchObject({
      code: 'forbidden',
      detail: 'GET /metrics requires the admin API key',
    })
    const admin = await h.get('/metrics')
    expect(admin.status).toBe(200)
    expect(admin.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(admin.text).not.toMatch(/^rwa_\S*\s+nan$/im)
    const parsed = await Scrape.parse(admin.text)
    expect(parsed.families.rwa_http_requests_total?.type).toBe('counter')
    expect(parsed.families.rwa_http_request_duration_seconds?.type).toBe('histogram')
  })

  it('is neither metered nor rate limited for the admin key', async () => {
    for (let i = 0; i < 3; i++) await scrape()
    expect(h.ctx.meter.pendingRequests()).toBe(0)
    expect((await h.get('/metrics')).headers.get('ratelimit-remaining')).toBeNull()
  })

  it('counts requests by method, route template and status: exactly the requests sent', async () => {
    const org = await h.createOrg('acme', { trial: true })
    const before = await scrape()
    for (let i = 0; i < 3; i++) await h.get('/console/billing/pricing', { key: null })
    for (const id of ['tok_a', 'tok_b']) await h.get(`/console/rwa/tokens/${id}`, { key: org.key })
    await h.post('/console/rwa/jurisdictions', { jurisdiction_id: 'US' }, { key: org.key })
    await h.get('/nowhere/1', { key: null })
    await h.get('/nowhere/2', { key: null })
    const after = await scrape()

    const delta = (method: string, route: string, status: number) =>
      requests(after, method, route, status) - requests(before, method, route, status)
    expect(delta('GET', '/console/billing/pricing', 200)).toBe(3)
    expect(delta('GET', '/console/rwa/tokens/{id}', 404)).toBe(2)
    expect(delta('POST', '/console/rwa/jurisdictions', 400)).toBe(1)
    expect(delta('GET', 'unmatched', 404)).toBe(2)
    // The first scrape counted itself once its answer was ready, so the second sees it.
    expect(delta('GET', '/metrics', 200)).toBe(1)
    // Nothing else moved: the paths themselves never become labels.
    const total = (s: Scrape) =>
      ((s.families.rwa_http_requests_total?.data ?? []) as { value: number }[]).reduce(
        (n, d) => n + d.value,
        0,
      )
    expect(total(after) - total(before)).toBe(3 + 2 + 1 + 2 + 1)

    const latency = after.histogram('rwa_http_request_duration_seconds', {
      method: 'GET',
      route: '/console/billing/pricing',
    })!
    expect(latency.count).toBe(3)
    expect(latency.buckets['+Inf']).toBe(3)
    // Cumulative: each bucket holds at least as many as the one below it.
    const counts = Object.entries(latency.buckets)
      .map(([le, count]) => [le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), count] as const)
      .sort(([a], [b]) => a - b)
      .map(([, count]) => count)
    expect(counts).toEqual([...counts].sort((a, b) => a - b))
    expect(counts).toHaveLength(14)
  })

  it('counts 429s by the tier whose limits applied (pro during a trial) and the window', async () => {
    const free = await h.createOrg('free-org')
    const trial = await h.createOrg('trial-org', { trial: true })
    for (let i = 0; i < 62; i++) await h.get('/console/billing/usage/free-org', { key: free.key })
    for (let i = 0; i < 501; i++) await h.get('/console/billing/usage/trial-org', { key: trial.key })
    const s = await scrape()
    expect(s.value('rwa_rate_limited_total', { tier: 'free', window: 'minute' })).toBe(2)
    expect(s.value('rwa_rate_limited_total', { tier: 'pro', window: 'minute' })).toBe(1)
    expect(requests(s, 'GET', '/console/billing/usage/{org_id}', 429)).toBe(3)
  })

  it('counts transfer decisions once recorded: approved, rejected and forced, each from 0', async () => {
    const world = await buildWorld(h)
    const before = await scrape()
    for (const decision of ['approved', 'rejected', 'forced']) {
      expect(before.families.rwa_transfer_decisions_total?.data).toContainEqual({
        labels: { decision },
        value: 0,
      })
    }
    expect((await h.post('/console/rwa/transfers', transferBody(world.tokenId))).body.status).toBe('approved')
    const rejected = await h.post(
      '/console/rwa/transfers',
      transferBody(world.tokenId, 1, { recipient_did: 'did:web:lion:nobody' }),
    )
    expect(rejected.body.status).toBe('rejected')
    const forced = await h.post(`/console/rwa/tokens/${world.tokenId}/forced-transfer`, {
      from_did: OWNER,
      from_jurisdiction: 'US',
      to_did: RECIPIENT,
      to_jurisdiction: 'SG',
      amount: 5,
      reason: 'court order 2026-17',
    })
    expect(forced.status, forced.text).toBe(201)
    // Refused before anything is recorded: not counted.
    expect((await h.post('/console/rwa/transfers', transferBody(world.tokenId, 1_000_000))).status).toBe(409)
    const s = await scrape()
    expect(s.value('rwa_transfer_decisions_total', { decision: 'approved' })).toBe(1)
    expect(s.value('rwa_transfer_decisions_total', { decision: 'rejected' })).toBe(1)
    expect(s.value('rwa_transfer_decisions_total', { decision: 'forced' })).toBe(1)
  })

  it('reports the usage backlog and each flush', async () => {
    const org = await h.createOrg('acme', { tier: 'pro' })
    await h.ctx.meter.flush()
    const before = await scrape()
    expect(before.value('rwa_usage_backlog_requests')).toBe(0)
    // (Not the usage endpoint: it flushes before it reads.)
    for (let i = 0; i < 4; i++) await h.get('/console/billing/subscription/acme', { key: org.key })
    expect((await scrape()).value('rwa_usage_backlog_requests')).toBe(4)
    await h.ctx.meter.flush()
    const after = await scrape()
    expect(after.value('rwa_usage_backlog_requests')).toBe(0)
    const flushes = (s: Scrape) => s.histogram('rwa_usage_flush_duration_seconds')?.count ?? 0
    expect(flushes(after) - flushes(before)).toBe(1)
    expect(after.value('rwa_usage_flush_failures_total')).toBe(0)
  })

  it('counts failed database statements by code, and Redis errors through the hook', async () => {
    const postgres = TEST_DIALECT === 'postgres'
    await expect(sql`select * from no_such_table`.execute(h.ctx.db)).rejects.toThrow(
      postgres ? /relation "no_such_table" does not exist/ : /no such table/,
    )
    h.ctx.metrics.redisError('limit')
    h.ctx.metrics.redisError('limit')
    const s = await scrape()
    // SQLite's result code, or PostgreSQL's SQLSTATE (42P01: undefined table).
    expect(s.value('rwa_database_errors_total', { code: postgres ? '42P01' : 'SQLITE_ERROR' })).toBe(1)
    expect(s.value('rwa_redis_errors_total', { operation: 'limit' })).toBe(2)
  })

  it('is in the OpenAPI document, as text behind the admin key', async () => {
    const doc = (await h.get('/openapi.json', { key: null })).body
    const op = doc.paths['/metrics'].get
    // 429: a request without a valid key counts against its address's bucket (README.md, "Configuration").
    expect(Object.keys(op.responses)).toEqual(['200', '400', '401', '403', '429', '503'])
    expect(op.security).toEqual([{ ApiKey: [] }])
    expect(Object.keys(op.responses['200'].content)).toEqual(['text/plain'])
    // Neither limited nor metered: no RateLimit headers are promised.
    expect(Object.keys(op.responses['200'].headers)).toEqual(['X-Request-Id'])
  })
})

describe('the request metrics, counted in the app and handed to prom-client at each scrape', () => {
  const NAMES = ['rwa_http_requests_total', 'rwa_http_request_duration_seconds']

  /** prom-client's own counter and histogram, as the server declared them before. */
  function reference() {
    const registry = new Registry()
    const counter = new Counter({
      name: 'rwa_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    })
    const histogram = new Histogram({
      name: 'rwa_http_request_duration_seconds',
      help: 'Time from receiving a request to its response being ready, by method and route template',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    })
    return {
      registry,
      answered(method: string, route: string, status: number, seconds: number) {
        counter.inc({ method, route, status: String(status) })
        histogram.observe({ method, route }, seconds)
      },
    }
  }

  it('gives the same exposition as prom-client fed the same requests, scrape after scrape', async () => {
    const metrics = new ServerMetrics()
    const expected = reference()
    const routes = [
      '/console/billing/pricing',
      '/console/rwa/jurisdictions/{id}',
      'unmatched',
      '/a "quoted"\\route',
    ]
    // Durations on and around every bound, past the last, zero, and arbitrary ones (the sums' order matters).
    const durations = [
      0, 0.0005, 0.00050001, 0.001, 0.0031, 0.01, 0.099, 0.1, 0.7, 2.5, 4.99, 5, 5.01, 17, 0.000123,
    ]
    let scrapes = 0
    let postedPricingOk = 0
    for (let i = 0; i < 600; i++) {
      const request = [
        i % 7 === 0 ? 'POST' : 'GET',
        routes[(i * 5) % routes.length] as string,
        [200, 404, 429, 200, 500][i % 5] as number,
        (durations[i % durations.length] as number) * (1 + (i % 3) / 1000),
      ] as const
      metrics.requestAnswered(...request)
      if (request[0] === 'POST' && request[1] === routes[0] && request[2] === 200) postedPricingOk++
      expected.answered(...request)
      if (i % 97 === 0) {
        scrapes++
        for (const name of NAMES) {
          expect(await metrics.registry.getSingleMetricAsString(name)).toBe(
            await expected.registry.getSingleMetricAsString(name),
          )
        }
      }
    }
    expect(scrapes).toBeGreaterThan(5)
    const text = await metrics.text()
    const reference_ = await expected.registry.metrics()
    // The two families, in the same place of the whole exposition: first, in this order.
    expect(text.startsWith(reference_.trimEnd())).toBe(true)
    expect(postedPricingOk).toBeGreaterThan(5)
    expect(text).toContain(
      `rwa_http_requests_total{method="POST",route="/console/billing/pricing",status="200"} ${postedPricingOk}\n`,
    )
    const json = (await metrics.registry.getMetricsAsJSON()).filter((m) => NAMES.includes(m.name))
    expect(json).toEqual(await expected.registry.getMetricsAsJSON())
  })

  it('reports, over HTTP, every request counted between two scrapes and nothing twice', async () => {
    const org = await h.createOrg('acme', { tier: 'enterprise' })
    const first = await scrape()
    for (let round = 1; round <= 3; round++) {
      for (let i = 0; i < 25; i++) await h.get('/console/billing/pricing', { key: null })
      for (let i = 0; i < 5; i++) await h.get('/console/rwa/jurisdictions/ZZ', { key: org.key })
      const s = await scrape()
      expect(
        requests(s, 'GET', '/console/billing/pricing', 200) -
          requests(first, 'GET', '/console/billing/pricing', 200),
      ).toBe(25 * round)
      expect(requests(s, 'GET', '/console/rwa/jurisdictions/{id}', 404)).toBe(5 * round)
      // Every scrape before this one, counted once it was answered.
      expect(requests(s, 'GET', '/metrics', 200) - requests(first, 'GET', '/metrics', 200)).toBe(round)
      const latency = s.histogram('rwa_http_request_duration_seconds', {
        method: 'GET',
        route: '/console/rwa/jurisdictions/{id}',
      })!
      expect(latency.count).toBe(5 * round)
      expect(latency.buckets['+Inf']).toBe(5 * round)
    }
  })
})
