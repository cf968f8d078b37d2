import type { ComplianceCheck } from '../../../../src/contract/rwa.js'
import type { InvestorRules } from '../../../../src/contract/investor-rules.js'
import type { Movement } from './ledger-checks.js'

/*
 * The token rules that read investors' identities (docs/governance.md, "Rules that read identities"),
 * each a check `rule:<name>` whose refusal names the country or category, or the figure the transfer
 * would reach and by how much it misses. Only rules that are set produce a check. Pure: the facts are
 * gathered by facts.ts under the token's row lock.
 */

/** An identity as the rules read it. */
export interface InvestorIdentity {
  identity_id: string
  country: string
  category: string | null
}

/**
 * What the investor rules read. An investor is an identity, or a DID of no identity on its own (it then
 * belongs to no country and has no category).
 */
export interface InvestorFacts {
  recipient_identity: InvestorIdentity | null
  sender_identity: InvestorIdentity | null
  /** Units of the token the recipient's investor holds before the transfer, over all its DIDs and jurisdictions. */
  recipient_total: number
  /** The same for the sender's investor (read only with `country_holders`, 0 otherwise). */
  sender_total: number
  /**
   * Identities of the recipient identity's country holding a non-zero amount of the token before the
   * transfer; read only when the transfer would add a holder identity to a capped country
   * (`addsCappedHolder`), null otherwise.
   */
  country_holders: number | null
  /** The token's supply after the transfer (a transfer does not change it). */
  supply: number
}

/** No identity on either side, nothing held: what a transfer reads when no investor rule is set. */
export const NO_INVESTOR_FACTS: InvestorFacts = Object.freeze({
  recipient_identity: null,
  sender_identity: null,
  recipient_total: 0,
  sender_total: 0,
  country_holders: null,
  supply: 0,
})

const check = (
  name: keyof InvestorRules,
  jurisdiction: string,
  evidence: string,
  satisfied: boolean,
  reason: string,
): ComplianceCheck => ({ requirement: `rule:${name}`, jurisdiction, satisfied, evidence, reason })

/** Whether sender and recipient are one investor: one identity, or one DID of no identity. */
export function sameInvestor(move: Movement, facts: InvestorFacts): boolean {
  const { sender_identity: s, recipient_identity: r } = facts
  if (s && r) return s.identity_id === r.identity_id
  return !s && !r && move.sender_did === move.recipient_did
}

/** The cap `max_holders_per_country` puts on `country`, if any. */
export function countryCap(
  rule: InvestorRules['max_holders_per_country'],
  country: string,
): number | undefined {
  // Object.hasOwn: a key must never read Object.prototype.
  return rule !== null && Object.hasOwn(rule, country) ? rule[country] : undefined
}

/**
 * Whether the transfer would make the recipient's identity a new holder in a country that
 * `max_holders_per_country` caps: only then is the country's count read and compared.
 */
export function addsCappedHolder(rules: InvestorRules, move: Movement, facts: InvestorFacts): boolean {
  const recipient = facts.recipient_identity
  if (!recipient || countryCap(rules.max_holders_per_country, recipient.country) === undefined) return false
  return facts.recipient_total === 0 && !sameInvestor(move, facts)
}

/**
 * How many holder identities the recipient's country has after a transfer that adds the recipient's
 * identity (`addsCappedHolder`): one more, unless the sender's identity, of the same country, sends
 * all it holds and leaves.
 */
export function countryHoldersAfter(move: Movement, facts: InvestorFacts): number {
  const sender = facts.sender_identity
  const leaves =
    sender !== null &&
    sender.country === facts.recipient_identity?.country &&
    facts.sender_total === move.amount
  return (facts.country_holders ?? 0) + 1 - (leaves ? 1 : 0)
}

/**
 * The most units `percent` % of `supply` allows, rounded down; exact, since a percent has at most four
 * decimals (the contract) and the product is taken in integers.
 */
export function ownershipCapUnits(percent: number, supply: number): number {
  const millionths = BigInt(Math.round(percent * 10_000))
  return Number((millionths * BigInt(supply)) / 1_000_000n)
}

/** `units` as a percent of `supply`, to at most four decimals ("25.1%"). */
export function percentText(units: number, supply: number): string {
  if (supply <= 0) return '0%'
  return `${Number(((units / supply) * 100).toFixed(4))}%`
}

const listText = (list: readonly string[]) => list.join(', ')

/** "recipient did:…'s identity idn_…", or "recipient did:…" when it has none. */
const recipientText = (move: Movement, identity: InvestorIdentity | null) =>
  identity
    ? `recipient ${move.recipient_did}'s identity ${identity.identity_id}`
    : `recipient ${move.recipient_did}`

const noIdentity = (move: Movement) => `${move.recipient_did} has no identity`

