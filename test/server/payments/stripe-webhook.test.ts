import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../../support/clock.js'
import { StripePaymentProvider } from '../../../server/platform/payments/stripe-provider.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { StripeApiServer } from '../../support/stripe-api-server.js'
import {
  checkoutSessionObject,
  customerObject,
  eventObject,
  invoiceObject,
  PRICE_ENTERPRISE,
  PRICE_PRO,
  PRICES,
  STRIPE_SECRET_KEY,
  signedHeader,
  stripeId,
  subscriptionObject,
  WEBHOOK_SECRET,
} from '../../support/stripe-fixtures.js'

const PATH = '/console/billing/webhooks/stripe'

let h: Harness
let api: StripeApiServer
let acmeKey: string

beforeEach(async () => {
  api = await new StripeApiServer().start()
  const clock = new ManualClock()
  const payments = new StripePaymentProvider({
    secretKey: STRIPE_SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    prices: PRICES,
    apiBase: api.url,
    clock,
    timeoutMs: 2_000,
  })
  h = await createHarness({ clock, payments })
  acmeKey = (await h.createOrg('acme')).key
})
afterEach(async () => {
  await h.close()
  await api.stop()
})

const nowSeconds = () => Math.floor(h.clock.now() / 1000)

/** Posts an event the way Stripe does: raw JSON body, signed at `timestamp` with `secret`. */
async function deliver(
  event: Record<string, any>,
  options: {
    timestamp?: number
    secret?: string
    body?: string
    header?: string | null
    contentType?: string
  } = {},
) {
  const payload = JSON.stringify(event)
  const header =
    options.header === undefined
      ? signedHeader(payload, options.timestamp ?? nowSeconds(), options.secret)
      : options.header
  return h.request('POST', PATH, {
    key: null,
    rawBody: options.body ?? payload,
    headers: {
      'Content-Type': options.contentType ?? 'application/json; charset=utf-8',
      ...(header === null ? {} : { 'Stripe-Signature': header }),
    },
  })
}

const storedSubscription = (orgId = 'acme') =>
  h.ctx.db.selectFrom('subscriptions').selectAll().where('org_id', '=', orgId).executeTakeFirst()
const processedEvents = () => h.ctx.db.selectFrom('processed_events').selectAll().execute()
const rateLimitOf = async (key: string) =>
  (await h.get('/console/billing/usage/acme', { key })).headers.get('RateLimit-Limit')

describe('POST /console/billing/webhooks/stripe: signed subscription events', () => {
  it('moves an organization to Pro on customer.subscription.created and GET subscription shows it', async () => {
    const sub = subscriptionObject({ orgId: 'acme', start: nowSeconds() })
    const res = await deliver(eventObject('customer.subscription.created', sub, nowSeconds()))
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ received: true, outcome: 'applied', org_id: 'acme', detail: null })

    const got = await h.get('/console/billing/subscription/acme')
    expect(got.body).toMatchObject({
      org_id: 'acme',
      tier: 'pro',
      status: 'active',
      limits: { requests_per_minute: 500, requests_per_day: 50_000 },
      subscription: {
        payment_subscription_id: sub.id,
        payment_customer_id: sub.customer,
        payment_price_id: PRICES.pro,
        current_period_start: '2026-01-15',
        current_period_end: '2026-02-15',
        cancel_at_period_end: false,
      },
    })
    expect((await storedSubscription())?.provider).toBe('stripe')
    expect(h.loggedErrors).toEqual([])
  })

  it('changes the limits enforced on the very next request (RateLimit-Limit 60 → 500 → 60)', async () => {
    expect(await rateLimitOf(acmeKey)).toBe('60')
    const sub = subscriptionObject({ orgId: 'acme' })
    expect((await deliver(eventObject('customer.subscription.created', sub, nowSeconds()))).status).toBe(200)
    expect(await rateLimitOf(acmeKey)).toBe('500')

    h.clock.advance(60_000)
    const deleted = { ...sub, status: 'canceled' }
    const res = await deliver(eventObject('customer.subscription.deleted', deleted, nowSeconds()))
    expect(res.body.outcome).toBe('applied')
    expect(await rateLimitOf(acmeKey)).toBe('60')
    const got = await h.get('/console/billing/subscription/acme')
    expect(got.body).toMatchObject({ tier: 'free', status: 'canceled' })
    expect(got.body.subscription.payment_subscription_id).toBe(sub.id)
  })

  it('keeps Pro while past_due, and records cancel_at_period_end', async () => {
    const sub = subscriptionObject({ orgId: 'acme' })
    await deliver(eventObject('customer.subscription.created', sub, nowSeconds()))
    h.clock.advance(1_000)
    const pastDue = { ...sub, status: 'past_due', cancel_at_period_end: true }
    expect(
      (await deliver(eventObject('customer.subscription.updated', pastDue, nowSeconds()))).body.outcome,
    ).toBe('applied')
    const got = await h.get('/console/billing/subscription/acme')
    expect(got.body).toMatchObject({
      tier: 'pro',
      status: 'past_due',
      subscription: { cancel_at_period_end: true },
    })
    expect(await rateLimitOf(acmeKey)).toBe('500')
  })
})

