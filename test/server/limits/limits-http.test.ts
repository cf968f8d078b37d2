import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const usageOf = (key: string) => h.get('/console/billing/usage/acme', { key, query: { days: 1 } })

describe('limits over HTTP (per organization)', () => {
  it('refuses the 61st request in a minute on the free tier with 429 and Retry-After, then the window slides', async () => {
    const acme = await h.createOrg('acme')
    const second = (await h.post('/console/billing/keys', { org_id: 'acme', name: 'second' })).body.api_key
    for (let i = 0; i < 60; i++) {
      // 60 requests over 30 s, alternating keys: the limit is the organization's.
      const res = await h.get('/console/billing/keys', { key: i % 2 ? acme.key : second })
      h.clock.advance(500)
      expect(res.status).toBe(200)
      expect(res.headers.get('ratelimit-limit')).toBe('60')
      expect(res.headers.get('ratelimit-remaining')).toBe(String(59 - i))
    }
    const refused = await h.get('/console/billing/keys', { key: acme.key })
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ code: 'rate_limited', status: 429 })
    expect(refused.body.detail).toMatch(/60 requests per minute/)
    // The first request was made 30 s ago: it leaves the window 30 s from now.
    expect(refused.headers.get('retry-after')).toBe('30')
    expect(refused.headers.get('ratelimit-remaining')).toBe('0')

    h.clock.advance(30_000)
    expect((await h.get('/console/billing/keys', { key: acme.key })).status).toBe(200)
    expect((await h.get('/console/billing/keys', { key: acme.key })).status).toBe(429)
  })

  it('another organization is not affected by acme exhausting its limit', async () => {
    const acme = await h.createOrg('acme')
    const globex = await h.createOrg('globex')
    for (let i = 0; i < 60; i++) await h.get('/console/billing/keys', { key: acme.key })
    expect((await h.get('/console/billing/keys', { key: acme.key })).status).toBe(429)
    expect((await h.get('/console/billing/keys', { key: globex.key })).status).toBe(200)
  })

  it('refuses past 1,000 requests a day on free and resets at 00:00 UTC', async () => {
    const acme = await h.createOrg('acme')
    h.clock.set('2026-01-15T06:00:00Z')
    for (let i = 0; i < 1000; i++) {
      h.clock.advance(1_001) // stay under 60 a minute
      const res = await h.get('/console/billing/keys', { key: acme.key })
      if (res.status !== 200) throw new Error(`request ${i + 1} answered ${res.status}`)
    }
    h.clock.advance(60_000)
    const refused = await h.get('/console/billing/keys', { key: acme.key })
    expect(refused.status).toBe(429)
    expect(refused.body.detail).toMatch(/1000 requests per day/)
    const secondsToMidnight = (Date.parse('2026-01-16T00:00:00Z') - h.clock.now()) / 1000
    expect(Number(refused.headers.get('retry-after'))).toBe(Math.ceil(secondsToMidnight))

    h.clock.set('2026-01-15T23:59:59.999Z')
    expect((await h.get('/console/billing/keys', { key: acme.key })).status).toBe(429)
    h.clock.set('2026-01-16T00:00:00Z')
    const fresh = await usageOf(acme.key)
    expect(fresh.status).toBe(200)
    expect(fresh.body.daily_usage).toEqual([
      { date: '2026-01-16', request_count: 1, dids_created: 0, skills_registered: 0 },
    ])
  })

  it('does not count refused requests in usage', async () => {
    const acme = await h.createOrg('acme')
    for (let i = 0; i < 65; i++) await h.get('/console/billing/keys', { key: acme.key })
    h.clock.advance(60_000)
    const usage = await usageOf(acme.key)
    expect(usage.body.totals.total_requests).toBe(61) // 60 admitted + this one
  })

  it('shows "unlimited" for enterprise and reports the per-minute window in the headers', async () => {
    const big = await h.createOrg('acme', { tier: 'enterprise' })
    const res = await h.get('/console/billing/subscription/acme', { key: big.key })
    expect(res.body.limits).toEqual({
      requests_per_day: 'unlimited',
      requests_per_minute: 5000,
      max_dids: 'unlimited',
      max_skills: 'unlimited',
    })
    expect(res.headers.get('ratelimit-limit')).toBe('5000')
    expect(res.headers.get('ratelimit-remaining')).toBe('4999')
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0)
  })

  it('carries RateLimit headers on error responses of authenticated requests too', async () => {
    const acme = await h.createOrg('acme')
    const res = await h.get('/console/billing/subscription/nobody', { key: acme.key })
    expect(res.status).toBe(403)
    expect(res.headers.get('ratelimit-limit')).toBe('60')
  })

  it('keeps the day count across a restart of the app on the same database', async () => {
    const acme = await h.createOrg('acme')
    for (let i = 0; i < 10; i++) await h.get('/console/billing/keys', { key: acme.key })
    await h.ctx.meter.flush()
    const restarted = await h.newInstance()
    const res = await restarted.get('/console/billing/keys', { key: acme.key })
    expect(res.status).toBe(200)
    const usage = await restarted.get('/console/billing/usage/acme?days=1', { key: acme.key })
    expect(usage.body.totals.total_requests).toBe(12)
  })
})
