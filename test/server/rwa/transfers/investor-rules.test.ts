import { describe, expect, it } from 'vitest'
import { NO_INVESTOR_RULES, type InvestorRules } from '../../../../src/contract/investor-rules.js'
import { setTokenRulesRequestSchema } from '../../../../src/contract/rwa.js'
import {
  type InvestorFacts,
  investorRuleChecks,
  ownershipCapUnits,
} from '../../../../server/areas/rwa/transfers/investor-rules.js'
import type { Movement } from '../../../../server/areas/rwa/transfers/ledger-checks.js'

const ALICE = 'did:web:acme:alice'
const BOB = 'did:web:lion:bob'
const BOB2 = 'did:web:lion:bob-cold'

const MOVE: Movement = {
  token_id: 'tok_1',
  from_jurisdiction: 'US',
  to_jurisdiction: 'SG',
  sender_did: ALICE,
  recipient_did: BOB,
  amount: 100,
}
const US_ALICE = { identity_id: 'idn_alice', country: 'US', category: 'institutional' }
const FR_BOB = { identity_id: 'idn_bob', country: 'FR', category: 'retail' }

const FACTS: InvestorFacts = {
  recipient_identity: FR_BOB,
  sender_identity: US_ALICE,
  recipient_total: 0,
  sender_total: 1000,
  country_holders: null,
  supply: 1000,
}

const checks = (
  rules: Partial<InvestorRules>,
  facts: Partial<InvestorFacts> = {},
  move: Partial<Movement> = {},
) => investorRuleChecks({ ...NO_INVESTOR_RULES, ...rules }, { ...MOVE, ...move }, { ...FACTS, ...facts })
const only = (
  rules: Partial<InvestorRules>,
  facts: Partial<InvestorFacts> = {},
  move: Partial<Movement> = {},
) => {
  const found = checks(rules, facts, move)
  expect(found).toHaveLength(1)
  return found[0]!
}