describe('signature verification', () => {
  const refusals: Array<
    [
      string,
      (payload: string) => { body?: string; secret?: string; timestamp?: number; header?: string | null },
    ]
  > = [
    ['a tampered body', (payload) => ({ body: payload.replace(PRICES.pro, PRICE_ENTERPRISE) })],
    ['a wrong secret', () => ({ secret: 'whsec_someoneelsessecret000000000000' })],
    ['a timestamp older than 300 s', () => ({ timestamp: nowSeconds() - 301 })],
    ['no Stripe-Signature header', () => ({ header: null })],
    ['a malformed Stripe-Signature header', () => ({ header: 'v1=deadbeef' })],
  ]

  it.each(refusals)('refuses %s with 400 and stores nothing', async (_, tamper) => {
    const event = eventObject(
      'customer.subscription.created',
      subscriptionObject({ orgId: 'acme' }),
      nowSeconds(),
    )
    const res = await deliver(event, tamper(JSON.stringify(event)))
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toContain('application/problem+json')
    expect(res.body.code).toBe('invalid_request')
    expect(res.text).not.toContain(WEBHOOK_SECRET)
    expect(await storedSubscription()).toBeUndefined()
    expect(await processedEvents()).toEqual([])
    expect(await rateLimitOf(acmeKey)).toBe('60')

    // Nothing of the refused delivery stuck: the genuine delivery of the same event still applies.
    expect((await deliver(event)).body.outcome).toBe('applied')
  })

  it('names a stale timestamp, and accepts one exactly 300 s old (measured on the app clock)', async () => {
    const event = eventObject(
      'customer.subscription.created',
      subscriptionObject({ orgId: 'acme' }),
      nowSeconds(),
    )
    const stale = await deliver(event, { timestamp: nowSeconds() - 301 })
    expect(stale.body.detail).toMatch(/tolerance/)
    expect((await deliver(event, { timestamp: nowSeconds() - 300 })).status).toBe(200)
  })

  it('refuses a signed body that is not a Stripe event with 400', async () => {
    const notJson = 'not json at all'
    const res1 = await deliver({}, { body: notJson, header: signedHeader(notJson, nowSeconds()) })
    expect(res1.status).toBe(400)
    const noType = JSON.stringify({ id: 'evt_1', object: 'event' })
    const res2 = await deliver({}, { body: noType, header: signedHeader(noType, nowSeconds()) })
    expect(res2.status).toBe(400)
    expect(res2.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['type']))
    // A handled type whose object is not a subscription.
    const bad = eventObject(
      'customer.subscription.updated',
      { id: 'sub_x', object: 'subscription' },
      nowSeconds(),
    )
    const res3 = await deliver(bad)
    expect(res3.status).toBe(400)
    expect(await processedEvents()).toEqual([])
  })

  it('needs no API key, and ignores one that is sent', async () => {
    const event = eventObject(
      'customer.subscription.created',
      subscriptionObject({ orgId: 'acme' }),
      nowSeconds(),
    )
    const payload = JSON.stringify(event)
    const res = await h.request('POST', PATH, {
      key: 'rwa_live_notavalidkeyatall',
      rawBody: payload,
      headers: { 'Stripe-Signature': signedHeader(payload, nowSeconds()) },
    })
    expect(res.status).toBe(200)
  })
})

