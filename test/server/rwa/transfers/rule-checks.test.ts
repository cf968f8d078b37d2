import { describe, expect, it } from 'vitest'
import { NO_RULES, type TokenRules } from '../../../../src/contract/rwa.js'
import {
  evaluateKyc,
  evaluateTransfer,
  type LedgerFacts,
  type TransferFacts,
} from '../../../../server/areas/rwa/transfers/evaluate-transfer.js'
import { durationText } from '../../../../server/areas/rwa/transfers/rule-checks.js'

const NOW = '2026-03-01T12:00:00.000Z'
const ALICE = 'did:web:acme:alice'
const BOB = 'did:web:lion:bob'

const LEDGER: LedgerFacts = {
  sender_holding: { amount: 1000, frozen_amount: 0 },
  sender_frozen: false,
  recipient_frozen: false,
  recipient_balance: 0,
  target_holders: 1,
  recipient_holds_in_target: false,
  sender_volume_today: 0,
}

/** US → SG with trust, no requirements: only the token's own state and its rules decide. */
const facts = (
  overrides: { amount?: number; rules?: Partial<TokenRules>; ledger?: Partial<LedgerFacts> } & Partial<
    Omit<TransferFacts, 'rules' | 'ledger'>
  > = {},
): TransferFacts => {
  const { rules, ledger, ...rest } = overrides
  return {
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
    trust: [{ trust_id: 'trust_1', from_jurisdiction: 'US', to_jurisdiction: 'SG', mutual: false }],
    attestations: [],
    now: NOW,
    ...rest,
    rules: { ...NO_RULES, ...rules },
    ledger: { ...LEDGER, ...ledger },
  }
}

const checkOf = (f: TransferFacts, requirement: string) =>
  evaluateTransfer(f).checks.find((c) => c.requirement === requirement)

describe('pause and the token’s own state', () => {
  it('a paused token fails token_active with "token is paused"', () => {
    const d = evaluateTransfer(
      facts({ token: { token_id: 'tok_1', status: 'paused', credential_id: 'cred_1' } }),
    )
    expect(d.all_satisfied).toBe(false)
    expect(d.checks.filter((c) => !c.satisfied)).toEqual([
      {
        requirement: 'token_active',
        jurisdiction: 'US',
        satisfied: false,
        evidence: 'tok_1',
        reason: 'token is paused: tok_1 refuses every transfer until an agent unpauses it',
      },
    ])
  })

  it('sufficient_holding: exactly the holding passes, one more fails saying by how much', () => {
    expect(checkOf(facts({ amount: 1000 }), 'sufficient_holding')).toMatchObject({ satisfied: true })
    expect(checkOf(facts({ amount: 1001 }), 'sufficient_holding')).toEqual({
      requirement: 'sufficient_holding',
      jurisdiction: 'US',
      satisfied: false,
      evidence: null,
      reason: `sender ${ALICE} holds 1000 of tok_1 in US, 1 short of the 1001 requested`,
    })
  })
})

describe('freezes', () => {
  it('holder_not_frozen fails for a frozen sender, a frozen recipient, or both', () => {
    expect(checkOf(facts({ ledger: { sender_frozen: true } }), 'holder_not_frozen')).toMatchObject({
      satisfied: false,
      evidence: ALICE,
      reason: `sender ${ALICE} is frozen for tok_1: a frozen holder can neither send nor receive it`,
    })
    expect(checkOf(facts({ ledger: { recipient_frozen: true } }), 'holder_not_frozen')).toMatchObject({
      satisfied: false,
      evidence: BOB,
    })
    expect(
      checkOf(facts({ ledger: { sender_frozen: true, recipient_frozen: true } }), 'holder_not_frozen')!
        .reason,
    ).toBe(
      `sender ${ALICE} and recipient ${BOB} are frozen for tok_1: a frozen holder can neither send nor receive it`,
    )
  })

  it('unfrozen_balance appears only with frozen units: exactly the unfrozen rest passes, one more fails', () => {
    expect(checkOf(facts(), 'unfrozen_balance')).toBeUndefined()
    const ledger = { sender_holding: { amount: 1000, frozen_amount: 300 } }
    const atRest = checkOf(facts({ amount: 700, ledger }), 'unfrozen_balance')
    expect(atRest).toMatchObject({ satisfied: true, evidence: 'frozen_amount=300' })
    const over = evaluateTransfer(facts({ amount: 701, ledger }))
    expect(over.all_satisfied).toBe(false)
    expect(over.checks.filter((c) => !c.satisfied)).toEqual([
      {
        requirement: 'unfrozen_balance',
        jurisdiction: 'US',
        satisfied: false,
        evidence: 'frozen_amount=300',
        reason:
          "300 of the sender's 1000 units in US are frozen: only 700 can be sent, 1 fewer than the 701 requested",
      },
    ])
  })
})