/** The checks of every investor rule that is set, in a fixed order. */
export function investorRuleChecks(
  rules: InvestorRules,
  move: Movement,
  facts: InvestorFacts,
): ComplianceCheck[] {
  const checks: ComplianceCheck[] = []
  const to = move.to_jurisdiction
  const recipient = facts.recipient_identity
  const who = recipientText(move, recipient)

  const allow = rules.country_allow
  if (allow !== null) {
    const evidence = `rules.country_allow=${allow.join(',')}`
    if (!recipient) {
      checks.push(
        check(
          'country_allow',
          to,
          evidence,
          false,
          `${noIdentity(move)}: country_allow admits only identities of ${listText(allow)}`,
        ),
      )
    } else {
      const ok = allow.includes(recipient.country)
      checks.push(
        check(
          'country_allow',
          to,
          evidence,
          ok,
          ok
            ? `${who} is of ${recipient.country}, which country_allow admits`
            : `${who} is of ${recipient.country}, not in country_allow (${listText(allow)})`,
        ),
      )
    }
  }

  const deny = rules.country_deny
  if (deny !== null) {
    const evidence = `rules.country_deny=${deny.join(',')}`
    if (!recipient) {
      checks.push(
        check(
          'country_deny',
          to,
          evidence,
          false,
          `${noIdentity(move)}: country_deny admits only identities of a country not in ${listText(deny)}`,
        ),
      )
    } else {
      const denied = deny.includes(recipient.country)
      checks.push(
        check(
          'country_deny',
          to,
          evidence,
          !denied,
          denied
            ? `${who} is of ${recipient.country}, which country_deny refuses`
            : `${who} is of ${recipient.country}, not in country_deny (${listText(deny)})`,
        ),
      )
    }
  }

  const categories = rules.allowed_categories
  if (categories !== null) {
    const evidence = `rules.allowed_categories=${categories.join(',')}`
    if (!recipient) {
      checks.push(
        check(
          'allowed_categories',
          to,
          evidence,
          false,
          `${noIdentity(move)}: allowed_categories admits only identities of category ${listText(categories)}`,
        ),
      )
    } else {
      const category = recipient.category
      const ok = category !== null && (categories as readonly string[]).includes(category)
      checks.push(
        check(
          'allowed_categories',
          to,
          evidence,
          ok,
          category === null
            ? `${who} has no category: allowed_categories admits only ${listText(categories)}`
            : ok
              ? `${who} is of category ${category}, which allowed_categories admits`
              : `${who} is of category ${category}, not in allowed_categories (${listText(categories)})`,
        ),
      )
    }
  }

  const cap = recipient ? countryCap(rules.max_holders_per_country, recipient.country) : undefined
  if (recipient && cap !== undefined) {
    const country = recipient.country
    const evidence = `rules.max_holders_per_country.${country}=${cap}`
    if (!addsCappedHolder(rules, move, facts)) {
      // Like max_holders: a transfer that adds no holder identity is never refused (a lowered cap traps no one).
      checks.push(
        check(
          'max_holders_per_country',
          to,
          evidence,
          true,
          `the transfer adds no holder identity to ${country} (${who} already holds ${move.token_id}; max_holders_per_country ${cap})`,
        ),
      )
    } else {
      const before = facts.country_holders ?? 0
      const after = countryHoldersAfter(move, facts)
      const refused = after > cap && after > before
      const holders = `${after} holder ${after === 1 ? 'identity' : 'identities'} of ${move.token_id}`
      checks.push(
        check(
          'max_holders_per_country',
          to,
          evidence,
          !refused,
          refused
            ? `${country} would have ${holders}, over max_holders_per_country ${cap} by ${after - cap}`
            : after > before
              ? `${country} would have ${holders}, within max_holders_per_country ${cap}`
              : `${country} keeps ${holders}: the sender's identity ${facts.sender_identity?.identity_id} leaves it (max_holders_per_country ${cap})`,
        ),
      )
    }
  }

  const percent = rules.max_ownership_percent
  if (percent !== null) {
    const evidence = `rules.max_ownership_percent=${percent}`
    const investor = recipient
      ? `identity ${recipient.identity_id}`
      : `recipient ${move.recipient_did} (no identity)`
    const capUnits = ownershipCapUnits(percent, facts.supply)
    const limit = `max_ownership_percent ${percent} (${capUnits} of ${facts.supply} units)`
    if (sameInvestor(move, facts)) {
      checks.push(
        check(
          'max_ownership_percent',
          to,
          evidence,
          true,
          `the transfer moves units between ${investor}'s own holdings: its total stays ${facts.recipient_total} (${percentText(facts.recipient_total, facts.supply)}, ${limit})`,
        ),
      )
    } else {
      const after = facts.recipient_total + move.amount
      const holds = `${investor} would hold ${after} of ${move.token_id} over its DIDs and jurisdictions, ${percentText(after, facts.supply)} of the supply`
      checks.push(
        check(
          'max_ownership_percent',
          to,
          evidence,
          after <= capUnits,
          after <= capUnits ? `${holds}, within ${limit}` : `${holds}, over ${limit} by ${after - capUnits}`,
        ),
      )
    }
  }
  return checks
}

/** Whether any rule that reads identities is set (the facts are gathered only then). */
export const readsIdentities = (rules: InvestorRules): boolean =>
  rules.country_allow !== null ||
  rules.country_deny !== null ||
  rules.allowed_categories !== null ||
  rules.max_holders_per_country !== null ||
  rules.max_ownership_percent !== null
