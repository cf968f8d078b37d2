import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { pricingResponseSchema } from '../../../src/contract/billing.js'
import { PRICING } from '../../../src/contract/pricing.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('GET /console/billing/pricing', () => {
  it('is public and lists the three tiers exactly as the spec prices them', async () => {
    const res = await h.get('/console/billing/pricing', { key: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(pricingResponseSchema.parse(res.body)).toEqual(res.body)
    expect(res.body.free_trial_days).toBe(14)
    expect(res.body.tiers.free).toMatchObject({ name: 'Community', price: '$0', price_monthly: 0 })
    expect(res.body.tiers.pro).toMatchObject({ name: 'Pro', price: '$99/mo', price_monthly: 99 })
    expect(res.body.tiers.enterprise).toMatchObject({
      name: 'Enterprise',
      price: 'Custom',
      price_monthly: null,
    })
    expect(res.body.tiers.free.limits).toEqual({
      requests_per_day: 1000,
      requests_per_minute: 60,
      max_dids: 100,
      max_skills: 10,
    })
    expect(res.body.tiers.pro.limits).toEqual({
      requests_per_day: 50000,
      requests_per_minute: 500,
      max_dids: 10000,
      max_skills: 500,
    })
    expect(res.body.tiers.enterprise.limits).toEqual({
      requests_per_day: 'unlimited',
      requests_per_minute: 5000,
      max_dids: 'unlimited',
      max_skills: 'unlimited',
    })
    for (const tier of Object.values(res.body.tiers) as Array<{ description: string }>) {
      expect(tier.description.length).toBeGreaterThan(10)
    }
  })

  it('carries no rate-limit headers since it needs no key', async () => {
    const res = await h.get('/console/billing/pricing', { key: null })
    expect(res.headers.get('ratelimit-limit')).toBeNull()
  })

  it('answers the same bytes as the serialized price list, with a strong ETag; If-None-Match with it is a 304', async () => {
    const res = await h.get('/console/billing/pricing', { key: null })
    expect(res.text).toBe(JSON.stringify(PRICING))
    expect(res.headers.get('content-type')).toBe('application/json')
    const etag = res.headers.get('etag')
    expect(etag).toMatch(/^"[\w-]{27}"$/)
    expect(res.headers.get('cache-control')).toBe('no-cache')
    // The same bytes, the same ETag, request after request.
    const again = await h.get('/console/billing/pricing', { key: null })
    expect([again.text, again.headers.get('etag')]).toEqual([res.text, etag])

    for (const ifNoneMatch of [etag!, `W/${etag}`, `"other", ${etag}`, '*']) {
      const notModified = await h.get('/console/billing/pricing', {
        key: null,
        headers: { 'If-None-Match': ifNoneMatch },
      })
      expect(notModified.status).toBe(304)
      expect(notModified.text).toBe('')
      expect(notModified.headers.get('etag')).toBe(etag)
    }
    const stale = await h.get('/console/billing/pricing', {
      key: null,
      headers: { 'If-None-Match': '"not-the-etag"' },
    })
    expect(stale.status).toBe(200)
    expect(stale.text).toBe(res.text)
  })
})
