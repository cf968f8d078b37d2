import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DAY_MS } from '../../../server/platform/clock.js'
import {
  canTransferResponseSchema,
  freezeStateSchema,
  jwksSchema,
  proofSchema,
  recoveryResultSchema,
  tokenDetailSchema,
  transferSchema,
} from '../../../src/contract/rwa.js'
import { verifyProof } from '../../../src/proof/verify.js'
import {
  buildWorld,
  expectStatus,
  OWNER,
  RECIPIENT,
  transferBody,
  type World,
} from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
let w: World
beforeEach(async () => {
  h = await createHarness()
  w = await buildWorld(h)
})
afterEach(() => h.close())

const CAROL = 'did:web:lion:carol'
const tok = (path = '') => `/console/rwa/tokens/${w.tokenId}${path}`
const token = async () => tokenDetailSchema.parse(await expectStatus(h.get(tok()), 200))
const holdings = async () =>
  Object.fromEntries(
    (await token()).holdings.map((x) => [
      `${x.holder_did}@${x.jurisdiction}`,
      [x.amount, x.frozen_amount, x.frozen],
    ]),
  )
/** kyc of `did` issued in SG (recognised by SG itself). */
const kycInSG = (did: string) =>
  expectStatus(
    h.post('/console/rwa/attestations', {
      jurisdiction: 'SG',
      subject_did: did,
      type: 'kyc',
      attester: 'KYC Co',
    }),
    201,
  )

describe('pause and unpause', () => {
  it('a paused token refuses every transfer (recorded, token_active "token is paused"); unpaused it moves again', async () => {
    const paused = tokenDetailSchema.parse(
      await expectStatus(h.post(tok('/pause'), { reason: 'corporate action' }), 200),
    )
    expect(paused.status).toBe('paused')
    expect(paused.governance_history.at(-1)).toEqual({
      event: 'token_paused',
      at: '2026-01-15T12:00:00.000Z',
      details: { reason: 'corporate action', actor_key_id: expect.stringMatching(/^key_/) },
    })
    const refused = transferSchema.parse(
      await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId)), 201),
    )
    expect(refused.status).toBe('rejected')
    expect(refused.compliance_details.checks.filter((c) => !c.satisfied).map((c) => c.reason)).toEqual([
      `token is paused: ${w.tokenId} refuses every transfer until an agent unpauses it`,
    ])
    expect((await h.post(tok('/pause'))).body).toMatchObject({
      status: 409,
      detail: `Token ${w.tokenId} is already paused`,
    })
    expect((await token()).status).toBe('paused')

    const active = await expectStatus(h.post(tok('/unpause')), 200)
    expect(active.status).toBe('active')
    expect(active.governance_history.at(-1)).toMatchObject({
      event: 'token_unpaused',
      details: { reason: null },
    })
    expect((await h.post(tok('/unpause'))).status).toBe(409)
    const ok = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId)), 201)
    expect(ok.status).toBe('approved')
    // The list filter knows the status.
    await expectStatus(h.post(tok('/pause')), 200)
    expect(
      (await expectStatus(h.get('/console/rwa/tokens', { query: { status: 'paused' } }), 200)).total,
    ).toBe(1)
  })

  it('a token frozen by its revoked credential can be neither paused nor unpaused (409)', async () => {
    await expectStatus(h.post(`/console/rwa/credentials/${w.credentialId}/revoke`), 200)
    for (const action of ['/pause', '/unpause']) {
      const res = await h.post(tok(action))
      expect(res.status).toBe(409)
      expect(res.body.detail).toContain('is frozen because its credential')
    }
  })

  it('validates the optional body and answers 404 for an unknown token', async () => {
    const bad = await h.post(tok('/pause'), { reason: '', extra: 1 })
    expect(bad.status).toBe(400)
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'reason'])
    expect((await h.post('/console/rwa/tokens/tok_nope/pause')).status).toBe(404)
    expect((await h.post('/console/rwa/tokens/cred_x/pause')).status).toBe(400)
  })
})

