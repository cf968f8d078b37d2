import { describe, expect, it } from 'vitest'
import { NO_RULES } from '../../../../src/contract/rwa.js'
import {
  evaluateTransfer,
  type ExternalAttestationFacts,
  type TransferFacts,
} from '../../../../server/areas/rwa/transfers/evaluate-transfer.js'

/*
 * The requirement check over trusted issuers' attestations (docs/issuers.md, "Evaluation"), pure: met
 * in a jurisdiction the issuer is trusted in, by an attestation with no problem; the organization's own
 * preferred; each failure said.
 */

const BOB = 'did:web:lion:bob'
const DID = 'did:web:kyc.acme.example'
const SHA = 'ab'.repeat(32)

const ext = (id: string, extra: Partial<ExternalAttestationFacts> = {}): ExternalAttestationFacts => ({
  attestation_id: id,
  issuer_id: 'acme-kyc',
  issuer_did: DID,
  subject_did: BOB,
  vc_sha256: SHA,
  requirements: ['kyc'],
  jurisdictions: ['US'],
  problem: null,
  ...extra,
})

const facts = (overrides: Partial<TransferFacts> = {}): TransferFacts => ({
  token: { token_id: 'tok_1', status: 'active', credential_id: 'cred_1' },
  credential: {
    credential_id: 'cred_1',
    status: 'active',
    valid_until: null,
    revoked_at: null,
    revocation_reason: null,
  },
  from: { jurisdiction_id: 'US', transfer_requirements: ['kyc'] },
  to: { jurisdiction_id: 'SG', transfer_requirements: ['kyc'] },
  sender_did: 'did:web:acme:alice',
  recipient_did: BOB,
  amount: 1,
  ledger: {
    sender_holding: { amount: 10, frozen_amount: 0 },
    sender_frozen: false,
    recipient_frozen: false,
    recipient_balance: 0,
    target_holders: 0,
    recipient_holds_in_target: false,
    sender_volume_today: 0,
  },
  rules: NO_RULES,
  trust: [{ trust_id: 'trust_1', from_jurisdiction: 'US', to_jurisdiction: 'SG', mutual: false }],
  attestations: [],
  now: '2026-03-01T00:00:00.000Z',
  ...overrides,
})

const check = (f: TransferFacts, jurisdiction: string) =>
  evaluateTransfer(f).checks.find((c) => c.requirement === 'kyc' && c.jurisdiction === jurisdiction)!

describe('requirements met by trusted issuers', () => {
  it('meets a requirement where the issuer is trusted, naming the attestation, the issuer, its DID and the VC digest', () => {
    const f = facts({ external: [ext('att_0001')] })
    expect(check(f, 'US')).toEqual({
      requirement: 'kyc',
      jurisdiction: 'US',
      satisfied: true,
      evidence: 'att_0001',
      reason: `kyc of recipient ${BOB} attested by trusted issuer acme-kyc (${DID}) in att_0001`,
      issuer_did: DID,
      vc_sha256: SHA,
    })
    expect(check(f, 'SG')).toMatchObject({
      satisfied: false,
      reason: `kyc attestation att_0001 of recipient ${BOB} is by trusted issuer acme-kyc (${DID}), which SG does not trust (it is trusted in US)`,
    })
  })

  it('relies on none with a problem, saying why, and on none of another subject or requirement', () => {
    const f = facts({
      external: [
        ext('att_0002', { problem: 'status of att_0002 unknown since 2026-02-28T00:00:00.000Z' }),
        ext('att_0003', { subject_did: 'did:web:other' }),
        ext('att_0004', { requirements: ['aml'] }),
      ],
    })
    expect(check(f, 'US')).toMatchObject({
      satisfied: false,
      evidence: null,
      reason: `kyc attestation att_0002 of recipient ${BOB} by trusted issuer acme-kyc (${DID}) is not relied on: status of att_0002 unknown since 2026-02-28T00:00:00.000Z`,
    })
  })

  it('cites the newest that qualifies, and the organization’s own first', () => {
    expect(check(facts({ external: [ext('att_0005'), ext('att_0009')] }), 'US').evidence).toBe('att_0009')
    const own = {
      attestation_id: 'att_0001',
      jurisdiction: 'US',
      subject_did: BOB,
      type: 'kyc',
      credential_id: null,
      issued_at: '2026-02-01T00:00:00.000Z',
      valid_until: null,
    }
    expect(check(facts({ attestations: [own], external: [ext('att_0009')] }), 'US').evidence).toBe('att_0001')
  })
})