describe('idempotency and order', () => {
  it('acknowledges a redelivered event id and skips it', async () => {
    const sub = subscriptionObject({ orgId: 'acme' })
    const created = eventObject('customer.subscription.created', sub, nowSeconds())
    expect((await deliver(created)).body.outcome).toBe('applied')
    h.clock.advance(5_000)
    const updated = eventObject(
      'customer.subscription.updated',
      { ...sub, items: subscriptionObject({ price: PRICE_ENTERPRISE }).items },
      nowSeconds(),
    )
    expect((await deliver(updated)).body.outcome).toBe('applied')

    // Stripe retries the first event (and the second) later: both are acknowledged, nothing changes.
    h.clock.advance(3_600_000)
    const again = await deliver(created)
    expect(again.status).toBe(200)
    expect(again.body.outcome).toBe('duplicate')
    expect((await deliver(updated)).body.outcome).toBe('duplicate')

    expect((await h.get('/console/billing/subscription/acme')).body.tier).toBe('enterprise')
    expect((await processedEvents()).map((e) => e.event_id).sort()).toEqual([created.id, updated.id].sort())
    expect(api.requests).toEqual([])
  })

  it('applies an event delivered twice at the same time exactly once', async () => {
    const event = eventObject(
      'customer.subscription.created',
      subscriptionObject({ orgId: 'acme' }),
      nowSeconds(),
    )
    const outcomes = (await Promise.all([deliver(event), deliver(event), deliver(event)])).map(
      (r) => r.body.outcome,
    )
    expect(outcomes.sort()).toEqual(['applied', 'duplicate', 'duplicate'])
    expect(await processedEvents()).toHaveLength(1)
  })

  it('leaves the updated state when updated arrives before created', async () => {
    const start = nowSeconds()
    const sub = subscriptionObject({ orgId: 'acme', start, status: 'incomplete' })
    const created = eventObject('customer.subscription.created', sub, start)
    const updated = eventObject('customer.subscription.updated', { ...sub, status: 'active' }, start + 4)

    expect((await deliver(updated)).body.outcome).toBe('applied')
    const late = await deliver(created)
    expect(late.status).toBe(200)
    expect(late.body).toMatchObject({ outcome: 'skipped', org_id: 'acme' })
    expect(late.body.detail).toMatch(/older/)

    const got = await h.get('/console/billing/subscription/acme')
    expect(got.body).toMatchObject({ tier: 'pro', status: 'active' })
    expect(await rateLimitOf(acmeKey)).toBe('500')
    // The late event is recorded as processed, so its own redelivery is a duplicate.
    expect((await deliver(created)).body.outcome).toBe('duplicate')
  })

  it('orders created and updated within the same second, and never revives a deleted subscription', async () => {
    const t = nowSeconds()
    const sub = subscriptionObject({ orgId: 'acme', start: t, status: 'incomplete' })
    await deliver(eventObject('customer.subscription.updated', { ...sub, status: 'active' }, t))
    expect((await deliver(eventObject('customer.subscription.created', sub, t))).body.outcome).toBe('skipped')
    expect((await h.get('/console/billing/subscription/acme')).body.status).toBe('active')

    await deliver(eventObject('customer.subscription.deleted', { ...sub, status: 'canceled' }, t + 10))
    // An update delivered late with a timestamp in the same second as the deletion.
    const revived = await deliver(
      eventObject('customer.subscription.updated', { ...sub, status: 'active' }, t + 10),
    )
    expect(revived.body.outcome).toBe('skipped')
    expect((await h.get('/console/billing/subscription/acme')).body).toMatchObject({
      tier: 'free',
      status: 'canceled',
    })
  })

  it('does not let the end of an older, other subscription downgrade the current one', async () => {
    const t = nowSeconds()
    const old = subscriptionObject({ orgId: 'acme', start: t })
    const current = subscriptionObject({ orgId: 'acme', start: t, price: PRICE_ENTERPRISE })
    await deliver(eventObject('customer.subscription.created', current, t + 5))
    const res = await deliver(
      eventObject('customer.subscription.deleted', { ...old, status: 'canceled' }, t + 10),
    )
    expect(res.body.outcome).toBe('skipped')
    expect((await h.get('/console/billing/subscription/acme')).body.tier).toBe('enterprise')
  })

  it('another subscription naming the organization cannot replace its higher one, nor end it (sub_other for shop)', async () => {
    await h.createOrg('shop')
    const main = subscriptionObject({ orgId: 'shop', price: PRICE_ENTERPRISE })
    expect(
      (await deliver(eventObject('customer.subscription.created', main, nowSeconds() - 60))).body.outcome,
    ).toBe('applied')
    // A signed event of another subscription whose metadata names shop: a cheaper plan bought by anyone.
    const other = subscriptionObject({ orgId: 'shop', price: PRICE_PRO })
    const created = await deliver(eventObject('customer.subscription.created', other, nowSeconds()))
    expect(created.body).toMatchObject({ outcome: 'skipped', org_id: 'shop' })
    expect(created.body.reason ?? created.body.detail ?? JSON.stringify(created.body)).toMatch(/higher tier/)
    const deleted = await deliver(
      eventObject('customer.subscription.deleted', { ...other, status: 'canceled' }, nowSeconds() + 1),
    )
    expect(deleted.body.outcome).toBe('skipped')
    const now = (await h.get('/console/billing/subscription/shop')).body
    expect(now).toMatchObject({ tier: 'enterprise' })
    // Its own subscription still changes it: the stored mapping wins, whatever org the event names.
    const moved = await deliver(
      eventObject(
        'customer.subscription.updated',
        { ...main, metadata: { org_id: 'acme' }, items: other.items },
        nowSeconds() + 2,
      ),
    )
    expect(moved.body).toMatchObject({ outcome: 'applied', org_id: 'shop' })
    expect((await h.get('/console/billing/subscription/shop')).body.tier).toBe('pro')
    expect((await h.get('/console/billing/subscription/acme')).body.tier).toBe('free')
  })

  it('a Stripe event replaces a subscription the admin set by hand', async () => {
    await h.post('/console/billing/subscription', { org_id: 'acme', tier: 'enterprise' })
    const sub = subscriptionObject({ orgId: 'acme' })
    expect(
      (await deliver(eventObject('customer.subscription.updated', sub, nowSeconds() - 3600))).body.outcome,
    ).toBe('applied')
    expect((await h.get('/console/billing/subscription/acme')).body.tier).toBe('pro')
  })
})

