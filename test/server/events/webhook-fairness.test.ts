import { afterEach, expect, it } from 'vitest'
import { type WebhookWorker, webhookWorker } from '../../../server/areas/webhooks/worker.js'
import { expectStatus, US } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { HangingEndpoint, WebhookReceiver } from '../../support/webhook-receiver.js'

/*
 * Delivery is fair between organizations (docs/webhooks.md, "Deliveries"): each organization has at
 * most 4 deliveries in flight, across instances, so endpoints that never answer hold 4 connections
 * of their own organization and delay no other organization's deliveries by more than 2 s. The dead
 * endpoints are a real server on loopback that accepts and never answers; the arrival measured is the
 * real one, at the other organization's receiver.
 */

let h: Harness | undefined
let hanging: HangingEndpoint | undefined
let receiver: WebhookReceiver | undefined
let workers: WebhookWorker[] = []
afterEach(async () => {
  // Stopping a worker waits for its attempts in flight: the dead endpoint lets them go first.
  const stopping = workers.map((w) => w.stop())
  await hanging?.stop()
  await Promise.all(stopping)
  await receiver?.stop()
  await h?.close()
  workers = []
  h = hanging = receiver = undefined
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Waits until `check` holds, at most `ms`; returns the time from `start` (now by default) until it
 * held, or Infinity if it never did.
 */
async function timeUntil(check: () => boolean, ms: number, start = performance.now()): Promise<number> {
  while (!check()) {
    if (performance.now() - start > ms) return Number.POSITIVE_INFINITY
    await sleep(5)
  }
  return performance.now() - start
}

/**
 * `count` enabled endpoints of an organization at `url`, all subscribed to every event. Past 16 (the
 * most an organization may enable) as a database from before that limit holds them: made in groups
 * of at most 16, each group disabled while the next is made, then all enabled again.
 */
async function endpointsOf(harness: Harness, key: string, url: string, count: number): Promise<string[]> {
  const ids: string[] = []
  for (let made = 0; made < count; made++) {
    if (made > 0 && made % 16 === 0) await setStatus(harness, ids, 'disabled')
    const created = await expectStatus(
      harness.post('/console/webhooks', { url, events: ['*'] }, { key }),
      201,
    )
    ids.push(created.webhook_id)
  }
  await setStatus(harness, ids, 'enabled')
  return ids
}

async function setStatus(harness: Harness, ids: string[], status: 'enabled' | 'disabled') {
  const db = harness.ctx.db as any
  const [row] = await db
    .selectFrom('webhook_endpoints')
    .select('org_id')
    .where('webhook_id', 'in', ids)
    .execute()
  await db.updateTable('webhook_endpoints').set({ status }).where('webhook_id', 'in', ids).execute()
  harness.ctx.invalidate({ kind: 'webhooks', orgId: row.org_id })
}

/** Registers `count` jurisdictions (one event each) in the organization of `key`. */
async function registerJurisdictions(harness: Harness, key: string, count: number) {
  for (let i = 0; i < count; i++) {
    const id = `J${String(i).padStart(2, '0')}`
    await expectStatus(
      harness.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: id }, { key }),
      201,
    )
  }
}

it("32 endpoints that never answer, with 64 events behind them, delay another organization's delivery by less than 2 s", {
  timeout: 60_000,
}, async () => {
  h = await createHarness({ allowHttpWebhooks: true })
  hanging = await new HangingEndpoint().start()
  receiver = await new WebhookReceiver().start()
  const dead = await h.createOrg('dead', { tier: 'pro' })
  const live = await h.createOrg('live', { tier: 'pro' })
  await endpointsOf(h, dead.key, hanging.url, 32)
  await expectStatus(
    h.post('/console/webhooks', { url: receiver.url, events: ['*'] }, { key: live.key }),
    201,
  )
  await registerJurisdictions(h, dead.key, 64)

  // The server's own worker: it polls, and wakes when this process commits an event.
  workers.push(webhookWorker(h.ctx, { poll: true }))
  expect(
    await timeUntil(() => hanging!.open >= 4, 10_000),
    'the dead endpoints are being tried',
  ).toBeLessThan(Number.POSITIVE_INFINITY)
  // Behind the 2,048 deliveries already due.
  h.clock.advance(1_000)
  const sent = performance.now()
  await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: live.key }), 201)
  // From before its event was committed until its delivery reached the receiver.
  const latency = await timeUntil(() => receiver!.received.length > 0, 5_000, sent)
  expect(latency).toBeLessThan(2_000)
  expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({
    type: 'jurisdiction.registered',
    org_id: 'live',
  })
  // The dead organization's own deliveries held 4 connections, never more.
  expect(hanging.mostOpen).toBe(4)
})

it("holds at most 4 of an organization's deliveries in flight, whatever instance claims them", {
  timeout: 60_000,
}, async () => {
  h = await createHarness({ allowHttpWebhooks: true })
  hanging = await new HangingEndpoint().start()
  const dead = await h.createOrg('dead', { tier: 'pro' })
  await endpointsOf(h, dead.key, hanging.url, 8)
  await registerJurisdictions(h, dead.key, 4)

  workers.push(webhookWorker(h.ctx, { poll: true }))
  expect(await timeUntil(() => hanging!.open >= 4, 10_000)).toBeLessThan(Number.POSITIVE_INFINITY)
  // Another instance finds 28 deliveries due, and no room for any: the 4 in flight are the first's.
  const other = await h.newInstance({ allowHttpWebhooks: true })
  const second = webhookWorker(other.ctx, { poll: false })
  workers.push(second)
  expect(await second.runOnce()).toBe(0)
  await sleep(200)
  expect(hanging.open).toBe(4)
  expect(hanging.mostOpen).toBe(4)
})
