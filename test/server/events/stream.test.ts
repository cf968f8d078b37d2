import { afterEach, describe, expect, it } from 'vitest'
import { LOOKBACK_MS, StreamCursor } from '../../../server/areas/events/stream.js'
import { eventSignal } from '../../../server/pipeline/events/outbox.js'
import { IdFactory, idFloor, timeOfId } from '../../../server/platform/ids.js'
import { TestEventStream, serveOverHttp } from '../../support/event-stream.js'
import { expectStatus, US } from '../../support/governance.js'
import { createHarness, type Harness, type TestInstance } from '../../support/harness.js'

/*
 * GET /console/events/stream over real HTTP (a harness instance served on loopback): what a stream
 * sends, to whom, from where it resumes, and across two instances over PostgreSQL and Redis.
 */

let h: Harness | undefined
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await h?.close()
  h = undefined
})

async function served(instance: TestInstance = h!) {
  const server = await serveOverHttp(instance)
  cleanups.push(() => server.close())
  return server
}

async function open(url: string, key: string, options: { events?: string; lastEventId?: string } = {}) {
  const stream = await TestEventStream.open(url, key, options)
  cleanups.push(() => stream.close())
  return stream
}

const jurisdiction = (id: string) => ({ ...US, jurisdiction_id: id, name: `Jurisdiction ${id}` })