describe('events that need the Stripe API (a local server speaking its JSON)', () => {
  it('checkout.session.completed: links the org by client_reference_id and fetches the subscription', async () => {
    const customer = stripeId('cus')
    const sub = subscriptionObject({ orgId: null, customer })
    api.addSubscription(sub)
    const session = checkoutSessionObject(sub.id, customer, 'acme')
    const res = await deliver(eventObject('checkout.session.completed', session, nowSeconds()))
    expect(res.body).toMatchObject({ outcome: 'applied', org_id: 'acme' })
    expect(api.requests).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: `/v1/subscriptions/${sub.id}`,
        authorization: `Bearer ${STRIPE_SECRET_KEY}`,
      }),
    ])
    expect((await h.get('/console/billing/subscription/acme')).body).toMatchObject({
      tier: 'pro',
      subscription: { payment_subscription_id: sub.id, payment_customer_id: customer },
    })

    // Later events of that subscription carry no org_id: the stored link finds the organization.
    h.clock.advance(60_000)
    const canceled = { ...sub, status: 'canceled' }
    expect(
      (await deliver(eventObject('customer.subscription.deleted', canceled, nowSeconds()))).body,
    ).toMatchObject({
      outcome: 'applied',
      org_id: 'acme',
    })
    expect(api.requests).toHaveLength(1)
  })

  it('invoice.payment_failed: fetches the subscription and stores its past_due status (Pro kept)', async () => {
    const sub = subscriptionObject({ orgId: 'acme', status: 'past_due' })
    api.addSubscription(sub)
    const res = await deliver(
      eventObject('invoice.payment_failed', invoiceObject(sub.id, sub.customer, 'open'), nowSeconds()),
    )
    expect(res.body.outcome).toBe('applied')
    expect((await h.get('/console/billing/subscription/acme')).body).toMatchObject({
      tier: 'pro',
      status: 'past_due',
    })

    h.clock.advance(60_000)
    api.addSubscription({ ...sub, status: 'active' })
    const paid = await deliver(
      eventObject('invoice.paid', invoiceObject(sub.id, sub.customer, 'paid'), nowSeconds()),
    )
    expect(paid.body.outcome).toBe('applied')
    expect((await h.get('/console/billing/subscription/acme')).body.status).toBe('active')
  })

  it('links the org through the customer metadata when the subscription has none', async () => {
    const customer = stripeId('cus')
    api.addCustomer(customerObject(customer, 'acme'))
    const sub = subscriptionObject({ orgId: null, customer })
    const res = await deliver(eventObject('customer.subscription.created', sub, nowSeconds()))
    expect(res.body).toMatchObject({ outcome: 'applied', org_id: 'acme' })
    expect(api.requests.map((r) => r.path)).toEqual([`/v1/customers/${customer}`])
  })

  it('answers 503 and stores nothing when Stripe cannot be reached, so Stripe redelivers', async () => {
    const sub = subscriptionObject({ orgId: 'acme' })
    api.addSubscription(sub)
    const event = eventObject('invoice.paid', invoiceObject(sub.id, sub.customer, 'paid'), nowSeconds())
    await api.stop()
    const res = await deliver(event)
    expect(res.status).toBe(503)
    expect(res.body).toMatchObject({ code: 'unavailable', status: 503, title: 'Service unavailable' })
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    expect(res.headers.get('Retry-After')).toBe('60')
    expect(await processedEvents()).toEqual([])
    expect(await storedSubscription()).toBeUndefined()
    expect(h.loggedErrors).toHaveLength(1)

    await api.start()
    expect((await deliver(event)).body.outcome).toBe('applied')
    expect((await h.get('/console/billing/subscription/acme')).body.tier).toBe('pro')
  })

  it('ignores an invoice whose subscription Stripe does not know (404), and a one-off invoice', async () => {
    const unknown = invoiceObject('sub_doesnotexist', 'cus_x', 'paid')
    expect((await deliver(eventObject('invoice.paid', unknown, nowSeconds()))).body.outcome).toBe('ignored')
    const oneOff = { ...invoiceObject('sub_x', 'cus_x', 'paid'), parent: null }
    expect((await deliver(eventObject('invoice.paid', oneOff, nowSeconds()))).body.outcome).toBe('ignored')
    expect(await storedSubscription()).toBeUndefined()
  })
})

