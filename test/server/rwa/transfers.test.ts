import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  jwksSchema,
  proofSchema,
  tokenDetailSchema,
  transferDetailSchema,
  transferSchema,
} from '../../../src/contract/rwa.js'
import { verifyProof } from '../../../src/proof/verify.js'
import { DAY_MS } from '../../../server/platform/clock.js'
import { createHarness, type Harness } from '../../support/harness.js'
import {
  buildWorld,
  expectStatus,
  OWNER,
  RECIPIENT,
  transferBody,
  type World,
} from '../../support/governance.js'

let h: Harness
let w: World
beforeEach(async () => {
  h = await createHarness()
  w = await buildWorld(h)
})
afterEach(() => h.close())

/** Who holds how much where (the frozen state is tested in governance.test.ts). */
const holdingsOf = async (tokenId: string) =>
  (
    (await expectStatus(h.get(`/console/rwa/tokens/${tokenId}`), 200)).holdings as Array<{
      holder_did: string
      jurisdiction: string
      amount: number
    }>
  ).map(({ holder_did, jurisdiction, amount }) => ({ holder_did, jurisdiction, amount }))

describe('POST /console/rwa/transfers', () => {
  it('approves a transfer whose source and target requirements are all satisfied (spec rule 1)', async () => {
    const res = await h.post('/console/rwa/transfers', transferBody(w.tokenId, 100))
    expect(res.status).toBe(201)
    const t = transferSchema.parse(res.body)
    expect(t.status).toBe('approved')
    expect(t.transfer_id).toMatch(/^tx_/)
    expect(t.proof_id).toMatch(/^prf_/)
    expect(t.compliance_details.source_requirements).toEqual(['kyc', 'aml', 'title_verification'])
    expect(t.compliance_details.target_requirements).toEqual(['kyc', 'aml', 'investor_qualification'])
    expect(t.compliance_details.all_satisfied).toBe(true)
    expect(t).toMatchObject({
      token_id: w.tokenId,
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      sender_did: OWNER,
      recipient_did: RECIPIENT,
      amount: 100,
      created_at: '2026-01-15T12:00:00.000Z',
    })
    const checks = t.compliance_details.checks.map((c) => [
      c.requirement,
      c.jurisdiction,
      c.satisfied,
      c.evidence,
    ])
    expect(checks).toEqual([
      ['token_active', 'US', true, w.tokenId],
      ['credential_valid', 'US', true, w.credentialId],
      ['sufficient_holding', 'US', true, null],
      ['holder_not_frozen', 'US', true, null],
      ['trust', 'SG', true, expect.stringMatching(/^trust_/)],
      ['kyc', 'US', true, w.attestations.kyc],
      ['aml', 'US', true, w.attestations.aml],
      ['title_verification', 'US', true, w.attestations.title_verification],
      ['kyc', 'SG', true, w.attestations.kyc],
      ['aml', 'SG', true, w.attestations.aml],
      ['investor_qualification', 'SG', true, w.attestations.investor_qualification],
    ])

    // The proof is fetchable by its id and verifies against the published JWKS.
    const proof = proofSchema.parse(await expectStatus(h.get(`/console/rwa/proofs/${t.proof_id}`), 200))
    expect(proof).toMatchObject({
      proof_id: t.proof_id,
      transfer_id: t.transfer_id,
      token_id: w.tokenId,
      decision: 'approved',
      evaluated_at: t.created_at,
      compliance_details: t.compliance_details,
      transfer: {
        from_jurisdiction: 'US',
        to_jurisdiction: 'SG',
        sender_did: OWNER,
        recipient_did: RECIPIENT,
        amount: 100,
      },
    })
    const jwks = jwksSchema.parse(
      await expectStatus(h.get('/console/rwa/.well-known/jwks.json', { key: null }), 200),
    )
    // The JWKS also publishes the audit log's checkpoint key (docs/governance.md, "The verifiable log"); the
    // proof names its own.
    expect(jwks.keys.map((k) => k.kid)).toContain(proof.kid)
    expect(await verifyProof(proof, jwks)).toEqual({ valid: true, kid: proof.kid })

    // Holdings moved; the sum is still the total supply.
    expect(await holdingsOf(w.tokenId)).toEqual([
      { holder_did: OWNER, jurisdiction: 'US', amount: 900 },
      { holder_did: RECIPIENT, jurisdiction: 'SG', amount: 100 },
    ])
    expect(h.loggedErrors).toEqual([])
  })

  it('records a rejected transfer with a proof, moves nothing, and says which check failed', async () => {
    await expectStatus(
      h.request('DELETE', '/console/rwa/jurisdictions/trust', {
        body: { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
      }),
      200,
    )
    const t = transferSchema.parse(
      await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId)), 201),
    )
    expect(t.status).toBe('rejected')
    expect(t.compliance_details.all_satisfied).toBe(false)
    const failed = t.compliance_details.checks.filter((c) => !c.satisfied)
    // Without trust, SG neither allows the transfer nor recognises US attestations.
    expect(failed.map((c) => `${c.requirement}@${c.jurisdiction}`)).toEqual([
      'trust@SG',
      'kyc@SG',
      'aml@SG',
      'investor_qualification@SG',
    ])
    expect(failed[0]!.reason).toBe('no trust relation from US to SG: transfers between them are not allowed')
    expect(failed[1]!.reason).toContain(`was issued by US, which SG does not recognise`)
    const proof = await expectStatus(h.get(`/console/rwa/proofs/${t.proof_id}`), 200)
    expect(proof.decision).toBe('rejected')
    expect(await holdingsOf(w.tokenId)).toEqual([{ holder_did: OWNER, jurisdiction: 'US', amount: 1000 }])
  })

  it('refuses an amount above the sender holding with 409 and records nothing', async () => {
    const res = await h.post('/console/rwa/transfers', transferBody(w.tokenId, 1001))
    expect(res.status).toBe(409)
    expect(res.body.code).toBe('conflict')
    expect(res.body.detail).toBe(
      `Insufficient holding: ${OWNER} holds 1000 of ${w.tokenId} in US, fewer than the 1001 requested`,
    )
    const other = await h.post(
      '/console/rwa/transfers',
      transferBody(w.tokenId, 1, { sender_did: RECIPIENT }),
    )
    expect(other.status).toBe(409)
    const list = await expectStatus(h.get('/console/rwa/transfers'), 200)
    expect(list.total).toBe(0)
    const token = tokenDetailSchema.parse(await expectStatus(h.get(`/console/rwa/tokens/${w.tokenId}`), 200))
    expect(token.governance_history.map((e) => e.event)).toEqual(['tokenized'])
  })

  it('lets the recipient send on from the target jurisdiction with sender_did', async () => {
    await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 300)), 201)
    // SG → SG: same jurisdiction, no trust needed; SG's own requirements use the recognised US attestations.
    const back = await expectStatus(
      h.post('/console/rwa/transfers', {
        token_id: w.tokenId,
        from_jurisdiction: 'SG',
        to_jurisdiction: 'SG',
        recipient_did: RECIPIENT,
        sender_did: RECIPIENT,
        amount: 50,
      }),
      201,
    )
    expect(back.status).toBe('approved')
    expect(back.compliance_details.checks.find((c: any) => c.requirement === 'trust').reason).toBe(
      'same-jurisdiction transfer within SG: no trust relation needed',
    )
    expect(await holdingsOf(w.tokenId)).toEqual([
      { holder_did: OWNER, jurisdiction: 'US', amount: 700 },
      { holder_did: RECIPIENT, jurisdiction: 'SG', amount: 300 },
    ])
  })

  it('answers 404 for an unknown token or jurisdiction and 400 naming a bad field', async () => {
    const unknownToken = await h.post('/console/rwa/transfers', transferBody('tok_nope'))
    expect(unknownToken.status).toBe(404)
    expect(unknownToken.body.detail).toBe('No token with id tok_nope')
    const unknownTarget = await h.post('/console/rwa/transfers', {
      ...transferBody(w.tokenId),
      to_jurisdiction: 'JP',
    })
    expect(unknownTarget.status).toBe(404)
    expect(unknownTarget.body.detail).toBe('No jurisdiction with id JP')
    for (const [field, value] of [
      ['amount', 0],
      ['amount', 1.5],
      ['recipient_did', 'bob'],
      ['token_id', 'cred_x'],
    ] as const) {
      const res = await h.post('/console/rwa/transfers', { ...transferBody(w.tokenId), [field]: value })
      expect(res.status, field).toBe(400)
      expect(res.body.errors.map((e: any) => e.path)).toEqual([field])
    }
    const extra = await h.post('/console/rwa/transfers', { ...transferBody(w.tokenId), memo: 'x' })
    expect(extra.status).toBe(400)
    expect(extra.body.errors).toEqual([{ path: 'memo', message: 'Unknown field' }])
  })

  it('rejects once an attestation has expired, citing when', async () => {
    const att = await expectStatus(
      h.post('/console/rwa/attestations', {
        jurisdiction: 'SG',
        subject_did: 'did:web:lion:carol',
        type: 'kyc',
        attester: 'MAS KYC',
        valid_until: '2026-01-20T00:00:00.000Z',
      }),
      201,
    )
    for (const type of ['aml', 'investor_qualification']) {
      await expectStatus(
        h.post('/console/rwa/attestations', {
          jurisdiction: 'SG',
          subject_did: 'did:web:lion:carol',
          type,
          attester: 'MAS KYC',
        }),
        201,
      )
    }
    const body = { ...transferBody(w.tokenId, 10), to_jurisdiction: 'US', from_jurisdiction: 'US' }
    // US requires kyc, aml, title: carol's SG attestations are not recognised by US (no SG → US trust).
    const notRecognised = await expectStatus(
      h.post('/console/rwa/transfers', { ...body, recipient_did: 'did:web:lion:carol' }),
      201,
    )
    expect(notRecognised.status).toBe('rejected')
    const toSg = { ...transferBody(w.tokenId, 10), recipient_did: 'did:web:lion:carol' }
    // Carol holds SG attestations, but US (source) requires kyc and aml it recognises: rejected as well.
    expect((await expectStatus(h.post('/console/rwa/transfers', toSg), 201)).status).toBe('rejected')
    // Mutual trust makes US recognise SG attestations: approved before expiry, rejected after.
    await expectStatus(
      h.request('DELETE', '/console/rwa/jurisdictions/trust', {
        query: { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
      }),
      200,
    )
    await expectStatus(
      h.post('/console/rwa/jurisdictions/trust', {
        from_jurisdiction: 'SG',
        to_jurisdiction: 'US',
        mutual: true,
      }),
      201,
    )
    expect((await expectStatus(h.post('/console/rwa/transfers', toSg), 201)).status).toBe('approved')
    h.clock.advance(5 * DAY_MS)
    const late = await expectStatus(h.post('/console/rwa/transfers', toSg), 201)
    expect(late.status).toBe('rejected')
    expect(late.compliance_details.checks.filter((c: any) => !c.satisfied).map((c: any) => c.reason)).toEqual(
      [
        `kyc attestation ${att.attestation_id} of recipient did:web:lion:carol expired at 2026-01-20T00:00:00.000Z`,
        `kyc attestation ${att.attestation_id} of recipient did:web:lion:carol expired at 2026-01-20T00:00:00.000Z`,
      ],
    )
  })
})

