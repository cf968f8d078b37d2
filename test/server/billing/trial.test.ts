import { afterEach, describe, expect, it } from 'vitest'
import { TIER_LIMITS } from '../../../src/contract/limits.js'
import { DAY_MS } from '../../../server/platform/clock.js'
import { LocalPaymentProvider } from '../../../server/platform/payments/local-provider.js'
import type { PaymentProvider, ProviderSubscription } from '../../../server/platform/payments/provider.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
afterEach(() => h.close())

const TRIAL = 14 * DAY_MS

describe('the 14-day trial', () => {
  it('gives Pro limits while active, and the free tier once it ends without a subscription', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { trial: true })
    const during = await h.get('/console/billing/subscription/acme', { key: acme.key })
    expect(during.headers.get('ratelimit-limit')).toBe('500')
    expect(during.body).toMatchObject({ tier: 'free', limits: TIER_LIMITS.pro })

    h.clock.advance(TRIAL - 1)
    expect((await h.get('/console/billing/keys', { key: acme.key })).headers.get('ratelimit-limit')).toBe(
      '500',
    )

    h.clock.advance(1)
    const after = await h.get('/console/billing/subscription/acme', { key: acme.key })
    expect(after.headers.get('ratelimit-limit')).toBe('60')
    expect(after.body).toMatchObject({ tier: 'free', limits: TIER_LIMITS.free })
    // The record keeps when the trial ended.
    expect(after.body.trial_ends_at).toBe(new Date(Date.UTC(2026, 0, 29, 12)).toISOString())
    const keys = await h.get('/console/billing/keys', { key: acme.key })
    expect(keys.body.keys[0].tier).toBe('free')
  })

  it('keeps the subscribed tier when the organization has an active subscription at expiry', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { trial: true })
    await h.post('/console/billing/subscription', {
      org_id: 'acme',
      tier: 'pro',
      payment_subscription_id: 'sub_1',
    })
    h.clock.advance(TRIAL + DAY_MS)
    const res = await h.get('/console/billing/subscription/acme', { key: acme.key })
    expect(res.body).toMatchObject({ tier: 'pro', limits: TIER_LIMITS.pro })
    expect(res.headers.get('ratelimit-limit')).toBe('500')
  })

  it('asks the payment provider once when the trial has ended, and stores what it reports', async () => {
    const reported: ProviderSubscription = {
      tier: 'enterprise',
      status: 'active',
      payment_subscription_id: 'sub_remote',
      payment_customer_id: 'cus_remote',
      payment_price_id: 'price_ent',
      current_period_start: '2026-01-20',
      current_period_end: '2026-02-20',
      cancel_at_period_end: false,
    }
    // A provider that is not `local` and knows of a subscription the local database never heard of.
    const calls: string[] = []
    const remote: PaymentProvider = {
      name: 'remote',
      webhook: null,
      async activeSubscription(orgId) {
        calls.push(orgId)
        return reported
      },
    }
    h = await createHarness({ payments: remote })
    const acme = await h.createOrg('acme', { trial: true })
    await h.get('/console/billing/keys', { key: acme.key })
    expect(calls).toEqual([]) // not while the trial runs

    h.clock.advance(TRIAL)
    const first = await h.get('/console/billing/subscription/acme', { key: acme.key })
    await h.get('/console/billing/subscription/acme', { key: acme.key })
    expect(calls).toEqual(['acme'])
    expect(first.body.tier).toBe('enterprise')
    expect(first.body.subscription).toMatchObject({
      payment_subscription_id: 'sub_remote',
      current_period_end: '2026-02-20',
    })
  })

  it('keeps the stored state when the provider is down, and asks again later', async () => {
    let up = false
    let calls = 0
    const flaky: PaymentProvider = {
      name: 'remote',
      webhook: null,
      async activeSubscription() {
        calls++
        if (!up) throw new Error('connect ECONNREFUSED')
        return null
      },
    }
    h = await createHarness({ payments: flaky })
    const acme = await h.createOrg('acme', { trial: true })
    await h.post('/console/billing/subscription', { org_id: 'acme', tier: 'pro' })
    h.clock.advance(TRIAL)
    const during = await h.get('/console/billing/subscription/acme', { key: acme.key })
    expect(during.status).toBe(200)
    expect(during.body.tier).toBe('pro') // the stored subscription still counts
    await h.get('/console/billing/keys', { key: acme.key })
    expect(calls).toBe(1) // not on every request during an outage
    expect(h.loggedErrors).toHaveLength(1)

    up = true
    h.clock.advance(61_000)
    await h.get('/console/billing/keys', { key: acme.key })
    expect(calls).toBe(2)
  })

  it('the local provider reads the subscription recorded through the API', async () => {
    h = await createHarness()
    const provider = new LocalPaymentProvider(h.ctx.db)
    await h.createOrg('acme')
    expect(await provider.activeSubscription('acme')).toBeNull()
    await h.post('/console/billing/subscription', {
      org_id: 'acme',
      tier: 'pro',
      payment_customer_id: 'cus_1',
    })
    expect(await provider.activeSubscription('acme')).toMatchObject({
      tier: 'pro',
      payment_customer_id: 'cus_1',
    })
  })
})
