import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DAY_MS } from '../../../server/platform/clock.js'
import { ManualClock } from '../../support/clock.js'
import {
  activeSubscriptionCached,
  InMemoryPaymentAnswerCache,
} from '../../../server/platform/caches/payment-answers.js'
import { StripePaymentProvider } from '../../../server/platform/payments/stripe-provider.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { StripeApiServer } from '../../support/stripe-api-server.js'
import {
  customerObject,
  eventObject,
  PRICE_ENTERPRISE,
  PRICES,
  STRIPE_SECRET_KEY,
  signedHeader,
  stripeId,
  subscriptionObject,
  WEBHOOK_SECRET,
} from '../../support/stripe-fixtures.js'

let api: StripeApiServer
let clock: ManualClock
let stripe: StripePaymentProvider

beforeEach(async () => {
  api = await new StripeApiServer().start()
  clock = new ManualClock()
  stripe = new StripePaymentProvider({
    secretKey: STRIPE_SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    prices: PRICES,
    apiBase: api.url,
    clock,
    timeoutMs: 2_000,
  })
})
afterEach(() => api.stop())

describe('StripePaymentProvider.activeSubscription (against a local Stripe API server)', () => {
  it('finds the subscription by metadata org_id with a subscriptions search', async () => {
    const sub = subscriptionObject({ orgId: 'acme', start: Math.floor(Date.UTC(2026, 0, 10) / 1000) })
    api.addSubscription(sub)
    api.addSubscription(subscriptionObject({ orgId: 'other', price: PRICE_ENTERPRISE }))
    expect(await stripe.activeSubscription('acme')).toEqual({
      tier: 'pro',
      status: 'active',
      payment_subscription_id: sub.id,
      payment_customer_id: sub.customer,
      payment_price_id: PRICES.pro,
      current_period_start: '2026-01-10',
      current_period_end: '2026-02-10',
      cancel_at_period_end: false,
    })
    expect(api.requests[0]).toMatchObject({
      path: '/v1/subscriptions/search',
      query: { query: "metadata['org_id']:'acme'" },
      authorization: `Bearer ${STRIPE_SECRET_KEY}`,
    })
  })

  it('finds it through the customer when only the customer carries org_id', async () => {
    const customer = stripeId('cus')
    api.addCustomer(customerObject(customer, 'acme'))
    const sub = subscriptionObject({ orgId: null, customer, status: 'trialing' })
    api.addSubscription(sub)
    expect(await stripe.activeSubscription('acme')).toMatchObject({
      tier: 'pro',
      status: 'trialing',
      payment_subscription_id: sub.id,
    })
    expect(api.requests.map((r) => r.path)).toEqual([
      '/v1/subscriptions/search',
      '/v1/customers/search',
      '/v1/subscriptions',
    ])
    expect(api.requests[2]!.query).toMatchObject({ customer, status: 'all' })
  })

  it('answers null when nothing grants a tier: ended, incomplete, or a price not sold here', async () => {
    api.addSubscription(subscriptionObject({ orgId: 'acme', status: 'canceled' }))
    api.addSubscription(subscriptionObject({ orgId: 'acme', status: 'incomplete' }))
    api.addSubscription(subscriptionObject({ orgId: 'acme', price: 'price_other' }))
    expect(await stripe.activeSubscription('acme')).toBeNull()
  })

  it('prefers the highest tier, and counts past_due (Stripe is still retrying the payment)', async () => {
    api.addSubscription(subscriptionObject({ orgId: 'acme' }))
    const enterprise = subscriptionObject({ orgId: 'acme', price: PRICE_ENTERPRISE, status: 'past_due' })
    api.addSubscription(enterprise)
    expect(await stripe.activeSubscription('acme')).toMatchObject({
      tier: 'enterprise',
      status: 'past_due',
      payment_subscription_id: enterprise.id,
    })
  })

  it('reuses an answer for a minute through the answer cache, and never caches a failure', async () => {
    const answers = new InMemoryPaymentAnswerCache(clock)
    const ask = () => activeSubscriptionCached(stripe, answers, 'acme')
    api.addSubscription(subscriptionObject({ orgId: 'acme' }))
    await ask()
    const calls = api.requests.length
    clock.advance(59_000)
    expect((await ask())?.tier).toBe('pro')
    expect(api.requests.length).toBe(calls)

    clock.advance(2_000)
    await api.stop()
    await expect(ask()).rejects.toThrow()
    await api.start()
    expect((await ask())?.tier).toBe('pro')
    expect(api.requests.length).toBeGreaterThan(calls)
  })

  it('is refused by Stripe with a wrong secret key (the key reaches the API as a bearer token)', async () => {
    const wrong = new StripePaymentProvider({
      secretKey: 'sk_test_wrong',
      webhookSecret: WEBHOOK_SECRET,
      prices: PRICES,
      apiBase: api.url,
    })
    await expect(wrong.activeSubscription('acme')).rejects.toThrow(/Invalid API Key/)
  })
})