describe('freeze and unfreeze', () => {
  it('a frozen holder can neither send nor receive: holder_not_frozen fails, recorded', async () => {
    const state = freezeStateSchema.parse(
      await expectStatus(h.post(tok('/freeze'), { holder_did: RECIPIENT, reason: 'sanctions hit' }), 200),
    )
    // A whole-holder freeze may precede any holding.
    expect(state).toEqual({ token_id: w.tokenId, holder_did: RECIPIENT, frozen: true, holdings: [] })
    const toFrozen = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId)), 201)
    expect(toFrozen.status).toBe('rejected')
    expect(
      toFrozen.compliance_details.checks.find((c: { satisfied: boolean }) => !c.satisfied),
    ).toMatchObject({
      requirement: 'holder_not_frozen',
      evidence: RECIPIENT,
    })
    expect((await token()).frozen_holders).toEqual([RECIPIENT])
    expect((await h.post(tok('/freeze'), { holder_did: RECIPIENT })).status).toBe(409)

    await expectStatus(h.post(tok('/unfreeze'), { holder_did: RECIPIENT }), 200)
    expect((await h.post(tok('/unfreeze'), { holder_did: RECIPIENT })).status).toBe(409)
    await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 100)), 201)
    // The sender side: freeze the owner.
    await expectStatus(h.post(tok('/freeze'), { holder_did: OWNER }), 200)
    const fromFrozen = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId)), 201)
    expect(fromFrozen.status).toBe('rejected')
    expect(await holdings()).toEqual({
      [`${OWNER}@US`]: [900, 0, true],
      [`${RECIPIENT}@SG`]: [100, 0, false],
    })
    const history = (await token()).governance_history.map((e) => e.event)
    expect(history).toEqual(expect.arrayContaining(['holder_frozen', 'holder_unfrozen']))
  })

  it('frozen units: only the rest moves; needing frozen units is a rejection with unfrozen_balance', async () => {
    const state = await expectStatus(
      h.post(tok('/freeze'), {
        holder_did: OWNER,
        jurisdiction: 'US',
        amount: 600,
        reason: 'court order 12',
      }),
      200,
    )
    expect(state.holdings).toEqual([
      { holder_did: OWNER, jurisdiction: 'US', amount: 1000, frozen_amount: 600, frozen: false },
    ])
    const tooMuch = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 401)), 201)
    expect(tooMuch.status).toBe('rejected')
    expect(tooMuch.compliance_details.checks.filter((c: { satisfied: boolean }) => !c.satisfied)).toEqual([
      {
        requirement: 'unfrozen_balance',
        jurisdiction: 'US',
        satisfied: false,
        evidence: 'frozen_amount=600',
        reason:
          "600 of the sender's 1000 units in US are frozen: only 400 can be sent, 1 fewer than the 401 requested",
      },
    ])
    expect(
      (await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 400)), 201)).status,
    ).toBe('approved')
    expect(await holdings()).toEqual({
      [`${OWNER}@US`]: [600, 600, false],
      [`${RECIPIENT}@SG`]: [400, 0, false],
    })
    // More than the holding is still a 409 that records nothing.
    expect((await h.post('/console/rwa/transfers', transferBody(w.tokenId, 601))).status).toBe(409)

    // Freezing more than the holding, or unfreezing more than is frozen, is 409; a missing holding 404.
    expect((await h.post(tok('/freeze'), { holder_did: OWNER, jurisdiction: 'US', amount: 1 })).status).toBe(
      409,
    )
    expect(
      (await h.post(tok('/unfreeze'), { holder_did: OWNER, jurisdiction: 'US', amount: 601 })).status,
    ).toBe(409)
    expect((await h.post(tok('/freeze'), { holder_did: OWNER, jurisdiction: 'SG', amount: 1 })).status).toBe(
      404,
    )
    const after = await expectStatus(
      h.post(tok('/unfreeze'), { holder_did: OWNER, jurisdiction: 'US', amount: 100 }),
      200,
    )
    expect(after.holdings[0].frozen_amount).toBe(500)
    expect((await token()).governance_history.at(-1)).toMatchObject({
      event: 'units_unfrozen',
      details: { holder_did: OWNER, jurisdiction: 'US', amount: 100, frozen_amount: 500, reason: null },
    })
  })

  it('validates: amount needs a jurisdiction, a jurisdiction needs an amount, DIDs and amounts are checked', async () => {
    for (const [body, path] of [
      [{ holder_did: OWNER, amount: 5 }, 'jurisdiction'],
      [{ holder_did: OWNER, jurisdiction: 'US' }, 'jurisdiction'],
      [{ holder_did: 'bob' }, 'holder_did'],
      [{ holder_did: OWNER, jurisdiction: 'US', amount: 0 }, 'amount'],
      [{}, 'holder_did'],
    ] as const) {
      const res = await h.post(tok('/freeze'), body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path)
    }
  })
})

