import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { usageResponseSchema } from '../../../src/contract/billing.js'
import { TIER_LIMITS } from '../../../src/contract/limits.js'
import { DAY_MS } from '../../../server/platform/clock.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('GET /console/billing/usage/{org_id}', () => {
  it('defaults to 30 days: one row per UTC day, oldest first, ending today, zero rows included', async () => {
    const acme = await h.createOrg('acme')
    const res = await h.get('/console/billing/usage/acme', { key: acme.key })
    expect(res.status).toBe(200)
    const body = usageResponseSchema.parse(res.body)
    expect(body.daily_usage).toHaveLength(30)
    expect(body.daily_usage.at(-1)!.date).toBe('2026-01-15')
    expect(body.daily_usage[0]!.date).toBe('2025-12-17')
    expect(body).toMatchObject({
      org_id: 'acme',
      tier: 'free',
      limits: TIER_LIMITS.free,
      trial_ends_at: null,
    })
    expect(Object.keys(body.totals).sort()).toEqual([
      'total_dids_created',
      'total_requests',
      'total_skills_registered',
    ])
    expect(Object.keys(body.daily_usage[0]!).sort()).toEqual([
      'date',
      'dids_created',
      'request_count',
      'skills_registered',
    ])
  })

  it('counts every authenticated request of the organization per UTC day, across all its keys', async () => {
    const acme = await h.createOrg('acme')
    const second = await h.post('/console/billing/keys', { name: 'second' }, { key: acme.key }) // day 1: 1
    await h.get('/console/billing/keys', { key: second.body.api_key }) // day 1: 2
    h.clock.advance(DAY_MS)
    await h.get('/console/billing/keys', { key: acme.key }) // day 2: 1
    await h.get('/console/billing/keys', { key: null }) // refused: not counted
    await h.get('/console/billing/keys') // the admin's, not acme's

    const res = await h.get('/console/billing/usage/acme', { key: acme.key, query: { days: 3 } }) // day 2: 2
    expect(res.body.daily_usage).toEqual([
      { date: '2026-01-14', request_count: 0, dids_created: 0, skills_registered: 0 },
      { date: '2026-01-15', request_count: 2, dids_created: 0, skills_registered: 0 },
      { date: '2026-01-16', request_count: 2, dids_created: 0, skills_registered: 0 },
    ])
    expect(res.body.totals).toEqual({ total_requests: 4, total_dids_created: 0, total_skills_registered: 0 })
  })

  it('accepts 1 and 365 days', async () => {
    await h.createOrg('acme')
    expect(
      (await h.get('/console/billing/usage/acme', { query: { days: 1 } })).body.daily_usage,
    ).toHaveLength(1)
    expect(
      (await h.get('/console/billing/usage/acme', { query: { days: 365 } })).body.daily_usage,
    ).toHaveLength(365)
  })

  it.each(['0', '366', '1.5', 'abc', '-3'])('answers 400 naming days for days=%s', async (days) => {
    await h.createOrg('acme')
    const res = await h.get('/console/billing/usage/acme', { query: { days } })
    expect(res.status).toBe(400)
    expect(res.body.errors[0].path).toBe('days')
  })

  it('refuses a member key reading another organization (403), named or not', async () => {
    const acme = await h.createOrg('acme')
    await h.createOrg('globex')
    expect((await h.get('/console/billing/usage/globex', { key: acme.key })).status).toBe(403)
    expect((await h.get('/console/billing/usage/nobody', { key: acme.key })).status).toBe(403)
  })

  it('answers zeros on the free tier for an organization nothing has named yet (README.md, "Billing endpoints")', async () => {
    const res = await h.get('/console/billing/usage/nobody', { query: { days: 3 } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      org_id: 'nobody',
      tier: 'free',
      limits: TIER_LIMITS.free,
      trial_ends_at: null,
      totals: { total_requests: 0, total_dids_created: 0, total_skills_registered: 0 },
    })
    expect(res.body.daily_usage).toHaveLength(3)
    expect(res.body.daily_usage.every((d: { request_count: number }) => d.request_count === 0)).toBe(true)
  })
})