describe('events that change nothing', () => {
  it('refuses a body not sent as JSON with 415 problem details, before the signature, and stores nothing', async () => {
    const sub = subscriptionObject({ orgId: 'acme' })
    const res = await deliver(eventObject('customer.subscription.created', sub, nowSeconds()), {
      contentType: 'text/plain',
    })
    expect(res.status).toBe(415)
    expect(res.body).toMatchObject({ code: 'unsupported_media_type', status: 415 })
    expect(await storedSubscription()).toBeUndefined()
    expect(await processedEvents()).toEqual([])
  })

  it('acknowledges an unknown event type with 200 and stores nothing', async () => {
    const res = await deliver(eventObject('charge.succeeded', { id: 'ch_1', object: 'charge' }, nowSeconds()))
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ outcome: 'ignored', org_id: null })
    expect(await processedEvents()).toEqual([])
  })

  it('acknowledges an event naming something that is not an organization id, logs it and stores nothing', async () => {
    const res = await deliver(
      eventObject(
        'customer.subscription.created',
        subscriptionObject({ orgId: 'not an org/../id' }),
        nowSeconds(),
      ),
    )
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      outcome: 'ignored',
      org_id: 'not an org/../id',
      detail: '"not an org/../id" is not an organization id',
    })
    expect(h.loggedErrors).toEqual([expect.stringContaining('is not an organization id')])
    expect(await h.ctx.db.selectFrom('subscriptions').selectAll().execute()).toHaveLength(1) // admin's
    expect(await processedEvents()).toEqual([])
  })

  it('ignores a price this service does not sell, and the operator organization', async () => {
    const foreign = subscriptionObject({ orgId: 'acme', price: 'price_somethingelse' })
    expect(
      (await deliver(eventObject('customer.subscription.created', foreign, nowSeconds()))).body.outcome,
    ).toBe('ignored')
    const admin = subscriptionObject({ orgId: 'admin' })
    expect(
      (
        await deliver(
          eventObject('customer.subscription.deleted', { ...admin, status: 'canceled' }, nowSeconds()),
        )
      ).body.outcome,
    ).toBe('ignored')
    expect(await storedSubscription()).toBeUndefined()
    expect((await storedSubscription('admin'))?.tier).toBe('enterprise')
  })
})