describe('holdings', () => {
  it('lists holdings with amount, frozen_amount and frozen, by holder then jurisdiction, a page at a time', async () => {
    await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 100)), 201)
    await expectStatus(
      h.post('/console/rwa/transfers', transferBody(w.tokenId, 50, { to_jurisdiction: 'US' })),
      201,
    )
    await expectStatus(h.post(tok('/freeze'), { holder_did: RECIPIENT }), 200)
    const first = await expectStatus(h.get(tok('/holdings'), { query: { limit: 2 } }), 200)
    expect(first.total).toBe(3)
    expect(first.holdings).toEqual([
      { holder_did: OWNER, jurisdiction: 'US', amount: 850, frozen_amount: 0, frozen: false },
      { holder_did: RECIPIENT, jurisdiction: 'SG', amount: 100, frozen_amount: 0, frozen: true },
    ])
    const second = await expectStatus(
      h.get(tok('/holdings'), { query: { limit: 2, cursor: first.next_cursor } }),
      200,
    )
    expect(second).toEqual({
      holdings: [{ holder_did: RECIPIENT, jurisdiction: 'US', amount: 50, frozen_amount: 0, frozen: true }],
      total: 3,
      next_cursor: null,
    })
    const filtered = await expectStatus(
      h.get(tok('/holdings'), { query: { holder_did: RECIPIENT, jurisdiction: 'US' } }),
      200,
    )
    expect(filtered.total).toBe(1)
    const bad = await h.get(tok('/holdings'), { query: { cursor: 'not-a-cursor' } })
    expect(bad.status).toBe(400)
    expect(bad.body.errors).toEqual([{ path: 'cursor', message: 'not a cursor this list returned' }])
    expect((await h.get('/console/rwa/tokens/tok_nope/holdings')).status).toBe(404)
  })
})

describe('forced transfer', () => {
  it('moves units by authority past pause, freezes and rules; status forced; the proof names the reason and verifies', async () => {
    await kycInSG(CAROL)
    await expectStatus(h.post(tok('/freeze'), { holder_did: OWNER, jurisdiction: 'US', amount: 900 }), 200)
    await expectStatus(h.post(tok('/freeze'), { holder_did: OWNER }), 200)
    await expectStatus(
      h.request('PUT', tok('/rules'), {
        body: { max_transfer_amount: 1, lockup_until: '2030-01-01T00:00:00Z' },
      }),
      200,
    )
    await expectStatus(h.post(tok('/pause')), 200)

    const res = await h.post(tok('/forced-transfer'), {
      from_did: OWNER,
      from_jurisdiction: 'US',
      to_did: CAROL,
      to_jurisdiction: 'SG',
      amount: 300,
      reason: 'court order 2026-77',
    })
    expect(res.status).toBe(201)
    const t = transferSchema.parse(res.body)
    expect(t).toMatchObject({
      status: 'forced',
      sender_did: OWNER,
      recipient_did: CAROL,
      amount: 300,
      reason: 'court order 2026-77',
      compliance_details: { source_requirements: [], target_requirements: ['kyc'], all_satisfied: true },
    })
    // 100 unfrozen units first, then 200 of the frozen ones (which stop being frozen).
    expect(await holdings()).toEqual({ [`${OWNER}@US`]: [700, 700, true], [`${CAROL}@SG`]: [300, 0, false] })
    const proof = proofSchema.parse(await expectStatus(h.get(`/console/rwa/proofs/${t.proof_id}`), 200))
    expect(proof).toMatchObject({
      decision: 'forced',
      reason: 'court order 2026-77',
      transfer_id: t.transfer_id,
    })
    const jwks = jwksSchema.parse((await h.get('/console/rwa/.well-known/jwks.json', { key: null })).body)
    expect(await verifyProof(proof, jwks)).toEqual({ valid: true, kid: proof.kid })
    expect((await token()).governance_history.at(-1)).toMatchObject({
      event: 'transfer_forced',
      details: { unfrozen_units_taken: 100, frozen_units_taken: 200, reason: 'court order 2026-77' },
    })
    const listed = await expectStatus(h.get('/console/rwa/transfers', { query: { status: 'forced' } }), 200)
    expect(listed.transfers.map((x: { transfer_id: string }) => x.transfer_id)).toEqual([t.transfer_id])
  })

  it('needs a valid kyc of the recipient recognised by the target (422, nothing moves) and the units (409)', async () => {
    const body = {
      from_did: OWNER,
      from_jurisdiction: 'US',
      to_did: CAROL,
      to_jurisdiction: 'SG',
      amount: 10,
      reason: 'order',
    }
    const noKyc = await h.post(tok('/forced-transfer'), body)
    expect(noKyc.status).toBe(422)
    expect(noKyc.body.detail).toContain(`no kyc attestation of recipient ${CAROL} recognised by SG`)
    // kyc issued in SG is not recognised by US (no trust SG → US).
    await kycInSG(CAROL)
    expect((await h.post(tok('/forced-transfer'), { ...body, to_jurisdiction: 'US' })).status).toBe(422)
    expect((await h.post(tok('/forced-transfer'), { ...body, amount: 1001 })).status).toBe(409)
    expect((await h.post(tok('/forced-transfer'), { ...body, from_jurisdiction: 'JP' })).status).toBe(404)
    const missing = await h.post(tok('/forced-transfer'), { ...body, reason: undefined })
    expect(missing.status).toBe(400)
    expect(missing.body.errors.map((e: { path: string }) => e.path)).toEqual(['reason'])
    expect(await holdings()).toEqual({ [`${OWNER}@US`]: [1000, 0, false] })
    expect((await expectStatus(h.get('/console/rwa/transfers'), 200)).total).toBe(0)
  })
})