describe('transfer rules: only rules that are set produce checks', () => {
  it('no rules, no rule checks', () => {
    expect(evaluateTransfer(facts()).checks.some((c) => c.requirement.startsWith('rule:'))).toBe(false)
  })

  it('max_transfer_amount: at the cap passes, one over fails by 1', () => {
    const rules = { max_transfer_amount: 100 }
    expect(checkOf(facts({ amount: 100, rules }), 'rule:max_transfer_amount')).toEqual({
      requirement: 'rule:max_transfer_amount',
      jurisdiction: 'US',
      satisfied: true,
      evidence: 'rules.max_transfer_amount=100',
      reason: 'amount 100 is within max_transfer_amount 100',
    })
    expect(checkOf(facts({ amount: 101, rules }), 'rule:max_transfer_amount')).toMatchObject({
      satisfied: false,
      reason: 'amount 101 is over max_transfer_amount 100 by 1',
    })
  })

  it("max_balance_per_holder: the recipient's total after the transfer; at the cap passes, one over fails", () => {
    const rules = { max_balance_per_holder: 500 }
    const ledger = { recipient_balance: 400 }
    expect(checkOf(facts({ amount: 100, rules, ledger }), 'rule:max_balance_per_holder')).toMatchObject({
      jurisdiction: 'SG',
      satisfied: true,
      evidence: 'rules.max_balance_per_holder=500',
    })
    expect(checkOf(facts({ amount: 101, rules, ledger }), 'rule:max_balance_per_holder')).toMatchObject({
      satisfied: false,
      reason: `recipient ${BOB} would hold 501 of tok_1 across jurisdictions, over max_balance_per_holder 500 by 1`,
    })
    // Moving one's own units between jurisdictions does not change one's total.
    const own = facts({ amount: 300, rules, recipient_did: ALICE, ledger: { recipient_balance: 1000 } })
    expect(checkOf(own, 'rule:max_balance_per_holder')).toMatchObject({ satisfied: false })
    expect(
      checkOf({ ...own, ledger: { ...own.ledger, recipient_balance: 500 } }, 'rule:max_balance_per_holder'),
    ).toMatchObject({
      satisfied: true,
    })
  })

  it('max_holders: counts holders in the target after the transfer; at the cap passes, one over fails', () => {
    const rules = { max_holders: 3 }
    expect(checkOf(facts({ rules, ledger: { target_holders: 2 } }), 'rule:max_holders')).toMatchObject({
      jurisdiction: 'SG',
      satisfied: true,
      evidence: 'rules.max_holders=3',
      reason: 'SG would have 3 holders of tok_1, within max_holders 3',
    })
    expect(checkOf(facts({ rules, ledger: { target_holders: 3 } }), 'rule:max_holders')).toMatchObject({
      satisfied: false,
      reason: 'SG would have 4 holders of tok_1, over max_holders 3 by 1',
    })
    // One holder is one holder.
    expect(checkOf(facts({ rules, ledger: { target_holders: 0 } }), 'rule:max_holders')).toMatchObject({
      satisfied: true,
      reason: 'SG would have 1 holder of tok_1, within max_holders 3',
    })
    // A recipient who already holds there adds no holder, even over a lowered cap.
    expect(
      checkOf(
        facts({ rules, ledger: { target_holders: 5, recipient_holds_in_target: true } }),
        'rule:max_holders',
      ),
    ).toMatchObject({
      satisfied: true,
      reason: 'the transfer adds no holder to SG (5 holders of tok_1, max_holders 3)',
    })
    // Within one jurisdiction, a sender who sends everything leaves: the count stays.
    const within = facts({
      rules,
      amount: 1000,
      to: { jurisdiction_id: 'US', transfer_requirements: [] },
      ledger: { target_holders: 3 },
    })
    expect(checkOf(within, 'rule:max_holders')!.satisfied).toBe(true)
    expect(checkOf({ ...within, amount: 999 }, 'rule:max_holders')!.satisfied).toBe(false)
  })

  it('max_holders per jurisdiction: only listed jurisdictions are capped', () => {
    const rules = { max_holders: { SG: 1 } }
    expect(checkOf(facts({ rules, ledger: { target_holders: 1 } }), 'rule:max_holders')).toMatchObject({
      satisfied: false,
      evidence: 'rules.max_holders.SG=1',
    })
    expect(
      checkOf(
        facts({ rules: { max_holders: { JP: 1 } }, ledger: { target_holders: 9 } }),
        'rule:max_holders',
      ),
    ).toBeUndefined()
  })

  it("daily_volume_per_holder: the sender's approved volume of the UTC day, this transfer included", () => {
    const rules = { daily_volume_per_holder: 1000 }
    expect(
      checkOf(
        facts({ amount: 100, rules, ledger: { sender_volume_today: 900 } }),
        'rule:daily_volume_per_holder',
      ),
    ).toMatchObject({
      jurisdiction: 'US',
      satisfied: true,
      evidence: 'rules.daily_volume_per_holder=1000',
    })
    expect(
      checkOf(
        facts({ amount: 101, rules, ledger: { sender_volume_today: 900 } }),
        'rule:daily_volume_per_holder',
      ),
    ).toMatchObject({
      satisfied: false,
      reason: `sender ${ALICE}'s approved volume on 2026-03-01 would be 1001 (900 before this transfer), over daily_volume_per_holder 1000 by 1`,
    })
  })

  it('lockup_until: refuses before the instant, saying how long is left; at the instant and after it passes', () => {
    const lockup = '2026-03-04T13:30:00.000Z'
    expect(checkOf(facts({ rules: { lockup_until: lockup } }), 'rule:lockup_until')).toEqual({
      requirement: 'rule:lockup_until',
      jurisdiction: 'US',
      satisfied: false,
      evidence: `rules.lockup_until=${lockup}`,
      reason: `token is locked up until ${lockup} (3d 1h 30m left): only forced transfers move it before then`,
    })
    expect(checkOf(facts({ rules: { lockup_until: NOW } }), 'rule:lockup_until')).toMatchObject({
      satisfied: true,
      reason: `lock-up ended at ${NOW}`,
    })
    expect(
      checkOf(
        facts({ now: '2026-03-04T13:29:59.999Z', rules: { lockup_until: lockup } }),
        'rule:lockup_until',
      )!.reason,
    ).toContain('(1m left)')
    expect(durationText(59_000)).toBe('1m')
    expect(durationText(86_400_000)).toBe('1d')
  })

  it('lists every failing rule of a transfer at once, in a fixed order', () => {
    const d = evaluateTransfer(
      facts({
        amount: 600,
        rules: {
          lockup_until: '2027-01-01T00:00:00.000Z',
          max_transfer_amount: 500,
          daily_volume_per_holder: 500,
          max_balance_per_holder: 500,
          max_holders: 1,
        },
      }),
    )
    expect(d.checks.filter((c) => !c.satisfied).map((c) => c.requirement)).toEqual([
      'rule:lockup_until',
      'rule:max_transfer_amount',
      'rule:daily_volume_per_holder',
      'rule:max_balance_per_holder',
      'rule:max_holders',
    ])
  })
})