describe('paying before the first key (organizations are implicit: docs/payments.md)', () => {
  it('applies customer.subscription.created for an organization with no record; its first key sees Pro', async () => {
    const sub = subscriptionObject({ orgId: 'newco', start: nowSeconds() })
    const res = await deliver(eventObject('customer.subscription.created', sub, nowSeconds()))
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ outcome: 'applied', org_id: 'newco', detail: null })
    expect(h.loggedErrors).toEqual([])
    expect((await storedSubscription('newco'))?.tier).toBe('pro')

    // Before any key: the subscription reads Pro.
    const got = await h.get('/console/billing/subscription/newco')
    expect(got.status).toBe(200)
    expect(got.body).toMatchObject({ org_id: 'newco', tier: 'pro', status: 'active' })
    expect(got.body.subscription.payment_subscription_id).toBe(sub.id)

    // The first key is created afterwards and is on Pro from its first request.
    const key = await h.post('/console/billing/keys', { org_id: 'newco', name: 'first' })
    expect(key.status).toBe(201)
    expect(key.body.tier).toBe('pro')
    const first = await h.get('/console/billing/usage/newco', { key: key.body.api_key })
    expect(first.status).toBe(200)
    expect(first.headers.get('RateLimit-Limit')).toBe('500')
    expect(first.body).toMatchObject({ tier: 'pro', limits: { requests_per_minute: 500 } })
    // Governance is open to it without a trial.
    expect((await h.get('/console/rwa/jurisdictions', { key: key.body.api_key })).status).toBe(200)
  })

  it('a redelivery of that event is a duplicate, and a later cancellation applies to the new organization', async () => {
    const sub = subscriptionObject({ orgId: 'newco', start: nowSeconds() })
    const event = eventObject('customer.subscription.created', sub, nowSeconds())
    expect((await deliver(event)).body.outcome).toBe('applied')
    expect((await deliver(event)).body.outcome).toBe('duplicate')
    h.clock.advance(1_000)
    const deleted = eventObject('customer.subscription.deleted', { ...sub, status: 'canceled' }, nowSeconds())
    expect((await deliver(deleted)).body).toMatchObject({ outcome: 'applied', org_id: 'newco' })
    expect((await h.get('/console/billing/subscription/newco')).body).toMatchObject({
      tier: 'free',
      status: 'canceled',
    })
  })
})

describe('with the local payment provider', () => {
  it('answers 404: the Stripe webhook is disabled', async () => {
    const local = await createHarness()
    try {
      const payload = JSON.stringify(
        eventObject('customer.subscription.created', subscriptionObject(), nowSeconds()),
      )
      const res = await local.request('POST', PATH, {
        key: null,
        rawBody: payload,
        headers: { 'Stripe-Signature': signedHeader(payload, Math.floor(local.clock.now() / 1000)) },
      })
      expect(res.status).toBe(404)
      expect(res.body.detail).toMatch(/RWA_PAYMENT_PROVIDER/)
    } finally {
      await local.close()
    }
  })
})