describe('recovery', () => {
  it('moves every holding and its frozen state to the new DID, with a verifiable proof', async () => {
    const NEW = 'did:web:lion:bob2'
    await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 100)), 201)
    await expectStatus(
      h.post('/console/rwa/transfers', transferBody(w.tokenId, 40, { to_jurisdiction: 'US' })),
      201,
    )
    await expectStatus(h.post(tok('/freeze'), { holder_did: RECIPIENT, jurisdiction: 'SG', amount: 30 }), 200)
    await expectStatus(h.post(tok('/freeze'), { holder_did: RECIPIENT }), 200)

    const body = { lost_did: RECIPIENT, new_did: NEW, reason: 'lost keys, ticket 881' }
    // The new DID needs kyc recognised in US and in SG.
    await expectStatus(
      h.post('/console/rwa/attestations', {
        jurisdiction: 'US',
        subject_did: NEW,
        type: 'kyc',
        attester: 'KYC Co',
      }),
      201,
    )
    await expectStatus(
      h.request('DELETE', '/console/rwa/jurisdictions/trust', {
        body: { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
      }),
      200,
    )
    const unrecognised = await h.post(tok('/recover'), body)
    expect(unrecognised.status).toBe(422)
    expect(unrecognised.body.detail).toContain('which SG does not recognise')
    await expectStatus(
      h.post('/console/rwa/jurisdictions/trust', { from_jurisdiction: 'US', to_jurisdiction: 'SG' }),
      201,
    )

    const r = recoveryResultSchema.parse(await expectStatus(h.post(tok('/recover'), body), 200))
    expect(r).toEqual({
      lost_did: RECIPIENT,
      new_did: NEW,
      moved: [
        { holder_did: NEW, jurisdiction: 'SG', amount: 100, frozen_amount: 30, frozen: true },
        { holder_did: NEW, jurisdiction: 'US', amount: 40, frozen_amount: 0, frozen: true },
      ],
      proof_id: expect.stringMatching(/^prf_/),
      log_index: expect.any(Number),
    })
    expect(await holdings()).toEqual({
      [`${OWNER}@US`]: [860, 0, false],
      [`${NEW}@SG`]: [100, 30, true],
      [`${NEW}@US`]: [40, 0, true],
    })
    expect((await token()).frozen_holders).toEqual([NEW])
    const proof = proofSchema.parse(await expectStatus(h.get(`/console/rwa/proofs/${r.proof_id}`), 200))
    expect(proof).toMatchObject({
      decision: 'recovered',
      reason: 'lost keys, ticket 881',
      recovery: { lost_did: RECIPIENT, new_did: NEW },
    })
    expect(proof.transfer_id).toBeUndefined()
    expect(proof.log_index).toBe(r.log_index)
    const jwks = jwksSchema.parse((await h.get('/console/rwa/.well-known/jwks.json', { key: null })).body)
    expect(await verifyProof(proof, jwks)).toEqual({ valid: true, kid: proof.kid })
    // Nothing left to recover.
    expect((await h.post(tok('/recover'), body)).status).toBe(409)
  })

  it('refuses the same DID (400) and an unknown token (404)', async () => {
    const same = await h.post(tok('/recover'), { lost_did: RECIPIENT, new_did: RECIPIENT, reason: 'x' })
    expect(same.status).toBe(400)
    expect(same.body.errors).toEqual([{ path: 'new_did', message: 'must differ from lost_did' }])
    expect(
      (await h.post('/console/rwa/tokens/tok_nope/recover', { lost_did: OWNER, new_did: CAROL, reason: 'x' }))
        .status,
    ).toBe(404)
  })
})

