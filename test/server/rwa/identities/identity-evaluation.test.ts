import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildWorld, expectStatus, OWNER, RECIPIENT, transferBody, type World } from '../../../support/governance.js'
import { createHarness, type Harness } from '../../../support/harness.js'

/*
 * What identities change in evaluation and recovery (docs/identities.md): an attestation about any DID
 * of an identity counts for every DID of it; a recovery moves the lost DID's place in its identity to
 * the new DID.
 */

const IDENTITIES = '/console/rwa/identities'
const COLD = 'did:web:lion:bob-cold'
const NEW = 'did:web:lion:bob-new'
let h: Harness
let world: World
beforeEach(async () => {
  h = await createHarness()
  world = await buildWorld(h)
})
afterEach(() => h.close())

const tok = (path = '') => `/console/rwa/tokens/${world.tokenId}${path}`
const canTransfer = (recipient: string) =>
  expectStatus(
    h.get(tok('/can-transfer'), {
      query: { from_jurisdiction: 'US', to_jurisdiction: 'SG', recipient_did: recipient, amount: 10 },
    }),
    200,
  )
const failing = (answer: any) =>
  answer.compliance_details.checks.filter((c: any) => !c.satisfied).map((c: any) => c.requirement)

describe('attestations across an identity', () => {
  it("an attestation about one DID counts for the identity's other DIDs, and stops when the DID leaves", async () => {
    const before = await canTransfer(COLD)
    expect(before.allowed).toBe(false)
    expect(failing(before)).toContain('kyc')

    const identity = await expectStatus(h.post(IDENTITIES, { dids: [RECIPIENT, COLD], country: 'SG' }), 201)
    const after = await canTransfer(COLD)
    expect(after.allowed).toBe(true)
    const kyc = after.compliance_details.checks.find((c: any) => c.requirement === 'kyc')
    expect(kyc).toMatchObject({ satisfied: true, evidence: world.attestations.kyc })
    expect(kyc.reason).toContain(`about ${RECIPIENT}, of the same identity`)
    // A real transfer to the other DID is approved, and its proof cites the attestation about RECIPIENT.
    const transfer = await expectStatus(
      h.post('/console/rwa/transfers', transferBody(world.tokenId, 10, { recipient_did: COLD })),
      201,
    )
    expect(transfer.status).toBe('approved')

    // The attested DID leaves the identity: its attestations no longer count for the cold DID.
    await expectStatus(h.post(`${IDENTITIES}/${identity.identity_id}/dids`, { remove: [RECIPIENT] }), 200)
    expect((await canTransfer(COLD)).allowed).toBe(false)
    // Nor does another organization's identity change anything here (each organization has its own).
    expect((await canTransfer(RECIPIENT)).allowed).toBe(true)
  })
})

describe('recovery', () => {
  beforeEach(async () => {
    await expectStatus(h.post('/console/rwa/transfers', transferBody(world.tokenId, 100)), 201)
    // The identity's DID that stays has its kyc (the lost DID's attestations leave with it).
    await expectStatus(
      h.post('/console/rwa/attestations', {
        jurisdiction: 'US',
        subject_did: COLD,
        type: 'kyc',
        attester: 'Acme KYC Ltd',
      }),
      201,
    )
  })

  it("moves the lost DID's place in its identity to the new DID, whose kyc is the identity's", async () => {
    const identity = await expectStatus(
      h.post(IDENTITIES, { identity_id: 'bob', dids: [RECIPIENT, COLD], country: 'SG', category: 'retail' }),
      201,
    )
    // The new DID has no attestation of its own: the identity's (about COLD) count for it once it takes
    // the lost DID's place.
    const res = await expectStatus(
      h.post(tok('/recover'), { lost_did: RECIPIENT, new_did: NEW, reason: 'lost device' }),
      200,
    )
    expect(res.moved).toEqual([expect.objectContaining({ holder_did: NEW, amount: 100 })])
    const now = await expectStatus(h.get(`${IDENTITIES}/${identity.identity_id}`), 200)
    expect(now.dids.sort()).toEqual([COLD, NEW].sort())
    expect((await expectStatus(h.get(IDENTITIES, { query: { did: RECIPIENT } }), 200)).total).toBe(0)
    // The lost DID is free for another identity.
    await expectStatus(h.post(IDENTITIES, { dids: [RECIPIENT], country: 'FR' }), 201)
    const audit = await expectStatus(
      h.get('/console/audit', { query: { action: 'identity.dids_changed' } }),
      200,
    )
    expect(audit.events).toHaveLength(1)
    expect(audit.events[0]).toMatchObject({
      target: { type: 'identity', id: 'bob' },
      changes: { after: { added: [NEW], removed: [RECIPIENT], recovery: true } },
    })
  })

  it('a new DID of the same identity: the lost one just leaves it', async () => {
    await expectStatus(
      h.post(IDENTITIES, { identity_id: 'bob', dids: [RECIPIENT, COLD], country: 'SG' }),
      201,
    )
    await expectStatus(
      h.post(tok('/recover'), { lost_did: RECIPIENT, new_did: COLD, reason: 'lost device' }),
      200,
    )
    expect((await expectStatus(h.get(`${IDENTITIES}/bob`), 200)).dids).toEqual([COLD])
  })

  it('a new DID of another identity is 409 did_in_use, and nothing moves', async () => {
    await expectStatus(h.post(IDENTITIES, { identity_id: 'bob', dids: [RECIPIENT], country: 'SG' }), 201)
    await expectStatus(h.post(IDENTITIES, { identity_id: 'carol', dids: [NEW], country: 'SG' }), 201)
    const res = await h.post(tok('/recover'), { lost_did: RECIPIENT, new_did: NEW, reason: 'lost device' })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ reason: 'did_in_use', context: { did: NEW, identity_id: 'carol' } })
    expect((await expectStatus(h.get(`${IDENTITIES}/bob`), 200)).dids).toEqual([RECIPIENT])
    const holdings = await expectStatus(h.get(tok('/holdings')), 200)
    expect(holdings.holdings.some((x: any) => x.holder_did === RECIPIENT && x.amount === 100)).toBe(true)
  })

  it('a lost DID of no identity: the recovery is as before (the new DID needs its own kyc)', async () => {
    const res = await h.post(tok('/recover'), { lost_did: RECIPIENT, new_did: NEW, reason: 'lost device' })
    expect(res.status).toBe(422)
    expect((await expectStatus(h.get(IDENTITIES), 200)).total).toBe(0)
  })
})

