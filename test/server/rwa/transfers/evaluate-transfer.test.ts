import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { NO_RULES } from '../../../../src/contract/rwa.js'
import {
  type AttestationFacts,
  evaluateTransfer,
  type LedgerFacts,
  recognisedIssuers,
  trustBetween,
  type TransferFacts,
} from '../../../../server/areas/rwa/transfers/evaluate-transfer.js'

const NOW = '2026-03-01T00:00:00.000Z'
const BOB = 'did:web:lion:bob'
const ALICE = 'did:web:acme:alice'

/** The ledger of a sender holding 1000 free units, nobody frozen, the recipient holding nothing. */
const LEDGER: LedgerFacts = {
  sender_holding: { amount: 1000, frozen_amount: 0 },
  sender_frozen: false,
  recipient_frozen: false,
  recipient_balance: 0,
  target_holders: 0,
  recipient_holds_in_target: false,
  sender_volume_today: 0,
}

let seq = 0
const att = (
  type: string,
  jurisdiction: string,
  extra: Partial<AttestationFacts> = {},
): AttestationFacts => ({
  attestation_id: `att_${String(++seq).padStart(4, '0')}`,
  jurisdiction,
  subject_did: BOB,
  type,
  credential_id: null,
  issued_at: '2026-02-01T00:00:00.000Z',
  valid_until: null,
  ...extra,
})

/** A US → SG transfer with no requirements, trust in place: the smallest approved case. */
const facts = (overrides: Partial<TransferFacts> = {}): TransferFacts => ({
  token: { token_id: 'tok_1', status: 'active', credential_id: 'cred_1' },
  credential: {
    credential_id: 'cred_1',
    status: 'active',
    valid_until: null,
    revoked_at: null,
    revocation_reason: null,
  },
  from: { jurisdiction_id: 'US', transfer_requirements: [] },
  to: { jurisdiction_id: 'SG', transfer_requirements: [] },
  sender_did: ALICE,
  recipient_did: BOB,
  amount: 100,
  ledger: LEDGER,
  rules: NO_RULES,
  trust: [{ trust_id: 'trust_1', from_jurisdiction: 'US', to_jurisdiction: 'SG', mutual: false }],
  attestations: [],
  now: NOW,
  ...overrides,
})

const check = (details: ReturnType<typeof evaluateTransfer>, requirement: string, jurisdiction: string) =>
  details.checks.find((c) => c.requirement === requirement && c.jurisdiction === jurisdiction)

