import { afterAll, beforeAll, expect, it } from 'vitest'
import { buildWorld, expectStatus, transferBody, type World } from '../../../support/governance.js'
import { createHarness, type Harness } from '../../../support/harness.js'

/*
 * A stored transfer's proof is answered from the facts it has just signed, copied in canonical key
 * order rather than parsed back from their canonical JSON (docs/performance.md, "Fifth pass: the
 * batch"): the transfer's event, written from that answer, carries the bytes GET answers, nested key
 * order included, for a single POST and a batch's transfers, approved or refused.
 */

let h: Harness
let w: World
beforeAll(async () => {
  h = await createHarness()
  w = await buildWorld(h)
})
afterAll(() => h.close())

const NOBODY = 'did:web:nowhere:nobody'

it("a transfer's event carries its record and proof in GET's bytes", async () => {
  await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 5)), 201)
  await expectStatus(
    h.post('/console/rwa/transfers', transferBody(w.tokenId, 5, { recipient_did: NOBODY })),
    201,
  )
  await expectStatus(
    h.post('/console/rwa/batch', {
      operations: [
        { op: 'transfers.request', body: transferBody(w.tokenId, 3) },
        { op: 'transfers.request', body: transferBody(w.tokenId, 3, { recipient_did: NOBODY }) },
      ],
    }),
    200,
  )
  const page = await expectStatus(h.get('/console/events', { query: { limit: 100 } }), 200)
  const transfers = page.events.filter((e: any) => e.type.startsWith('transfer.'))
  expect(transfers.map((e: any) => e.type).sort()).toEqual([
    'transfer.approved',
    'transfer.approved',
    'transfer.rejected',
    'transfer.rejected',
  ])
  for (const event of transfers) {
    const object = event.data.object
    const got = await h.get(`/console/rwa/transfers/${object.transfer_id}`)
    expect(got.status).toBe(200)
    // JSON.parse keeps the order of keys: the same text is the same bytes, nested order included.
    expect(JSON.stringify(object)).toBe(JSON.stringify(got.body))
    expect(JSON.stringify(object.proof.compliance_details)).toContain('"checks":[{')
  }
})