describe('freezes and forced transfers', () => {
  const forced = (to_did: string) =>
    h.post(tok('/forced-transfer'), {
      from_did: OWNER,
      from_jurisdiction: 'US',
      to_did,
      to_jurisdiction: 'US',
      amount: 5,
      reason: 'court order',
    })

  it("a forced transfer's kyc of its recipient is the identity's; the rules it bypasses stay bypassed", async () => {
    // COLD has no attestation of its own: refused while it is of no identity.
    const alone = await forced(COLD)
    expect([alone.status, alone.body.reason]).toEqual([422, 'recipient_not_kyc'])
    await expectStatus(h.post(IDENTITIES, { dids: [RECIPIENT, COLD], country: 'RU', category: 'retail' }), 201)
    // The identity's country denied and its category not allowed: a transfer is refused by both rules,
    // the agent's forced transfer bypasses them (as it bypasses every rule) and still needs the kyc.
    await expectStatus(
      h.request('PUT', tok('/rules'), {
        body: { country_deny: ['RU'], allowed_categories: ['institutional'] },
      }),
      200,
    )
    expect(failing(await canTransfer(COLD))).toEqual(
      expect.arrayContaining(['rule:country_deny', 'rule:allowed_categories']),
    )
    const moved = await expectStatus(forced(COLD), 201)
    expect(moved).toMatchObject({ recipient_did: COLD, amount: 5 })
    const holders = await expectStatus(h.get(tok('/holders')), 200)
    const bob = holders.holders.find((x: any) => x.identity_id !== null)
    expect(bob).toMatchObject({ country: 'RU', total: 5, dids: [{ holder_did: COLD, amount: 5 }] })
  })

  it('a freeze holds one DID, not its identity: the frozen DID is refused, its sibling receives', async () => {
    await expectStatus(h.post(IDENTITIES, { dids: [RECIPIENT, COLD], country: 'SG' }), 201)
    await expectStatus(h.post(tok('/freeze'), { holder_did: RECIPIENT }), 200)
    expect(failing(await canTransfer(RECIPIENT))).toContain('holder_not_frozen')
    expect((await canTransfer(COLD)).allowed).toBe(true)
    const toSibling = await expectStatus(
      h.post('/console/rwa/transfers', transferBody(world.tokenId, 10, { recipient_did: COLD })),
      201,
    )
    expect(toSibling.status).toBe('approved')
  })
})

describe('GET /console/rwa/tokens/{id}/holders', () => {
  it('groups holdings by identity (total and per DID over jurisdictions), then lone DIDs, a page at a time', async () => {
    await expectStatus(
      h.post(IDENTITIES, { identity_id: 'bob', dids: [RECIPIENT, COLD], country: 'SG', category: 'retail' }),
      201,
    )
    await expectStatus(h.post('/console/rwa/transfers', transferBody(world.tokenId, 100)), 201)
    await expectStatus(
      h.post('/console/rwa/transfers', transferBody(world.tokenId, 30, { recipient_did: COLD })),
      201,
    )
    // Units of one DID in two jurisdictions count once for it: 5 more to RECIPIENT kept in US.
    await expectStatus(
      h.post('/console/rwa/transfers', transferBody(world.tokenId, 5, { to_jurisdiction: 'US' })),
      201,
    )
    const all = await expectStatus(h.get(tok('/holders')), 200)
    expect(all).toEqual({
      holders: [
        {
          identity_id: 'bob',
          country: 'SG',
          category: 'retail',
          total: 135,
          dids: [
            { holder_did: RECIPIENT, amount: 105 },
            { holder_did: COLD, amount: 30 },
          ],
        },
        {
          identity_id: null,
          country: null,
          category: null,
          total: 865,
          dids: [{ holder_did: 'did:web:acme:alice', amount: 865 }],
        },
      ],
      total: 2,
      next_cursor: null,
    })
    const first = await expectStatus(h.get(tok('/holders'), { query: { limit: 1 } }), 200)
    expect(first.holders.map((x: any) => x.identity_id)).toEqual(['bob'])
    expect(first.total).toBe(2)
    const second = await expectStatus(
      h.get(tok('/holders'), { query: { limit: 1, cursor: first.next_cursor } }),
      200,
    )
    expect(second.holders.map((x: any) => x.dids[0].holder_did)).toEqual(['did:web:acme:alice'])
    expect(second.next_cursor).toBeNull()
    const bad = await h.get(tok('/holders'), { query: { cursor: 'AAAA' } })
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0].path).toBe('cursor')
    expect((await h.get('/console/rwa/tokens/tok_01JD5Z8Q4N7T0000000000ABCD/holders')).status).toBe(404)
  })
})