describe('GET /console/rwa/transfers and /transfers/{id}', () => {
  it('lists newest first with filters and cursor paging, and shows the proof in the detail', async () => {
    const a = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 1)), 201)
    const b = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 2)), 201)
    await expectStatus(
      h.request('DELETE', '/console/rwa/jurisdictions/trust', {
        body: { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
      }),
      200,
    )
    const c = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 3)), 201)

    const all = await expectStatus(h.get('/console/rwa/transfers'), 200)
    expect(all.transfers.map((t: any) => t.transfer_id)).toEqual([
      c.transfer_id,
      b.transfer_id,
      a.transfer_id,
    ])
    expect(all).toMatchObject({ total: 3, next_cursor: null })

    const first = await expectStatus(h.get('/console/rwa/transfers', { query: { limit: 2 } }), 200)
    expect(first.transfers.map((t: any) => t.transfer_id)).toEqual([c.transfer_id, b.transfer_id])
    expect(first.next_cursor).toBe(b.transfer_id)
    const second = await expectStatus(
      h.get('/console/rwa/transfers', { query: { limit: 2, cursor: first.next_cursor } }),
      200,
    )
    expect(second.transfers.map((t: any) => t.transfer_id)).toEqual([a.transfer_id])
    expect(second).toMatchObject({ total: 3, next_cursor: null })

    const rejected = await expectStatus(
      h.get('/console/rwa/transfers', { query: { status: 'rejected' } }),
      200,
    )
    expect(rejected.transfers.map((t: any) => t.transfer_id)).toEqual([c.transfer_id])
    const byToken = await expectStatus(
      h.get('/console/rwa/transfers', { query: { token_id: w.tokenId } }),
      200,
    )
    expect(byToken.total).toBe(3)
    const bySg = await expectStatus(h.get('/console/rwa/transfers', { query: { jurisdiction: 'SG' } }), 200)
    expect(bySg.total).toBe(3)
    const unknown = await expectStatus(
      h.get('/console/rwa/transfers', { query: { token_id: 'tok_nope' } }),
      200,
    )
    expect(unknown).toEqual({ transfers: [], total: 0, next_cursor: null })
    const elsewhere = await expectStatus(
      h.get('/console/rwa/transfers', { query: { jurisdiction: 'JP' } }),
      200,
    )
    expect(elsewhere.total).toBe(0)

    const detail = transferDetailSchema.parse(
      await expectStatus(h.get(`/console/rwa/transfers/${a.transfer_id}`), 200),
    )
    expect(detail).toMatchObject(a)
    expect(detail.proof.proof_id).toBe(a.proof_id)
    expect(detail.proof).toEqual(await expectStatus(h.get(`/console/rwa/proofs/${a.proof_id}`), 200))
  })

  it('validates limit, status and ids', async () => {
    for (const query of [{ limit: 0 }, { limit: 501 }, { status: 'pending' }, { foo: 'x' }]) {
      const res = await h.get('/console/rwa/transfers', { query })
      expect(res.status, JSON.stringify(query)).toBe(400)
    }
    expect((await h.get('/console/rwa/transfers/tx_nope')).status).toBe(404)
    expect((await h.get('/console/rwa/transfers/nope')).status).toBe(400)
    expect((await h.get('/console/rwa/proofs/prf_nope')).status).toBe(404)
  })
})

