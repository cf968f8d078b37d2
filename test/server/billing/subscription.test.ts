import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  subscriptionResponseSchema,
  updateSubscriptionResponseSchema,
} from '../../../src/contract/billing.js'
import { TIER_LIMITS } from '../../../src/contract/limits.js'
import { DAY_MS } from '../../../server/platform/clock.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('GET /console/billing/subscription/{org_id}', () => {
  it('returns free-tier defaults for an organization without a subscription', async () => {
    const acme = await h.createOrg('acme')
    const res = await h.get('/console/billing/subscription/acme', { key: acme.key })
    expect(res.status).toBe(200)
    expect(subscriptionResponseSchema.parse(res.body)).toEqual(res.body)
    expect(res.body).toEqual({
      org_id: 'acme',
      tier: 'free',
      status: 'active',
      limits: TIER_LIMITS.free,
      trial_ends_at: null,
      subscription: null,
    })
  })

  it('reports the limits in force during a trial (Pro) while tier still reads free', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const res = await h.get('/console/billing/subscription/acme', { key: acme.key })
    expect(res.body.tier).toBe('free')
    expect(res.body.limits).toEqual(TIER_LIMITS.pro)
    expect(res.body.trial_ends_at).toBe(new Date(h.clock.now() + 14 * DAY_MS).toISOString())
  })

  it('returns the payment-provider details after an update', async () => {
    await h.createOrg('acme')
    await h.post('/console/billing/subscription', {
      org_id: 'acme',
      tier: 'pro',
      payment_subscription_id: 'sub_123',
      payment_customer_id: 'cus_456',
      payment_price_id: 'price_789',
    })
    const res = await h.get('/console/billing/subscription/acme')
    expect(res.body).toMatchObject({ org_id: 'acme', tier: 'pro', status: 'active', limits: TIER_LIMITS.pro })
    expect(res.body.subscription).toEqual({
      payment_subscription_id: 'sub_123',
      payment_customer_id: 'cus_456',
      payment_price_id: 'price_789',
      current_period_start: '2026-01-15',
      current_period_end: '2026-02-15',
      cancel_at_period_end: false,
    })
  })

  it('refuses a member key reading another organization (403), named or not', async () => {
    const acme = await h.createOrg('acme')
    await h.createOrg('globex')
    expect((await h.get('/console/billing/subscription/globex', { key: acme.key })).status).toBe(403)
    expect((await h.get('/console/billing/subscription/nobody', { key: acme.key })).status).toBe(403)
  })

  it('answers the free-tier defaults for an organization nothing has named yet (README.md, "Billing endpoints"), creating nothing', async () => {
    const res = await h.get('/console/billing/subscription/nobody')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      org_id: 'nobody',
      tier: 'free',
      status: 'active',
      limits: TIER_LIMITS.free,
      trial_ends_at: null,
      subscription: null,
    })
    expect(
      await h.ctx.db.selectFrom('organizations').selectAll().where('org_id', '=', 'nobody').execute(),
    ).toEqual([])
  })
})

describe('POST /console/billing/subscription', () => {
  it('moves the organization to the given tier and returns the new limits', async () => {
    const acme = await h.createOrg('acme')
    const res = await h.post('/console/billing/subscription', { org_id: 'acme', tier: 'enterprise' })
    expect(res.status).toBe(200)
    expect(updateSubscriptionResponseSchema.parse(res.body)).toEqual(res.body)
    expect(res.body).toEqual({
      status: 'updated',
      org_id: 'acme',
      tier: 'enterprise',
      limits: TIER_LIMITS.enterprise,
    })
    // The new limits are enforced on the very next request.
    const next = await h.get('/console/billing/keys', { key: acme.key })
    expect(next.headers.get('ratelimit-limit')).toBe('5000')
  })

  it('can move an organization back down to free', async () => {
    const acme = await h.createOrg('acme', { tier: 'pro' })
    await h.post('/console/billing/subscription', { org_id: 'acme', tier: 'free' })
    const res = await h.get('/console/billing/subscription/acme', { key: acme.key })
    expect(res.body.tier).toBe('free')
    expect(res.body.limits).toEqual(TIER_LIMITS.free)
  })

  it('is admin only: a member key gets 403 even for its own organization, and nothing changes', async () => {
    const acme = await h.createOrg('acme')
    const res = await h.post(
      '/console/billing/subscription',
      { org_id: 'acme', tier: 'enterprise' },
      { key: acme.key },
    )
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('forbidden')
    expect((await h.get('/console/billing/subscription/acme')).body.tier).toBe('free')
  })

  it.each([
    ['an unknown tier', { org_id: 'acme', tier: 'gold' }, 'tier'],
    ['a missing org_id', { tier: 'pro' }, 'org_id'],
    ['a numeric payment id', { org_id: 'acme', tier: 'pro', payment_customer_id: 7 }, 'payment_customer_id'],
  ])('answers 400 naming the field for %s', async (_, body, field) => {
    await h.createOrg('acme')
    const res = await h.post('/console/billing/subscription', body)
    expect(res.status).toBe(400)
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field)
  })

  it('creates an organization nothing has named yet and applies the tier; its first key then has it', async () => {
    const res = await h.post('/console/billing/subscription', {
      org_id: 'newco',
      tier: 'pro',
      payment_subscription_id: 'sub_paid_first',
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'updated', org_id: 'newco', tier: 'pro', limits: TIER_LIMITS.pro })
    const got = await h.get('/console/billing/subscription/newco')
    expect(got.body).toMatchObject({ tier: 'pro', limits: TIER_LIMITS.pro })
    expect(got.body.subscription.payment_subscription_id).toBe('sub_paid_first')

    const key = await h.post('/console/billing/keys', { org_id: 'newco', name: 'first' })
    expect(key.status).toBe(201)
    expect(key.body.tier).toBe('pro')
    const first = await h.get('/console/billing/keys', { key: key.body.api_key })
    expect(first.headers.get('ratelimit-limit')).toBe('500')
    expect(first.body.keys[0].tier).toBe('pro')
  })

  it('never bills the operator organization (422), and leaves its enterprise tier alone', async () => {
    const res = await h.post('/console/billing/subscription', { org_id: 'admin', tier: 'free' })
    expect(res.status).toBe(422)
    expect(res.body.code).toBe('unprocessable')
    const admin = await h.get('/console/billing/subscription/admin')
    expect(admin.body).toMatchObject({ tier: 'enterprise', limits: TIER_LIMITS.enterprise })
  })
})