describe('trial expiry with the stripe provider', () => {
  let h: Harness
  beforeEach(async () => {
    h = await createHarness({ clock, payments: stripe })
  })
  afterEach(() => h.close())

  const limitOf = async (key: string) =>
    (await h.get('/console/billing/usage/acme', { key })).headers.get('RateLimit-Limit')

  it('keeps Pro after the trial when Stripe reports an active subscription, and stores it', async () => {
    const { key } = await h.createOrg('acme', { trial: true })
    const sub = subscriptionObject({ orgId: 'acme' })
    api.addSubscription(sub)
    clock.advance(15 * DAY_MS)

    expect(await limitOf(key)).toBe('500')
    const got = await h.get('/console/billing/subscription/acme')
    expect(got.body).toMatchObject({
      tier: 'pro',
      status: 'active',
      subscription: { payment_subscription_id: sub.id },
    })
    expect(api.requests.some((r) => r.path === '/v1/subscriptions/search')).toBe(true)
    expect(h.loggedErrors).toEqual([])
  })

  it('downgrades to free when Stripe reports no active subscription', async () => {
    const { key } = await h.createOrg('acme', { trial: true })
    api.addSubscription(subscriptionObject({ orgId: 'acme', status: 'canceled' }))
    expect(await limitOf(key)).toBe('500') // trial: Pro limits
    clock.advance(15 * DAY_MS)
    expect(await limitOf(key)).toBe('60')
    expect((await h.get('/console/billing/subscription/acme')).body.tier).toBe('free')
  })

  it('keeps the stored subscription when the Stripe API is down, and asks again after the outage', async () => {
    const paying = await h.createOrg('acme', { trial: true })
    const missed = await h.createOrg('beta', { trial: true })
    // acme's subscription reached us by webhook during the trial; beta's webhook never arrived.
    const sub = subscriptionObject({ orgId: 'acme' })
    const payload = JSON.stringify(
      eventObject('customer.subscription.created', sub, Math.floor(clock.now() / 1000)),
    )
    const hook = await h.request('POST', '/console/billing/webhooks/stripe', {
      key: null,
      rawBody: payload,
      headers: { 'Stripe-Signature': signedHeader(payload, Math.floor(clock.now() / 1000)) },
    })
    expect(hook.body.outcome).toBe('applied')
    api.addSubscription(sub)
    api.addSubscription(subscriptionObject({ orgId: 'beta' }))

    await api.stop()
    clock.advance(15 * DAY_MS)
    expect(await limitOf(paying.key)).toBe('500')
    expect(
      (await h.get('/console/billing/usage/beta', { key: missed.key })).headers.get('RateLimit-Limit'),
    ).toBe('60')
    expect(h.loggedErrors.length).toBeGreaterThanOrEqual(2)

    // Stripe is back; the check is retried 60 s later and restores beta's Pro.
    await api.start()
    clock.advance(61_000)
    expect(
      (await h.get('/console/billing/usage/beta', { key: missed.key })).headers.get('RateLimit-Limit'),
    ).toBe('500')
    expect(await limitOf(paying.key)).toBe('500')
  })
})