describe('GET /console/rwa/tokens/{id}', () => {
  it('shows every governance event oldest first: tokenized, transfers, credential revoked', async () => {
    const ok = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 10)), 201)
    await expectStatus(
      h.post(`/console/rwa/credentials/${w.credentialId}/revoke`, { reason: 'title dispute' }),
      200,
    )
    const no = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 10)), 201)
    expect(no.status).toBe('rejected')
    const token = tokenDetailSchema.parse(await expectStatus(h.get(`/console/rwa/tokens/${w.tokenId}`), 200))
    expect(token.status).toBe('frozen')
    expect(token.governance_history.map((e) => e.event)).toEqual([
      'tokenized',
      'transfer_approved',
      'credential_revoked',
      'transfer_rejected',
    ])
    expect(token.governance_history[0]!.details).toEqual({
      credential_id: w.credentialId,
      total_supply: 1000,
      holder_did: OWNER,
      jurisdiction: 'US',
      actor_key_id: expect.stringMatching(/^key_/),
    })
    expect(token.governance_history[1]!.details).toMatchObject({
      transfer_id: ok.transfer_id,
      proof_id: ok.proof_id,
      amount: 10,
    })
    expect(token.governance_history[2]!.details).toEqual({
      credential_id: w.credentialId,
      reason: 'title dispute',
      token_status: 'frozen',
      actor_key_id: expect.stringMatching(/^key_/),
    })
    expect(token.governance_history[3]!.details.reasons).toEqual([
      `token ${w.tokenId} is frozen and cannot be transferred`,
      expect.stringMatching(
        new RegExp(`^credential ${w.credentialId} was revoked at .* \\(title dispute\\)$`),
      ),
    ])
    expect(token.governance_history[3]!.at).toBe('2026-01-15T12:00:00.000Z')
  })
})
