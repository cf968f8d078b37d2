import { afterEach, describe, expect, it } from 'vitest'
import { StripePaymentProvider } from '../../../server/platform/payments/stripe-provider.js'
import { ManualClock } from '../../support/clock.js'
import { buildWorld, expectStatus, US } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { StripeApiServer } from '../../support/stripe-api-server.js'
import {
  eventObject,
  PRICES,
  STRIPE_SECRET_KEY,
  signedHeader,
  subscriptionObject,
  WEBHOOK_SECRET,
} from '../../support/stripe-fixtures.js'

let h: Harness | undefined
let api: StripeApiServer | undefined
afterEach(async () => {
  await h?.close()
  await api?.stop()
  h = undefined
  api = undefined
})

const audit = (harness: Harness, query: Record<string, string | number>, key?: string) =>
  expectStatus(harness.get('/console/audit', { query, ...(key ? { key } : {}) }), 200)

describe('GET /console/audit', () => {
  it('shows an update with before and after, filters by action, target, actor and time, and pages newest first', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    await buildWorld(h, acme.key)
    const second = await expectStatus(
      h.post('/console/billing/keys', { name: 'second' }, { key: acme.key }),
      201,
    )
    const { jurisdiction_id: _, ...fields } = US
    h.clock.advance(60_000)
    const since = new Date(h.clock.now()).toISOString()
    await expectStatus(
      h.request('PUT', '/console/rwa/jurisdictions/US', {
        key: second.api_key,
        body: { ...fields, transfer_requirements: ['kyc'] },
      }),
      200,
    )

    const updated = await audit(h, { action: 'jurisdiction.updated' }, acme.key)
    expect(updated.total).toBe(1)
    expect(updated.events[0]).toMatchObject({
      org_id: 'acme',
      actor: { key_id: second.key_id, roles: ['owner'] },
      target: { type: 'jurisdiction', id: 'US' },
      changes: {
        before: { transfer_requirements: ['kyc', 'aml', 'title_verification'] },
        after: { transfer_requirements: ['kyc'] },
      },
    })
    expect(
      (await audit(h, { actor_key_id: second.key_id }, acme.key)).events.map((e: any) => e.action),
    ).toEqual(['jurisdiction.updated'])
    expect((await audit(h, { since }, acme.key)).total).toBe(1)
    expect((await audit(h, { until: since }, acme.key)).events.map((e: any) => e.action)).not.toContain(
      'jurisdiction.updated',
    )
    expect((await audit(h, { target_id: 'US' }, acme.key)).events.map((e: any) => e.action)).toEqual([
      'jurisdiction.updated',
      'jurisdiction.registered',
    ])

    // Paging: every event once, newest first.
    const all = await audit(h, { limit: 500 }, acme.key)
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await audit(h, { limit: 3, ...(cursor ? { cursor } : {}) }, acme.key)
      seen.push(...page.events.map((e: any) => e.event_id))
      cursor = page.next_cursor ?? undefined
    } while (cursor)
    expect(seen).toEqual(all.events.map((e: any) => e.event_id))
    expect([...seen].sort().reverse()).toEqual(seen)
    expect(all.total).toBe(seen.length)
  })

  it("is the caller's organization's own: another organization's log is 403, the admin key reads any", async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const globex = await h.createOrg('globex', { tier: 'pro' })
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: globex.key }), 201)
    const refused = await h.get('/console/audit', { key: acme.key, query: { org_id: 'globex' } })
    expect([refused.status, refused.body.reason]).toEqual([403, 'other_organization'])
    expect((await audit(h, { action: 'jurisdiction.registered' }, acme.key)).total).toBe(0)
    expect((await audit(h, { org_id: 'globex', action: 'jurisdiction.registered' })).total).toBe(1)
  })

  it('refuses a malformed filter naming it', async () => {
    h = await createHarness()
    for (const [field, value] of [
      ['action', 'Not An Action'],
      ['since', 'yesterday'],
      ['actor_key_id', 'tok_1'],
      ['cursor', 'tx_01M8420DESXZV8X28W2ZQWTKA9'],
    ]) {
      const res = await h.get('/console/audit', { query: { [field as string]: value as string } })
      expect([res.status, res.body.errors?.[0]?.path]).toEqual([400, field])
    }
  })
})

describe('writes the server makes for others', () => {
  it("a payment provider's event is recorded with the provider as the actor and no request id", async () => {
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
    await h.createOrg('acme')
    const now = Math.floor(clock.now() / 1000)
    const payload = JSON.stringify(
      eventObject('customer.subscription.created', subscriptionObject({ orgId: 'acme', start: now }), now),
    )
    const res = await h.request('POST', '/console/billing/webhooks/stripe', {
      key: null,
      rawBody: payload,
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signedHeader(payload, now) },
    })
    expect(res.status).toBe(200)
    const events = (await audit(h, { org_id: 'acme', action: 'subscription.updated' })).events
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      actor: { system: 'payment_provider' },
      request_id: null,
      target: { type: 'subscription', id: 'acme' },
      changes: { before: null, after: { tier: 'pro', provider: 'stripe' } },
    })
  })

  it("the first start's admin key is recorded in the operator organization's log, never its raw key", async () => {
    h = await createHarness()
    const { events } = await audit(h, { org_id: 'admin', action: 'key.created' })
    const [adminKey] = (
      await expectStatus(h.get('/console/billing/keys', { query: { org_id: 'admin' } }), 200)
    ).keys
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      org_id: 'admin',
      actor: { system: 'bootstrap' },
      request_id: null,
      target: { type: 'key', id: adminKey.key_id },
      changes: { after: { name: 'admin', roles: ['owner'], key_prefix: adminKey.key_prefix, preset: false } },
    })
    expect(JSON.stringify(events[0])).not.toContain(h.adminKey)
  })

  it("a trial's end is recorded with the trial-expiry job as the actor", async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { trial: true })
    h.clock.advance(15 * 24 * 3_600_000)
    await h.get('/console/billing/keys', { key: acme.key })
    const events = (await audit(h, { org_id: 'acme', action: 'trial.ended' })).events
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ actor: { system: 'trial_expiry' }, request_id: null })
  })
})