describe('the event stream', () => {
  it("sends each event committed after it opened, as GET answers it, to its organization's streams only, filtered by type", async () => {
    h = await createHarness({ eventStreamHeartbeatMs: 60_000 })
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const lion = await h.createOrg('lion', { tier: 'pro' })
    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XA'), { key: acme.key }), 201)
    const { url } = await served()

    const all = await open(url, acme.key)
    const onlyJurisdictions = await open(url, acme.key, { events: 'jurisdiction.*' })
    const other = await open(url, lion.key)
    expect(all.status).toBe(200)
    expect(all.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(all.raw).toMatch(/^retry: 1000\nid: evt_[0-9A-Z]{26}\n: connected\n\n/)

    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XB'), { key: acme.key }), 201)
    await expectStatus(h.post('/console/billing/keys', { name: 'ci' }, { key: acme.key }), 201)
    await all.until(() => all.events().length === 2, 'two events')
    await onlyJurisdictions.until(() => onlyJurisdictions.events().length === 1, 'one event')

    const [registered, keyCreated] = all.events()
    expect(registered!.event).toBe('jurisdiction.registered')
    expect(keyCreated!.event).toBe('key.created')
    const event = JSON.parse(registered!.data)
    expect(registered!.id).toBe(event.id)
    expect(event.data.object).toMatchObject({ jurisdiction_id: 'XB' })
    expect(event).toEqual(await expectStatus(h.get(`/console/events/${event.id}`, { key: acme.key }), 200))
    // The event from before the stream opened is not sent.
    expect(all.raw).not.toContain('"XA"')
    expect(onlyJurisdictions.events().map((m) => m.event)).toEqual(['jurisdiction.registered'])

    // Another organization's stream hears nothing of acme's.
    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XC'), { key: lion.key }), 201)
    await other.until(() => other.events().length === 1, "lion's event")
    expect(other.events()[0]!.data).toContain('"XC"')
    expect(other.raw).not.toContain('acme')
  })

  it('resumes after Last-Event-ID with what was committed meanwhile', async () => {
    h = await createHarness({ eventStreamHeartbeatMs: 60_000 })
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const { url } = await served()
    const first = await open(url, acme.key, { events: 'jurisdiction.*' })
    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XA'), { key: acme.key }), 201)
    await first.until(() => first.events().length === 1, 'the first event')
    first.close()
    const last = first.events()[0]!.id!

    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XB'), { key: acme.key }), 201)
    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XC'), { key: acme.key }), 201)
    // Events more than the lookback after the last one: only what follows it comes again.
    h.clock.advance(LOOKBACK_MS + 1_000)
    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XD'), { key: acme.key }), 201)
    const resumed = await open(url, acme.key, { events: 'jurisdiction.*', lastEventId: last })
    await resumed.until(() => resumed.events().length === 3, 'the three events committed meanwhile')
    expect(resumed.events().map((m) => JSON.parse(m.data).data.object.jurisdiction_id)).toEqual([
      'XB',
      'XC',
      'XD',
    ])
    // A client that lost the stream before any event resumes from the opening frame's id.
    const fresh = await open(url, acme.key, { events: 'jurisdiction.*' })
    const position = fresh.messages[0]!.id!
    fresh.close()
    h.clock.advance(LOOKBACK_MS + 1_000)
    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XE'), { key: acme.key }), 201)
    const again = await open(url, acme.key, { events: 'jurisdiction.*', lastEventId: position })
    await again.until(() => again.events().length === 1, 'the event committed while disconnected')
    expect(again.events()[0]!.data).toContain('"XE"')
  })

  it('sends a keep-alive comment when quiet, and ends when the server shuts down', async () => {
    h = await createHarness({ eventStreamHeartbeatMs: 200 })
    const acme = await h.createOrg('acme')
    const server = await serveOverHttp(h)
    const stream = await TestEventStream.open(server.url, acme.key)
    await stream.until(() => stream.raw.includes(': keep-alive\n\n'), 'a keep-alive')
    await server.close()
    await stream.until(() => stream.ended, 'the end of the stream')
  })

  it('ends a stream whose key is revoked, before sending it anything more', async () => {
    h = await createHarness({ eventStreamHeartbeatMs: 60_000 })
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const { url } = await served()
    const reader = await expectStatus(
      h.post('/console/billing/keys', { name: 'reader', roles: ['auditor'] }, { key: acme.key }),
      201,
    )
    const stream = await open(url, reader.api_key)
    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XR'), { key: acme.key }), 201)
    await stream.until(() => stream.events().length === 1, 'the event while the key is live')

    await expectStatus(h.request('DELETE', `/console/billing/keys/${reader.key_id}`, { key: acme.key }), 200)
    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XS'), { key: acme.key }), 201)
    await stream.until(() => stream.ended, "the end of the revoked key's stream")
    expect(stream.raw).not.toContain('"XS"')
    expect((await open(url, reader.api_key)).status).toBe(401)
  })

  it('refuses a bad selector, a malformed Last-Event-ID and a missing key; every role may read it', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const { url } = await served()
    const badType = await open(url, acme.key, { events: 'transfer.approved,nope.*' })
    expect([badType.status, JSON.parse(badType.raw).reason]).toEqual([400, 'invalid_field'])
    const badId = await open(url, acme.key, { lastEventId: 'evt_../../etc' })
    expect([badId.status, JSON.parse(badId.raw).reason]).toEqual([400, 'invalid_field'])
    const noKey = await open(url, '')
    expect(noKey.status).toBe(401)
    const auditor = await expectStatus(
      h.post('/console/billing/keys', { name: 'auditor', roles: ['auditor'] }, { key: acme.key }),
      201,
    )
    const stream = await open(url, auditor.api_key)
    expect(stream.status).toBe(200)
    // In process too, through the harness (whose conformance check reads the opening frame).
    const res = await h.get('/console/events/stream', { key: acme.key, query: { events: 'transfer.*' } })
    expect(res.status).toBe(200)
    expect(res.text).toMatch(/^retry: 1000\n/)
  })

  it('an event committed on one instance reaches a stream on another (PostgreSQL and Redis)', async (t) => {
    h = await createHarness({ eventStreamHeartbeatMs: 60_000 })
    if (h.dialect !== 'postgres') t.skip()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const b = await h.newInstance()
    const { url } = await served(b)
    const stream = await open(url, acme.key, { events: 'jurisdiction.*' })
    // B hears of A's commit through the invalidation bus, not only at its next poll.
    const heard = new Promise((resolve) => eventSignal(b.ctx).once('events', resolve))
    await expectStatus(h.post('/console/rwa/jurisdictions', jurisdiction('XA'), { key: acme.key }), 201)
    expect(await heard).toEqual(['acme'])
    await stream.until(() => stream.events().length === 1, "A's event on B's stream")
    expect(stream.events()[0]!.data).toContain('"XA"')
  })
})

describe('StreamCursor', () => {
  it('sends an id once, and one that commits late (an older id) while within the lookback', () => {
    const at = 1_800_000_000_000
    const ids = new IdFactory(() => at)
    const cursor = new StreamCursor(at - LOOKBACK_MS)
    const early = ids.next('evt')
    const late = ids.next('evt')
    expect(cursor.floor() < early).toBe(true)
    expect(cursor.admit(late)).toBe(true)
    expect(cursor.admit(late)).toBe(false)
    // `early` committed after `late` was sent: still read (the floor is the lookback before `late`).
    expect(cursor.floor() < early).toBe(true)
    expect(cursor.admit(early)).toBe(true)
    const later = new IdFactory(() => at + 2 * LOOKBACK_MS).next('evt')
    expect(cursor.admit(later)).toBe(true)
    expect(cursor.floor()).toBe(idFloor('evt', at + LOOKBACK_MS))
    expect(timeOfId(later)).toBe(at + 2 * LOOKBACK_MS)
  })
})