describe('transfer rules', () => {
  it('PUT replaces the whole rules object, shows it in the token, and records rules_updated with who and why', async () => {
    const set = await expectStatus(
      h.request('PUT', tok('/rules'), {
        body: { max_transfer_amount: 100, max_holders: { SG: 5 }, reason: 'prospectus' },
      }),
      200,
    )
    expect(set.rules).toEqual({
      max_balance_per_holder: null,
      max_holders: { SG: 5 },
      lockup_until: null,
      max_transfer_amount: 100,
      daily_volume_per_holder: null,
      min_holding: null,
      transfer_windows: null,
      lockup_days_after_receipt: null,
      max_supply: null,
      country_allow: null,
      country_deny: null,
      max_holders_per_country: null,
      max_ownership_percent: null,
      allowed_categories: null,
    })
    expect(set.governance_history.at(-1)).toMatchObject({
      event: 'rules_updated',
      details: { reason: 'prospectus', actor_key_id: expect.stringMatching(/^key_/), rules: set.rules },
    })
    const replaced = await expectStatus(
      h.request('PUT', tok('/rules'), { body: { lockup_until: '2026-02-01T00:00:00+01:00' } }),
      200,
    )
    expect(replaced.rules).toMatchObject({
      max_transfer_amount: null,
      max_holders: null,
      lockup_until: '2026-01-31T23:00:00.000Z',
    })
    const bad = await h.request('PUT', tok('/rules'), {
      body: { max_transfer_amount: 0, max_holders: { 'no way': 1 }, extra: 1 },
    })
    expect(bad.status).toBe(400)
    expect((await h.request('PUT', '/console/rwa/tokens/tok_nope/rules', { body: {} })).status).toBe(404)
  })

  it('a refused transfer names the rule and by how much; approved transfers keep within every rule', async () => {
    await expectStatus(
      h.request('PUT', tok('/rules'), {
        body: {
          max_balance_per_holder: 250,
          daily_volume_per_holder: 300,
          lockup_until: '2026-01-16T00:00:00Z',
        },
      }),
      200,
    )
    const locked = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 10)), 201)
    expect(
      locked.compliance_details.checks
        .filter((c: { satisfied: boolean }) => !c.satisfied)
        .map((c: { reason: string }) => c.reason),
    ).toEqual([
      'token is locked up until 2026-01-16T00:00:00.000Z (12h left): only forced transfers move it before then',
    ])
    h.clock.set('2026-01-16T00:00:00Z')
    expect(
      (await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 250)), 201)).status,
    ).toBe('approved')
    const over = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 1)), 201)
    expect(
      over.compliance_details.checks
        .filter((c: { satisfied: boolean }) => !c.satisfied)
        .map((c: { requirement: string; reason: string }) => [c.requirement, c.reason]),
    ).toEqual([
      [
        'rule:max_balance_per_holder',
        `recipient ${RECIPIENT} would hold 251 of ${w.tokenId} across jurisdictions, over max_balance_per_holder 250 by 1`,
      ],
    ])
    await expectStatus(
      h.post('/console/rwa/attestations', {
        jurisdiction: 'US',
        subject_did: CAROL,
        type: 'kyc',
        attester: 'x',
      }),
      201,
    )
    for (const type of ['aml', 'investor_qualification']) {
      await expectStatus(
        h.post('/console/rwa/attestations', { jurisdiction: 'US', subject_did: CAROL, type, attester: 'x' }),
        201,
      )
    }
    expect(
      (
        await expectStatus(
          h.post('/console/rwa/transfers', transferBody(w.tokenId, 50, { recipient_did: CAROL })),
          201,
        )
      ).status,
    ).toBe('approved')
    const daily = await expectStatus(
      h.post('/console/rwa/transfers', transferBody(w.tokenId, 1, { recipient_did: CAROL })),
      201,
    )
    expect(daily.compliance_details.checks.find((c: { satisfied: boolean }) => !c.satisfied).reason).toBe(
      `sender ${OWNER}'s approved volume on 2026-01-16 would be 301 (300 before this transfer), over daily_volume_per_holder 300 by 1`,
    )
    // The next UTC day the volume starts again.
    h.clock.advance(DAY_MS)
    expect(
      (
        await expectStatus(
          h.post('/console/rwa/transfers', transferBody(w.tokenId, 1, { recipient_did: CAROL })),
          201,
        )
      ).status,
    ).toBe('approved')
  })
})