describe('evaluateTransfer', () => {
  it('approves with only the built-in checks when neither side lists requirements', () => {
    const d = evaluateTransfer(facts())
    expect(d).toEqual({
      source_requirements: [],
      target_requirements: [],
      all_satisfied: true,
      checks: [
        {
          requirement: 'token_active',
          jurisdiction: 'US',
          satisfied: true,
          evidence: 'tok_1',
          reason: 'token tok_1 is active',
        },
        {
          requirement: 'credential_valid',
          jurisdiction: 'US',
          satisfied: true,
          evidence: 'cred_1',
          reason: 'credential cred_1 is active',
        },
        {
          requirement: 'sufficient_holding',
          jurisdiction: 'US',
          satisfied: true,
          evidence: null,
          reason: `sender ${ALICE} holds 1000 of tok_1 in US; 100 requested`,
        },
        {
          requirement: 'holder_not_frozen',
          jurisdiction: 'US',
          satisfied: true,
          evidence: null,
          reason: `neither sender ${ALICE} nor recipient ${BOB} is frozen for tok_1`,
        },
        {
          requirement: 'trust',
          jurisdiction: 'SG',
          satisfied: true,
          evidence: 'trust_1',
          reason: 'SG trusts US (one-way relation trust_1)',
        },
      ],
    })
  })

  it.each(['kyc', 'aml', 'investor_qualification'])('%s is met by an attestation of the recipient', (req) => {
    const base = { from: { jurisdiction_id: 'US', transfer_requirements: [req] } }
    const missing = evaluateTransfer(facts(base))
    expect(missing.all_satisfied).toBe(false)
    expect(check(missing, req, 'US')).toEqual({
      requirement: req,
      jurisdiction: 'US',
      satisfied: false,
      evidence: null,
      reason: `no ${req} attestation of recipient ${BOB} recognised by US`,
    })
    const a = att(req, 'US')
    const met = evaluateTransfer(facts({ ...base, attestations: [a] }))
    expect(met.all_satisfied).toBe(true)
    expect(check(met, req, 'US')).toMatchObject({ satisfied: true, evidence: a.attestation_id })
    // An attestation of someone else does not count.
    const other = evaluateTransfer(
      facts({ ...base, attestations: [att(req, 'US', { subject_did: 'did:web:x:y' })] }),
    )
    expect(other.all_satisfied).toBe(false)
  })

  it("title_verification is about the token's credential, not the recipient", () => {
    const base = { to: { jurisdiction_id: 'SG', transfer_requirements: ['title_verification'] } }
    const aboutRecipient = evaluateTransfer(
      facts({ ...base, attestations: [att('title_verification', 'SG')] }),
    )
    expect(check(aboutRecipient, 'title_verification', 'SG')).toMatchObject({
      satisfied: false,
      reason: 'no title_verification attestation of credential cred_1 recognised by SG',
    })
    const otherCredential = att('title_verification', 'SG', {
      credential_id: 'cred_2',
      subject_did: 'did:web:a:b',
    })
    expect(evaluateTransfer(facts({ ...base, attestations: [otherCredential] })).all_satisfied).toBe(false)
    const title = att('title_verification', 'SG', { credential_id: 'cred_1', subject_did: 'did:web:a:b' })
    const met = evaluateTransfer(facts({ ...base, attestations: [title] }))
    expect(met.all_satisfied).toBe(true)
    expect(check(met, 'title_verification', 'SG')!.evidence).toBe(title.attestation_id)
  })

  it('treats a requirement name it has never heard of like any other: an attestation of that type meets it', () => {
    const base = { to: { jurisdiction_id: 'SG', transfer_requirements: ['sanctions_screening'] } }
    expect(evaluateTransfer(facts(base)).all_satisfied).toBe(false)
    expect(evaluateTransfer(facts({ ...base, attestations: [att('kyc', 'SG')] })).all_satisfied).toBe(false)
    expect(
      evaluateTransfer(facts({ ...base, attestations: [att('sanctions_screening', 'SG')] })).all_satisfied,
    ).toBe(true)
  })

  it('rejects an expired attestation and cites when it expired; one expiring later still counts', () => {
    const base = { from: { jurisdiction_id: 'US', transfer_requirements: ['kyc'] } }
    const expired = att('kyc', 'US', { valid_until: '2026-02-15T00:00:00.000Z' })
    const d = evaluateTransfer(facts({ ...base, attestations: [expired] }))
    expect(check(d, 'kyc', 'US')).toMatchObject({
      satisfied: false,
      reason: `kyc attestation ${expired.attestation_id} of recipient ${BOB} expired at 2026-02-15T00:00:00.000Z`,
    })
    // Expiry is exclusive: valid until the instant itself.
    const atNow = att('kyc', 'US', { valid_until: NOW })
    expect(evaluateTransfer(facts({ ...base, attestations: [atNow] })).all_satisfied).toBe(false)
    const later = att('kyc', 'US', { valid_until: '2026-03-01T00:00:00.001Z' })
    expect(evaluateTransfer(facts({ ...base, attestations: [expired, later] })).all_satisfied).toBe(true)
  })

  it('rejects a revoked credential with its revocation time and reason', () => {
    const d = evaluateTransfer(
      facts({
        credential: {
          credential_id: 'cred_1',
          status: 'revoked',
          valid_until: null,
          revoked_at: '2026-02-20T00:00:00.000Z',
          revocation_reason: 'title dispute',
        },
      }),
    )
    expect(d.all_satisfied).toBe(false)
    expect(check(d, 'credential_valid', 'US')).toMatchObject({
      satisfied: false,
      reason: 'credential cred_1 was revoked at 2026-02-20T00:00:00.000Z (title dispute)',
    })
  })

  it('rejects an expired credential and a frozen token', () => {
    const expired = evaluateTransfer(
      facts({
        credential: {
          credential_id: 'cred_1',
          status: 'active',
          valid_until: '2026-02-01T00:00:00.000Z',
          revoked_at: null,
          revocation_reason: null,
        },
      }),
    )
    expect(check(expired, 'credential_valid', 'US')!.reason).toBe(
      'credential cred_1 expired at 2026-02-01T00:00:00.000Z',
    )
    const frozen = evaluateTransfer(
      facts({ token: { token_id: 'tok_1', status: 'frozen', credential_id: 'cred_1' } }),
    )
    expect(check(frozen, 'token_active', 'US')).toMatchObject({
      satisfied: false,
      reason: 'token tok_1 is frozen and cannot be transferred',
    })
  })

  it('rejects a cross-border transfer without trust from source to target', () => {
    const none = evaluateTransfer(facts({ trust: [] }))
    expect(check(none, 'trust', 'SG')).toMatchObject({
      satisfied: false,
      evidence: null,
      reason: 'no trust relation from US to SG: transfers between them are not allowed',
    })
    // Trust is directed: SG → US does not let US send to SG.
    const reverse = evaluateTransfer(
      facts({
        trust: [{ trust_id: 'trust_2', from_jurisdiction: 'SG', to_jurisdiction: 'US', mutual: false }],
      }),
    )
    expect(reverse.all_satisfied).toBe(false)
  })

  it('accepts mutual trust in either direction', () => {
    const mutual = [{ trust_id: 'trust_3', from_jurisdiction: 'SG', to_jurisdiction: 'US', mutual: true }]
    const d = evaluateTransfer(facts({ trust: mutual }))
    expect(d.all_satisfied).toBe(true)
    expect(check(d, 'trust', 'SG')!.reason).toBe('SG trusts US (mutual relation trust_3)')
  })

  it('recognises attestations through trust: A → B means B recognises A, not the reverse', () => {
    const oneWay = [{ trust_id: 'trust_1', from_jurisdiction: 'US', to_jurisdiction: 'SG', mutual: false }]
    expect([...recognisedIssuers('SG', oneWay)].sort()).toEqual(['SG', 'US'])
    expect([...recognisedIssuers('US', oneWay)]).toEqual(['US'])
    const mutual = [{ ...oneWay[0]!, mutual: true }]
    expect([...recognisedIssuers('US', mutual)].sort()).toEqual(['SG', 'US'])

    const requirements = {
      from: { jurisdiction_id: 'US', transfer_requirements: ['kyc'] },
      to: { jurisdiction_id: 'SG', transfer_requirements: ['kyc'] },
    }
    const usKyc = att('kyc', 'US')
    const d = evaluateTransfer(facts({ ...requirements, attestations: [usKyc] }))
    expect(d.all_satisfied).toBe(true)
    expect(check(d, 'kyc', 'SG')).toMatchObject({
      evidence: usKyc.attestation_id,
      reason: `kyc of recipient ${BOB} attested by US in ${usKyc.attestation_id} (recognised through trust from US)`,
    })
    // An SG attestation is not recognised by US under one-way trust US → SG.
    const sgKyc = att('kyc', 'SG')
    const e = evaluateTransfer(facts({ ...requirements, attestations: [sgKyc] }))
    expect(check(e, 'kyc', 'US')).toMatchObject({
      satisfied: false,
      reason: `kyc attestation ${sgKyc.attestation_id} of recipient ${BOB} was issued by SG, which US does not recognise (no trust from SG to US)`,
    })
    expect(check(e, 'kyc', 'SG')!.satisfied).toBe(true)
    // A third jurisdiction's attestation counts only where trust reaches: SG (JP → SG), not US.
    const jpKyc = att('kyc', 'JP')
    const viaJp = [
      ...oneWay,
      { trust_id: 'trust_9', from_jurisdiction: 'JP', to_jurisdiction: 'SG', mutual: false },
    ]
    const f = evaluateTransfer(facts({ ...requirements, trust: viaJp, attestations: [jpKyc] }))
    expect(check(f, 'kyc', 'SG')).toMatchObject({ satisfied: true, evidence: jpKyc.attestation_id })
    expect(check(f, 'kyc', 'US')!.satisfied).toBe(false)
  })

  it('needs no trust within one jurisdiction and checks a requirement once there', () => {
    const us = { jurisdiction_id: 'US', transfer_requirements: ['kyc', 'aml'] }
    const a = [att('kyc', 'US'), att('aml', 'US')]
    const d = evaluateTransfer(facts({ from: us, to: us, trust: [], attestations: a }))
    expect(d.all_satisfied).toBe(true)
    expect(d.checks.map((c) => `${c.requirement}@${c.jurisdiction}`)).toEqual([
      'token_active@US',
      'credential_valid@US',
      'sufficient_holding@US',
      'holder_not_frozen@US',
      'trust@US',
      'kyc@US',
      'aml@US',
    ])
    expect(d.source_requirements).toEqual(['kyc', 'aml'])
    expect(d.target_requirements).toEqual(['kyc', 'aml'])
  })

  it('cites the newest qualifying attestation', () => {
    const older = att('kyc', 'US')
    const newer = att('kyc', 'US')
    const d = evaluateTransfer(
      facts({
        from: { jurisdiction_id: 'US', transfer_requirements: ['kyc'] },
        attestations: [older, newer],
      }),
    )
    expect(check(d, 'kyc', 'US')!.evidence).toBe(newer.attestation_id)
  })

  it('is all_satisfied exactly when every check is, and lists failures of both sides', () => {
    const d = evaluateTransfer(
      facts({
        from: { jurisdiction_id: 'US', transfer_requirements: ['kyc', 'aml'] },
        to: { jurisdiction_id: 'SG', transfer_requirements: ['investor_qualification'] },
        attestations: [att('kyc', 'US')],
      }),
    )
    expect(d.all_satisfied).toBe(false)
    expect(d.checks.filter((c) => !c.satisfied).map((c) => `${c.requirement}@${c.jurisdiction}`)).toEqual([
      'aml@US',
      'investor_qualification@SG',
    ])
  })
})

