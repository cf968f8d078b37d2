import { afterEach, describe, expect, it } from 'vitest'
import { TIER_LIMITS } from '../../../src/contract/limits.js'
import { noteLimitReached } from '../../../server/pipeline/events/limit-reached.js'
import { limitDecision } from '../../../server/platform/limits/rate-limiter.js'
import { expectStatus } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { WebhookReceiver } from '../../support/webhook-receiver.js'

/*
 * `limit.reached` (docs/webhooks.md): fired where a 429 of the per-minute or per-day limit is decided, at
 * most once an hour per organization and limit, whichever instance refuses.
 */

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const limitEvents = (harness: Harness) =>
  harness.ctx.db
    .selectFrom('events')
    .selectAll()
    .where('type', '=', 'limit.reached')
    .orderBy('event_id')
    .execute()

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const end = Date.now() + 10_000
  for (;;) {
    const value = await read()
    if (ok(value)) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('limit.reached', () => {
  it('fires once an hour per organization and limit when requests are refused, with a delivery to a subscribed endpoint', async () => {
    h = await createHarness({ allowHttpWebhooks: true })
    h.clock.set('2026-11-28T10:00:00Z')
    const acme = await h.createOrg('acme')
    const receiver = await new WebhookReceiver().start()
    try {
      await expectStatus(
        h.post('/console/webhooks', { url: receiver.url, events: ['limit.reached'] }, { key: acme.key }),
        201,
      )
      h.clock.advance(61_000)
      for (let i = 0; i < 60; i++) await expectStatus(h.get('/console/billing/keys', { key: acme.key }), 200)
      for (let i = 0; i < 20; i++) await expectStatus(h.get('/console/billing/keys', { key: acme.key }), 429)
      const [event] = await until(
        'the event',
        () => limitEvents(h!),
        (rows) => rows.length === 1,
      )
      expect(event!.org_id).toBe('acme')
      expect(JSON.parse(event!.data).object).toEqual({
        org_id: 'acme',
        window: 'minute',
        limit: 60,
        tier: 'free',
        retry_after_seconds: expect.any(Number),
        reached_at: '2026-11-28T10:01:01.000Z',
      })
      const deliveries = await h.ctx.db
        .selectFrom('webhook_deliveries')
        .select('event_id')
        .where('event_id', '=', event!.event_id)
        .execute()
      expect(deliveries).toHaveLength(1)

      // The same hour, the minute's limit reached again: no second event. The next hour: one more.
      h.clock.advance(61_000)
      for (let i = 0; i < 60; i++) await expectStatus(h.get('/console/billing/keys', { key: acme.key }), 200)
      await expectStatus(h.get('/console/billing/keys', { key: acme.key }), 429)
      h.clock.set('2026-11-28T11:00:00Z')
      for (let i = 0; i < 60; i++) await expectStatus(h.get('/console/billing/keys', { key: acme.key }), 200)
      await expectStatus(h.get('/console/billing/keys', { key: acme.key }), 429)
      const events = await until(
        'the next hour',
        () => limitEvents(h!),
        (rows) => rows.length === 2,
      )
      expect(JSON.parse(events[1]!.data).object.reached_at).toBe('2026-11-28T11:00:00.000Z')
      // The org reads it as any event, once its minute has room again.
      h.clock.advance(61_000)
      const listed = await expectStatus(
        h.get('/console/events', { key: acme.key, query: { type: 'limit.reached' } }),
        200,
      )
      expect(listed.events.map((e: any) => e.id)).toEqual(events.map((e) => e.event_id).reverse())
    } finally {
      await receiver.stop()
    }
  })

  it('two instances refusing in the same hour fire it once; the day limit is a limit of its own', async () => {
    h = await createHarness()
    await h.createOrg('acme')
    const b = await h.newInstance()
    const now = h.clock.now()
    const limits = TIER_LIMITS.free
    const minute = limitDecision(limits, now, 'minute', { dayCount: 10, windowSize: 60, pivotAt: now })
    const day = limitDecision(limits, now, 'day', { dayCount: 1000, windowSize: 10 })
    await Promise.all([
      noteLimitReached(h.ctx, 'acme', minute, 'free'),
      noteLimitReached(b.ctx, 'acme', minute, 'free'),
      noteLimitReached(b.ctx, 'acme', minute, 'free'),
    ])
    expect(await limitEvents(h)).toHaveLength(1)
    await noteLimitReached(b.ctx, 'acme', day, 'free')
    const events = await limitEvents(h)
    expect(events.map((e) => JSON.parse(e.data).object.window).sort()).toEqual(['day', 'minute'])
  })

  it('a batch refused inside its write still fires it, outside that write', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    h.clock.advance(61_000)
    // Pro: 500 a minute. 490 single requests, then a batch of 20 operations that does not fit.
    for (let i = 0; i < 490; i++) await expectStatus(h.get('/console/billing/keys', { key: acme.key }), 200)
    const operations = Array.from({ length: 20 }, (_, i) => ({
      op: 'jurisdictions.register',
      body: { jurisdiction_id: `J${i}`, name: `J${i}`, regulatory_body: 'X' },
    }))
    const refused = await h.post('/console/rwa/batch', { operations }, { key: acme.key })
    expect(refused.status).toBe(429)
    const [event] = await until(
      'the event',
      () => limitEvents(h!),
      (rows) => rows.length === 1,
    )
    expect(JSON.parse(event!.data).object).toMatchObject({ window: 'minute', limit: 500, tier: 'pro' })
  })
})
