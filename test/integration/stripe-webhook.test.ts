import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StripeApiServer } from '../support/stripe-api-server.js'
import {
  checkoutSessionObject,
  eventObject,
  PRICE_ENTERPRISE,
  PRICE_PRO,
  STRIPE_SECRET_KEY,
  signedHeader,
  stripeId,
  subscriptionObject,
  WEBHOOK_SECRET,
} from '../support/stripe-fixtures.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'

let server: ServerProcess | undefined
let api: StripeApiServer

beforeEach(async () => {
  api = await new StripeApiServer().start()
})
afterEach(async () => {
  await server?.cleanup()
  server = undefined
  await api.stop()
})

const stripeEnv = () => ({
  RWA_PAYMENT_PROVIDER: 'stripe',
  RWA_STRIPE_SECRET_KEY: STRIPE_SECRET_KEY,
  RWA_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  RWA_STRIPE_PRICE_PRO: PRICE_PRO,
  RWA_STRIPE_PRICE_ENTERPRISE: PRICE_ENTERPRISE,
  RWA_STRIPE_API_BASE: api.url,
})

const call = (path: string, init: { method?: string; key?: string; body?: unknown } = {}) =>
  fetch(new URL(path, server!.url), {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(init.key ? { 'x-api-key': init.key } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })

/** Posts a Stripe event to the real server, signed now (the server checks the age on its system clock). */
const deliver = (event: Record<string, any>, secret = WEBHOOK_SECRET) => {
  const payload = JSON.stringify(event)
  return fetch(new URL('/console/billing/webhooks/stripe', server!.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'stripe-signature': signedHeader(payload, Math.floor(Date.now() / 1000), secret),
    },
    body: payload,
  })
}

describe('RWA_PAYMENT_PROVIDER=stripe over the real server process', () => {
  it('a signed customer.subscription.created moves an organization to Pro and its next request gets Pro limits', async () => {
    server = await startServerProcess({ env: stripeEnv() })
    const created = await call('/console/billing/keys', {
      method: 'POST',
      key: server.adminKey,
      body: { org_id: 'acme', name: 'ci' },
    })
    const acmeKey = ((await created.json()) as { api_key: string }).api_key
    const before = await call('/console/billing/usage/acme', { key: acmeKey })
    expect(before.headers.get('ratelimit-limit')).toBe('60')

    // A wrong signature is refused and changes nothing.
    const sub = subscriptionObject({ orgId: 'acme', start: Math.floor(Date.now() / 1000) })
    const event = eventObject('customer.subscription.created', sub, Math.floor(Date.now() / 1000))
    const forged = await deliver(event, 'whsec_notthesecret000000000000000')
    expect(forged.status).toBe(400)
    expect((await call('/console/billing/usage/acme', { key: acmeKey })).headers.get('ratelimit-limit')).toBe(
      '60',
    )

    const res = await deliver(event)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      received: true,
      event_id: event.id,
      outcome: 'applied',
      org_id: 'acme',
    })

    const after = await call('/console/billing/usage/acme', { key: acmeKey })
    expect(after.headers.get('ratelimit-limit')).toBe('500')
    const subscription = (await (
      await call('/console/billing/subscription/acme', { key: acmeKey })
    ).json()) as any
    expect(subscription).toMatchObject({
      tier: 'pro',
      status: 'active',
      limits: { requests_per_minute: 500 },
      subscription: {
        payment_subscription_id: sub.id,
        payment_customer_id: sub.customer,
        payment_price_id: PRICE_PRO,
      },
    })

    // Redelivered by Stripe: acknowledged, nothing changes.
    expect(await (await deliver(event)).json()).toMatchObject({ outcome: 'duplicate' })
    // Neither secret ever reaches the log.
    expect(server.stderr()).not.toContain(WEBHOOK_SECRET)
    expect(server.stderr()).not.toContain(STRIPE_SECRET_KEY)
  })

  it('a customer who pays before creating a key is on Pro from its first key (organizations are implicit: docs/payments.md)', async () => {
    server = await startServerProcess({ env: stripeEnv() })
    const now = Math.floor(Date.now() / 1000)
    const sub = subscriptionObject({ orgId: 'paidfirst', start: now })
    const res = await deliver(eventObject('customer.subscription.created', sub, now))
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ outcome: 'applied', org_id: 'paidfirst' })

    const created = await call('/console/billing/keys', {
      method: 'POST',
      key: server.adminKey,
      body: { org_id: 'paidfirst', name: 'first' },
    })
    expect(created.status).toBe(201)
    const first = (await created.json()) as { api_key: string; tier: string }
    expect(first.tier).toBe('pro')
    const usage = await call('/console/billing/usage/paidfirst', { key: first.api_key })
    expect(usage.status).toBe(200)
    expect(usage.headers.get('ratelimit-limit')).toBe('500')
    expect(await usage.json()).toMatchObject({ tier: 'pro' })
  })

  it('calls the Stripe API at RWA_STRIPE_API_BASE for a checkout.session.completed', async () => {
    server = await startServerProcess({ env: stripeEnv() })
    await call('/console/billing/keys', {
      method: 'POST',
      key: server.adminKey,
      body: { org_id: 'beta', name: 'ci' },
    })
    const customer = stripeId('cus')
    const sub = subscriptionObject({ orgId: null, customer, price: PRICE_ENTERPRISE })
    api.addSubscription(sub)
    const res = await deliver(
      eventObject(
        'checkout.session.completed',
        checkoutSessionObject(sub.id, customer, 'beta'),
        Math.floor(Date.now() / 1000),
      ),
    )
    expect(await res.json()).toMatchObject({ outcome: 'applied', org_id: 'beta' })
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v1/subscriptions/${sub.id}`])
    const got = (await (
      await call('/console/billing/subscription/beta', { key: server.adminKey })
    ).json()) as any
    expect(got.tier).toBe('enterprise')
  })

  it('refuses to start with RWA_PAYMENT_PROVIDER=stripe and a missing variable, naming it', async () => {
    const env: Record<string, string> = stripeEnv()
    delete env.RWA_STRIPE_WEBHOOK_SECRET
    await expect(startServerProcess({ env })).rejects.toThrow(/RWA_STRIPE_WEBHOOK_SECRET: required/)
  })
})