describe('can-transfer', () => {
  it('evaluates without recording anything; over the holding is allowed: false with sufficient_holding failing', async () => {
    const query = { from_jurisdiction: 'US', to_jurisdiction: 'SG', recipient_did: RECIPIENT, amount: 100 }
    const ok = canTransferResponseSchema.parse(
      await expectStatus(h.get(tok('/can-transfer'), { query }), 200),
    )
    expect(ok.allowed).toBe(true)
    const over = canTransferResponseSchema.parse(
      await expectStatus(h.get(tok('/can-transfer'), { query: { ...query, amount: 1001 } }), 200),
    )
    expect(over.allowed).toBe(false)
    expect(over.compliance_details.checks.filter((c) => !c.satisfied).map((c) => c.requirement)).toEqual([
      'sufficient_holding',
    ])
    await expectStatus(h.post(tok('/pause')), 200)
    const paused = await expectStatus(h.get(tok('/can-transfer'), { query }), 200)
    expect(paused.allowed).toBe(false)
    // Nothing recorded: no transfer, no proof, no history event besides the pause.
    expect((await expectStatus(h.get('/console/rwa/transfers'), 200)).total).toBe(0)
    expect((await token()).governance_history.map((e) => e.event)).toEqual(['tokenized', 'token_paused'])
    expect((await h.get(tok('/can-transfer'), { query: { ...query, amount: 'x' } })).status).toBe(400)
    expect((await h.get(tok('/can-transfer'), { query: { ...query, to_jurisdiction: 'JP' } })).status).toBe(
      404,
    )
    expect((await h.get('/console/rwa/tokens/tok_nope/can-transfer', { query })).status).toBe(404)
  })
})

describe('history and summaries (docs/governance.md, "Tokens")', () => {
  it('the token detail carries the latest 100 events and the total; /history pages through all, oldest first', async () => {
    for (let i = 0; i < 60; i++) {
      await expectStatus(h.post(tok('/pause'), { reason: `p${i}` }), 200)
      await expectStatus(h.post(tok('/unpause'), { reason: `u${i}` }), 200)
    }
    const detail = await token()
    expect(detail.governance_history_total).toBe(121)
    expect(detail.governance_history).toHaveLength(100)
    expect(detail.governance_history[0]!.details.reason).toBe('p10')
    expect(detail.governance_history.at(-1)!.details.reason).toBe('u59')
    const seen: unknown[] = []
    let cursor: string | null | undefined
    do {
      const page = await expectStatus(
        h.get(tok('/history'), { query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
        200,
      )
      expect(page.total).toBe(121)
      seen.push(...page.governance_history)
      cursor = page.next_cursor
    } while (cursor)
    expect(seen).toHaveLength(121)
    expect((seen[0] as { event: string }).event).toBe('tokenized')
    expect(seen.slice(21)).toEqual(detail.governance_history)
    expect((await h.get(tok('/history'), { query: { limit: 0 } })).status).toBe(400)
    expect((await h.get('/console/rwa/tokens/tok_nope/history')).status).toBe(404)
  })

  it('transfer list items are summaries: the spec three compliance fields, no checks', async () => {
    const t = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 5)), 201)
    const list = await expectStatus(h.get('/console/rwa/transfers'), 200)
    expect(list.transfers).toEqual([
      {
        transfer_id: t.transfer_id,
        status: 'approved',
        proof_id: t.proof_id,
        compliance_details: {
          source_requirements: ['kyc', 'aml', 'title_verification'],
          target_requirements: ['kyc', 'aml', 'investor_qualification'],
          all_satisfied: true,
        },
        token_id: w.tokenId,
        from_jurisdiction: 'US',
        to_jurisdiction: 'SG',
        sender_did: OWNER,
        recipient_did: RECIPIENT,
        amount: 5,
        created_at: t.created_at,
      },
    ])
    const detail = await expectStatus(h.get(`/console/rwa/transfers/${t.transfer_id}`), 200)
    expect(detail.compliance_details.checks.length).toBeGreaterThan(0)
    expect(detail.reason).toBeNull()
  })
})