describe('evaluateTransfer over random facts', () => {
  const PLACES = ['US', 'SG', 'JP']
  const REQS = ['kyc', 'aml', 'title_verification', 'investor_qualification', 'sanctions_screening']
  const arbFacts = fc
    .record({
      from: fc.constantFrom(...PLACES),
      to: fc.constantFrom(...PLACES),
      fromReqs: fc.uniqueArray(fc.constantFrom(...REQS), { maxLength: 5 }),
      toReqs: fc.uniqueArray(fc.constantFrom(...REQS), { maxLength: 5 }),
      tokenFrozen: fc.boolean(),
      revoked: fc.boolean(),
      trust: fc.array(
        fc.record({ from: fc.constantFrom(...PLACES), to: fc.constantFrom(...PLACES), mutual: fc.boolean() }),
        { maxLength: 3 },
      ),
      attestations: fc.array(
        fc.record({
          type: fc.constantFrom(...REQS),
          jurisdiction: fc.constantFrom(...PLACES),
          aboutRecipient: fc.boolean(),
          aboutCredential: fc.boolean(),
          expired: fc.boolean(),
        }),
        { maxLength: 8 },
      ),
    })
    .map(
      (r): TransferFacts => ({
        ...facts(),
        token: { token_id: 'tok_1', status: r.tokenFrozen ? 'frozen' : 'active', credential_id: 'cred_1' },
        credential: {
          credential_id: 'cred_1',
          status: r.revoked ? 'revoked' : 'active',
          valid_until: null,
          revoked_at: r.revoked ? '2026-02-01T00:00:00.000Z' : null,
          revocation_reason: null,
        },
        from: { jurisdiction_id: r.from, transfer_requirements: r.fromReqs },
        to: { jurisdiction_id: r.to, transfer_requirements: r.toReqs },
        sender_did: ALICE,
        amount: 100,
        ledger: LEDGER,
        rules: NO_RULES,
        trust: r.trust
          .filter((t) => t.from !== t.to)
          .map((t, i) => ({
            trust_id: `trust_${i}`,
            from_jurisdiction: t.from,
            to_jurisdiction: t.to,
            mutual: t.mutual,
          })),
        attestations: r.attestations.map((a, i) => ({
          attestation_id: `att_${String(i).padStart(3, '0')}`,
          jurisdiction: a.jurisdiction,
          subject_did: a.aboutRecipient ? BOB : 'did:web:other:eve',
          type: a.type,
          credential_id: a.aboutCredential ? 'cred_1' : null,
          issued_at: '2026-01-01T00:00:00.000Z',
          valid_until: a.expired ? '2026-02-01T00:00:00.000Z' : null,
        })),
      }),
    )

  it('approves exactly when every check holds, and every satisfied requirement cites a qualifying attestation', () => {
    fc.assert(
      fc.property(arbFacts, (f) => {
        const d = evaluateTransfer(f)
        expect(d.all_satisfied).toBe(d.checks.every((c) => c.satisfied))
        if (f.token.status !== 'active' || f.credential.status !== 'active')
          expect(d.all_satisfied).toBe(false)
        const crossBorder = f.from.jurisdiction_id !== f.to.jurisdiction_id
        if (crossBorder && !trustBetween(f.trust, f.from.jurisdiction_id, f.to.jurisdiction_id)) {
          expect(d.all_satisfied).toBe(false)
        }
        // token_active, credential_valid, sufficient_holding, holder_not_frozen, trust; then requirements.
        const requirementChecks = d.checks.slice(5)
        const expectedCount = crossBorder
          ? f.from.transfer_requirements.length + f.to.transfer_requirements.length
          : new Set([...f.from.transfer_requirements, ...f.to.transfer_requirements]).size
        expect(requirementChecks).toHaveLength(expectedCount)
        for (const c of requirementChecks) {
          if (!c.satisfied) {
            expect(c.evidence).toBeNull()
            continue
          }
          const a = f.attestations.find((x) => x.attestation_id === c.evidence)!
          expect(a.type).toBe(c.requirement)
          if (c.requirement === 'title_verification') expect(a.credential_id).toBe('cred_1')
          else expect(a.subject_did).toBe(BOB)
          expect(a.valid_until).toBeNull()
          expect(recognisedIssuers(c.jurisdiction, f.trust).has(a.jurisdiction)).toBe(true)
        }
      }),
      { numRuns: 500 },
    )
  })
})
