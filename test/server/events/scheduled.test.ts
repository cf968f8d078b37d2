import { afterEach, expect, it } from 'vitest'
import { DAY_MS } from '../../../server/platform/clock.js'
import { runScheduledEvents } from '../../../server/areas/events/scheduled.js'
import { expectStatus, US } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const expiring = async (harness: Harness, key: string, type: string) =>
  (await expectStatus(harness.get('/console/events', { key, query: { type, limit: 500 } }), 200)).events

it('fires attestation.expiring at 30, 7 and 1 days, key.expiring at 7 and 1, trial.ending at 3, each once, on one instance', async () => {
  h = await createHarness()
  const start = h.clock.now()
  const acme = await h.createOrg('acme', { trial: true })
  await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: acme.key }), 201)
  const validUntil = new Date(start + 40 * DAY_MS).toISOString()
  const att = await expectStatus(
    h.post(
      '/console/rwa/attestations',
      { jurisdiction: 'US', subject_did: 'did:web:x:y', type: 'kyc', attester: 'A', valid_until: validUntil },
      { key: acme.key },
    ),
    201,
  )
  const key = await expectStatus(
    h.post(
      '/console/billing/keys',
      { name: 'ci', expires_at: new Date(start + 20 * DAY_MS).toISOString() },
      { key: acme.key },
    ),
    201,
  )
  const other = await h.newInstance()
  const run = async () =>
    (await runScheduledEvents(h!.ctx, 'inst_a')) + (await runScheduledEvents(other.ctx, 'inst_b'))

  expect(await run()).toBe(0)
  // Each threshold once, whichever instance runs (the other waits for the lease).
  for (const [day, fired] of [
    [10, 1], // 30 days before the attestation: attestation.expiring
    [11, 1], // 3 days before the trial's end (14 days): trial.ending
    [13, 1], // 7 days before the key: key.expiring
    [19, 1], // 1 day before the key
    [33, 1], // 7 days before the attestation
    [39, 1], // 1 day before
    [41, 0], // expired: nothing more
  ] as const) {
    h.clock.set(start + day * DAY_MS + 2 * 60_000 + 1000)
    expect(await run(), `day ${day}`).toBe(fired)
    expect(await run(), `day ${day} again`).toBe(0)
  }
  const trial = await expiring(h, acme.key, 'trial.ending')
  expect(trial).toHaveLength(1)
  expect(trial[0].data.object).toMatchObject({ org_id: 'acme' })
  const atts = await expiring(h, acme.key, 'attestation.expiring')
  expect(atts).toHaveLength(3)
  expect(atts.every((e: any) => e.data.object.attestation_id === att.attestation_id)).toBe(true)
  const keys = await expiring(h, acme.key, 'key.expiring')
  expect(keys).toHaveLength(2)
  expect(keys[0].data.object).toMatchObject({ key_id: key.key_id })
  expect(JSON.stringify(keys)).not.toContain(key.api_key)
})