describe('evaluateKyc (forced transfers and recoveries)', () => {
  const kyc = (jurisdiction: string, subject = BOB, valid_until: string | null = null) => ({
    attestation_id: `att_${jurisdiction}_${subject.length}`,
    jurisdiction,
    subject_did: subject,
    type: 'kyc',
    credential_id: null,
    issued_at: '2026-01-01T00:00:00.000Z',
    valid_until,
  })
  const base = { subject_did: BOB, credential_id: 'cred_1', trust: [], now: NOW }

  it('needs kyc of the subject recognised by every jurisdiction concerned', () => {
    const one = evaluateKyc({ ...base, jurisdictions: ['SG'], attestations: [kyc('SG')] })
    expect(one).toMatchObject({ source_requirements: [], target_requirements: ['kyc'], all_satisfied: true })
    const two = evaluateKyc({ ...base, jurisdictions: ['SG', 'US'], attestations: [kyc('SG')] })
    expect(two.all_satisfied).toBe(false)
    expect(two.checks.map((c) => [c.jurisdiction, c.satisfied])).toEqual([
      ['SG', true],
      ['US', false],
    ])
    // Recognised through trust SG → US.
    const trusted = evaluateKyc({
      ...base,
      jurisdictions: ['SG', 'US'],
      attestations: [kyc('SG')],
      trust: [{ trust_id: 'trust_1', from_jurisdiction: 'SG', to_jurisdiction: 'US', mutual: false }],
    })
    expect(trusted.all_satisfied).toBe(true)
  })

  it('refuses an expired kyc, someone else’s, and an empty list of jurisdictions', () => {
    expect(
      evaluateKyc({ ...base, jurisdictions: ['SG'], attestations: [kyc('SG', BOB, NOW)] }).all_satisfied,
    ).toBe(false)
    expect(
      evaluateKyc({ ...base, jurisdictions: ['SG'], attestations: [kyc('SG', ALICE)] }).all_satisfied,
    ).toBe(false)
    expect(evaluateKyc({ ...base, jurisdictions: [], attestations: [] }).all_satisfied).toBe(false)
  })
})