describe('rules that read identities', () => {
  it('produce no check when none is set', () => {
    expect(checks({})).toEqual([])
  })

  it('country_allow: a listed country passes, another fails naming it, no identity fails', () => {
    expect(only({ country_allow: ['FR', 'DE'] })).toMatchObject({
      requirement: 'rule:country_allow',
      jurisdiction: 'SG',
      satisfied: true,
      evidence: 'rules.country_allow=FR,DE',
    })
    expect(only({ country_allow: ['US', 'GB'] })).toEqual({
      requirement: 'rule:country_allow',
      jurisdiction: 'SG',
      satisfied: false,
      evidence: 'rules.country_allow=US,GB',
      reason: `recipient ${BOB}'s identity idn_bob is of FR, not in country_allow (US, GB)`,
    })
    const none = only({ country_allow: ['FR'] }, { recipient_identity: null })
    expect(none.satisfied).toBe(false)
    expect(none.reason).toBe(`${BOB} has no identity: country_allow admits only identities of FR`)
  })

  it('country_deny: a listed country fails naming it, another passes, no identity fails', () => {
    expect(only({ country_deny: ['FR'] })).toMatchObject({
      satisfied: false,
      reason: `recipient ${BOB}'s identity idn_bob is of FR, which country_deny refuses`,
    })
    expect(only({ country_deny: ['RU'] }).satisfied).toBe(true)
    const none = only({ country_deny: ['RU'] }, { recipient_identity: null })
    expect(none.satisfied).toBe(false)
    expect(none.reason).toMatch(/^did:web:lion:bob has no identity/)
  })

  it('allowed_categories: names the category; no category and no identity fail', () => {
    expect(only({ allowed_categories: ['retail'] }).satisfied).toBe(true)
    expect(only({ allowed_categories: ['professional', 'institutional'] })).toMatchObject({
      requirement: 'rule:allowed_categories',
      satisfied: false,
      reason: `recipient ${BOB}'s identity idn_bob is of category retail, not in allowed_categories (professional, institutional)`,
    })
    expect(
      only({ allowed_categories: ['retail'] }, { recipient_identity: { ...FR_BOB, category: null } }),
    ).toMatchObject({ satisfied: false, reason: expect.stringMatching(/has no category/) })
    expect(only({ allowed_categories: ['retail'] }, { recipient_identity: null })).toMatchObject({
      satisfied: false,
      reason: expect.stringMatching(/^did:web:lion:bob has no identity/),
    })
  })

  it('max_holders_per_country: reaching the cap passes, one over fails by 1, an existing holder passes', () => {
    const rules = { max_holders_per_country: { FR: 3 } }
    expect(only(rules, { country_holders: 2 })).toMatchObject({
      requirement: 'rule:max_holders_per_country',
      satisfied: true,
      evidence: 'rules.max_holders_per_country.FR=3',
      reason: 'FR would have 3 holder identities of tok_1, within max_holders_per_country 3',
    })
    expect(only(rules, { country_holders: 3 })).toMatchObject({
      satisfied: false,
      reason: 'FR would have 4 holder identities of tok_1, over max_holders_per_country 3 by 1',
    })
    // The recipient's identity already holds (through another DID): it adds no holder identity.
    expect(only(rules, { country_holders: 9, recipient_total: 5 }).satisfied).toBe(true)
    // A country not capped and a recipient of no identity (no country) produce no check.
    expect(checks({ max_holders_per_country: { US: 1 } })).toEqual([])
    expect(checks(rules, { recipient_identity: null })).toEqual([])
  })

  it('max_holders_per_country: a sender identity of the same country that leaves frees its place', () => {
    const rules = { max_holders_per_country: { FR: 3 } }
    const sender = { ...US_ALICE, country: 'FR' }
    expect(only(rules, { country_holders: 3, sender_identity: sender, sender_total: 100 })).toMatchObject({
      satisfied: true,
      reason:
        "FR keeps 3 holder identities of tok_1: the sender's identity idn_alice leaves it (max_holders_per_country 3)",
    })
    expect(only(rules, { country_holders: 3, sender_identity: sender, sender_total: 101 }).satisfied).toBe(
      false,
    )
  })

  it('max_ownership_percent: at the cap passes, one unit over fails by 1 naming the percent', () => {
    expect(only({ max_ownership_percent: 25 }, { recipient_total: 150 })).toMatchObject({
      requirement: 'rule:max_ownership_percent',
      satisfied: true,
      evidence: 'rules.max_ownership_percent=25',
    })
    expect(only({ max_ownership_percent: 25 }, { recipient_total: 151 })).toEqual({
      requirement: 'rule:max_ownership_percent',
      jurisdiction: 'SG',
      satisfied: false,
      evidence: 'rules.max_ownership_percent=25',
      reason:
        'identity idn_bob would hold 251 of tok_1 over its DIDs and jurisdictions, 25.1% of the supply, over max_ownership_percent 25 (250 of 1000 units) by 1',
    })
    // A recipient of no identity is an investor of its own.
    expect(only({ max_ownership_percent: 5 }, { recipient_identity: null }).reason).toMatch(
      /^recipient did:web:lion:bob \(no identity\) would hold 100 .* by 50$/,
    )
  })

  it('max_ownership_percent: moving between one identity’s own DIDs never fails, even over the cap', () => {
    const own = only(
      { max_ownership_percent: 10 },
      { sender_identity: FR_BOB, recipient_total: 900 },
      { sender_did: BOB2 },
    )
    expect(own.satisfied).toBe(true)
    expect(own.reason).toMatch(/between identity idn_bob's own holdings: its total stays 900/)
  })

  it('the cap in units is exact for percents of up to four decimals', () => {
    expect(ownershipCapUnits(0.29, 10_000)).toBe(29)
    expect(ownershipCapUnits(33.3333, 1_000_000)).toBe(333_333)
    expect(ownershipCapUnits(100, Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER)
    expect(ownershipCapUnits(0, 1000)).toBe(0)
  })
})

describe('the rules’ values', () => {
  const refused = (body: unknown) => {
    const r = setTokenRulesRequestSchema.safeParse(body)
    expect(r.success).toBe(false)
    return r.error!.issues.map((i) => i.path.join('.'))
  }
  it('name the field of an invalid value', () => {
    expect(refused({ country_allow: ['us'] })).toEqual(['country_allow.0'])
    expect(refused({ country_deny: ['USA'] })).toEqual(['country_deny.0'])
    expect(refused({ allowed_categories: ['whale'] })).toEqual(['allowed_categories.0'])
    expect(refused({ max_holders_per_country: { US: -1 } })).toEqual(['max_holders_per_country.US'])
    expect(refused({ max_holders_per_country: { us: 1 } })[0]).toMatch(/^max_holders_per_country/)
    expect(refused({ max_ownership_percent: 100.5 })).toEqual(['max_ownership_percent'])
    expect(refused({ max_ownership_percent: -1 })).toEqual(['max_ownership_percent'])
    expect(refused({ max_ownership_percent: 1.23456 })).toEqual(['max_ownership_percent'])
  })
  it('accept the boundaries', () => {
    const ok = setTokenRulesRequestSchema.safeParse({
      country_allow: ['US'],
      country_deny: ['RU'],
      allowed_categories: ['accredited'],
      max_holders_per_country: { US: 0 },
      max_ownership_percent: 100,
    })
    expect(ok.success).toBe(true)
    expect(setTokenRulesRequestSchema.safeParse({ max_ownership_percent: 0 }).success).toBe(true)
  })
})
