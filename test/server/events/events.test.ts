import { afterEach, describe, expect, it } from 'vitest'
import { EVENT_TYPES } from '../../../src/contract/events.js'
import { RECORD_PATHS, exerciseEveryChange } from '../../support/events.js'
import { expectStatus, OWNER, PROPERTY, RECIPIENT, US } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** Every event of the organization, newest first, paged through the list. */
async function allEvents(harness: Harness, key: string): Promise<any[]> {
  const events: any[] = []
  let cursor: string | undefined
  do {
    const page = await expectStatus(
      harness.get('/console/events', { key, query: { limit: 7, ...(cursor ? { cursor } : {}) } }),
      200,
    )
    events.push(...page.events)
    cursor = page.next_cursor ?? undefined
  } while (cursor)
  return events
}

const SCHEDULED = ['attestation.expiring', 'key.expiring', 'trial.ending', 'limit.reached']

describe('events', () => {
  it("an issuance's event carries its answer; a record a later operation of the same batch changed is carried as the write leaves it", async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const key = { key: acme.key }
    await expectStatus(h.post('/console/rwa/jurisdictions', US, key), 201)
    const credential = await expectStatus(
      h.post(
        '/console/rwa/credentials',
        { jurisdiction: 'US', owner_did: OWNER, property_data: PROPERTY },
        key,
      ),
      201,
    )
    const attestation = await expectStatus(
      h.post(
        '/console/rwa/attestations',
        { jurisdiction: 'US', subject_did: RECIPIENT, type: 'kyc', attester: 'A' },
        key,
      ),
      201,
    )
    const batch = await expectStatus(
      h.post(
        '/console/rwa/batch',
        {
          operations: [
            {
              ref: 'a',
              op: 'attestations.submit',
              body: { jurisdiction: 'US', subject_did: RECIPIENT, type: 'aml', attester: 'A' },
            },
            { op: 'attestations.revoke', body: { attestation_id: { $result: 'a.attestation_id' } } },
          ],
        },
        key,
      ),
      200,
    )
    const events = await allEvents(h, acme.key)
    const objectOf = (type: string, id: string) =>
      events.find(
        (e) => e.type === type && (e.data.object.credential_id ?? e.data.object.attestation_id) === id,
      )?.data.object
    const credentialId = credential.credential_id
    expect(objectOf('credential.issued', credentialId)).toEqual(credential)
    expect(credential).toEqual(await expectStatus(h.get(RECORD_PATHS.credential!(credentialId), key), 200))
    expect(credential.credential_status).toMatchObject([
      { statusPurpose: 'revocation' },
      { statusPurpose: 'suspension' },
    ])
    expect(objectOf('attestation.submitted', attestation.attestation_id)).toEqual(attestation)
    expect(attestation).toEqual(
      await expectStatus(h.get(RECORD_PATHS.attestation!(attestation.attestation_id), key), 200),
    )
    // Submitted then revoked in one write: both events carry the revoked record, as GET answers it.
    const revokedId = batch.results[0].body.attestation_id
    const now = await expectStatus(h.get(RECORD_PATHS.attestation!(revokedId), key), 200)
    expect(now.status).toBe('revoked')
    expect(objectOf('attestation.submitted', revokedId)).toEqual(now)
    expect(objectOf('attestation.revoked', revokedId)).toEqual(now)
  })

  it('every change of an event type has one event whose object is the record as GET answers it, no secret in any', async () => {
    h = await createHarness({ allowHttpIssuers: true })
    const acme = await h.createOrg('acme', { tier: 'pro' })
    await exerciseEveryChange(h, 'acme', acme.key)

    const events = await allEvents(h, acme.key)
    const types = new Set(events.map((e) => e.type))
    expect([...types].sort()).toEqual(EVENT_TYPES.filter((t) => !SCHEDULED.includes(t)).sort())
    const audit = await expectStatus(h.get('/console/audit', { key: acme.key, query: { limit: 500 } }), 200)
    const auditedEventTypes = audit.events.map((e: any) => e.action).filter((a: string) => types.has(a))
    expect(events.length).toBe(auditedEventTypes.length)

    for (const event of events) {
      expect(event).toMatchObject({ org_id: 'acme', id: expect.stringMatching(/^evt_/) })
      const got = await expectStatus(h.get(`/console/events/${event.id}`, { key: acme.key }), 200)
      expect(got).toEqual(event)
    }
    const tx = events.find((e) => e.type === 'transfer.approved')
    const txNow = await expectStatus(
      h.get(RECORD_PATHS.transfer!(tx.data.object.transfer_id), { key: acme.key }),
      200,
    )
    expect(tx.data.object).toEqual(txNow)
    const revoked = events.find((e) => e.type === 'attestation.revoked')
    expect(revoked.data.object).toEqual(
      await expectStatus(
        h.get(RECORD_PATHS.attestation!(revoked.data.object.attestation_id), { key: acme.key }),
        200,
      ),
    )
    const removed = events.find((e) => e.type === 'jurisdiction.removed')
    expect(removed.data.object).toEqual({ status: 'removed', jurisdiction_id: 'XX' })
    const updated = events.find((e) => e.type === 'jurisdiction.updated')
    expect(updated.data.object).toMatchObject({ jurisdiction_id: 'US', name: 'United States of America' })
    const sub = events.find((e) => e.type === 'subscription.updated')
    expect(sub.data.object).toMatchObject({ org_id: 'acme', tier: 'enterprise' })
    const keyCreated = events.find((e) => e.type === 'key.created')
    expect(keyCreated.data.object).toMatchObject({ key_id: expect.stringMatching(/^key_/), name: 'ci' })
    expect(keyCreated.data.object).not.toHaveProperty('api_key')

    const text = JSON.stringify(events)
    expect(text).not.toMatch(/rwa_live_[A-Za-z0-9_-]{20}/)
    expect(text).not.toContain(acme.key)

    // Filter by type; another organization sees none of them, and not one by id.
    const approved = await expectStatus(
      h.get('/console/events', { key: acme.key, query: { type: 'transfer.approved' } }),
      200,
    )
    expect(approved.events.map((e: any) => e.type)).toEqual(['transfer.approved'])
    const lion = await h.createOrg('lion', { tier: 'pro' })
    expect((await expectStatus(h.get('/console/events', { key: lion.key }), 200)).events).toEqual(
      await allEvents(h, lion.key),
    )
    expect((await allEvents(h, lion.key)).every((e) => e.org_id === 'lion')).toBe(true)
    await expectStatus(h.get(`/console/events/${tx.id}`, { key: lion.key }), 404)
  })

  it('a write with more events than one insert takes writes every one, in order, each delivered to its endpoint', async () => {
    h = await createHarness({ allowHttpWebhooks: true })
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const key = { key: acme.key }
    await expectStatus(h.post('/console/rwa/jurisdictions', US, key), 201)
    const endpoint = await expectStatus(
      h.post('/console/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['attestation.*'] }, key),
      201,
    )
    // 150: two full inserts of events and a part (server/pipeline/events/outbox.ts).
    const operations = Array.from({ length: 150 }, (_, i) => ({
      op: 'attestations.submit',
      body: { jurisdiction: 'US', subject_did: `${RECIPIENT}-${i}`, type: 'kyc', attester: 'A' },
    }))
    const batch = await expectStatus(h.post('/console/rwa/batch', { operations }, key), 200)
    const db = h.ctx.db as any
    const events = await db
      .selectFrom('events')
      .selectAll()
      .where('type', '=', 'attestation.submitted')
      .orderBy('event_id')
      .execute()
    expect(events.map((e: any) => JSON.parse(e.data).object)).toEqual(batch.results.map((r: any) => r.body))
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', endpoint.webhook_id)
      .execute()
    expect(deliveries.map((d: any) => d.event_id).sort()).toEqual(events.map((e: any) => e.event_id).sort())
  })

  it("in a batch longer than one append, a record a later operation changes is carried as the write leaves it", async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const key = { key: acme.key }
    await expectStatus(h.post('/console/rwa/jurisdictions', US, key), 201)
    // Submitted first, revoked 99 operations later: more than a batch appends at once as it goes.
    const submit = (subject: string) => ({
      op: 'attestations.submit',
      body: { jurisdiction: 'US', subject_did: subject, type: 'kyc', attester: 'A' },
    })
    const operations = [
      { ref: 'a', ...submit(RECIPIENT) },
      ...Array.from({ length: 98 }, (_, i) => submit(`${RECIPIENT}-${i}`)),
      { op: 'attestations.revoke', body: { attestation_id: { $result: 'a.attestation_id' } } },
    ]
    const batch = await expectStatus(h.post('/console/rwa/batch', { operations }, key), 200)
    const revokedId = batch.results[0].body.attestation_id
    const now = await expectStatus(h.get(RECORD_PATHS.attestation!(revokedId), key), 200)
    expect(now.status).toBe('revoked')
    const ofRevoked = (await allEvents(h, acme.key)).filter(
      (e) => e.data.object.attestation_id === revokedId,
    )
    expect(ofRevoked.map((e) => e.type).sort()).toEqual(['attestation.revoked', 'attestation.submitted'])
    for (const event of ofRevoked) expect(event.data.object).toEqual(now)
  })

  it('a refused write leaves no event', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: acme.key }), 201)
    const before = await allEvents(h, acme.key)
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: acme.key }), 409)
    expect(await allEvents(h, acme.key)).toEqual(before)
    expect(before.map((e) => e.type)).toEqual([
      'jurisdiction.registered',
      'subscription.updated',
      'key.created',
    ])
  })
})
