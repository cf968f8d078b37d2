import type { ComplianceCheck, ComplianceDetails, TokenRules } from '../../../../src/contract/rwa.js'
import {
  holderNotFrozenCheck,
  type LedgerFacts,
  type Movement,
  sufficientHoldingCheck,
  tokenActiveCheck,
  unfrozenBalanceCheck,
} from './ledger-checks.js'
import {
  type AttestationFacts,
  type CredentialFacts,
  type ExternalAttestationFacts,
  credentialCheck,
  requirementCheck,
  type TrustFacts,
  trustCheck,
} from './requirement-checks.js'
import { type InvestorFacts, investorRuleChecks, NO_INVESTOR_FACTS } from './investor-rules.js'
import { ruleChecks } from './rule-checks.js'
import { holdingRuleChecks } from './holding-rules.js'
import { type HoldingRuleFacts, NO_HOLDING_FACTS } from '../rule-counters/counters.js'

/*
 * The compliance evaluation of a transfer, and of the agent operations that move units (a forced
 * transfer, a recovery): facts in, checks out. No HTTP, no SQL, no clock: the services gather the facts
 * and these decide. docs/governance.md states the rules with examples.
 */

export type { LedgerFacts } from './ledger-checks.js'
export { TOKEN_ACTIVE } from './ledger-checks.js'
export type { AttestationFacts, ExternalAttestationFacts, TrustFacts } from './requirement-checks.js'
export { CREDENTIAL_VALID, recognisedIssuers, TRUST, trustBetween, trusts } from './requirement-checks.js'

/** The requirement a forced transfer's recipient and a recovery's new identity must still meet. */
export const KYC = 'kyc'

export interface JurisdictionFacts {
  jurisdiction_id: string
  transfer_requirements: readonly string[]
  /** Requirements met only by trusted issuers' attestations (none when absent). */
  external_only?: readonly string[]
}

export interface TransferFacts {
  token: { token_id: string; status: string; credential_id: string }
  credential: CredentialFacts
  from: JurisdictionFacts
  to: JurisdictionFacts
  sender_did: string
  recipient_did: string
  /** The DIDs of the recipient's identity, itself included (docs/identities.md); absent: just it. */
  recipient_dids?: readonly string[]
  amount: number
  ledger: LedgerFacts
  rules: TokenRules
  /** The identities of both sides and what they hold (investor-rules.ts); none when absent. */
  investors?: InvestorFacts
  /** Active trust relations of the organization (others are ignored if passed). */
  trust: readonly TrustFacts[]
  /** Candidate attestations; those of other subjects or types are ignored. */
  attestations: readonly AttestationFacts[]
  /** Trusted issuers' attestations of the recipient (docs/issuers.md, "Evaluation"); none when absent. */
  external?: readonly ExternalAttestationFacts[]
  /** The instant of evaluation, ISO 8601 UTC. */
  now: string
  /** What the holding rules read (min_holding, transfer_windows, lockup_days_after_receipt); none when absent. */
  holding?: HoldingRuleFacts
}

/**
 * Evaluates a transfer. The checks, in order:
 * 1. `token_active`: the token is neither paused nor frozen by its revoked credential;
 * 2. `credential_valid`: the token's credential is not revoked and not past its valid_until;
 * 3. `sufficient_holding`: the sender holds the amount in the source;
 * 4. `holder_not_frozen`: neither side is frozen for the token;
 * 5. `unfrozen_balance` (when some of the sender's units there are frozen): the amount is unfrozen;
 * 6. `trust`: a cross-border transfer needs trust from source to target;
 * 7. `rule:<name>` for each transfer rule the token has, those that read identities last;
 * 8. each requirement of the source, then each of the target (once per jurisdiction), met by a valid
 *    attestation the jurisdiction recognises.
 * The transfer is approved only when every check is satisfied.
 */
export function evaluateTransfer(facts: TransferFacts): ComplianceDetails {
  const { token, from, to, now, ledger } = facts
  const move: Movement = {
    token_id: token.token_id,
    from_jurisdiction: from.jurisdiction_id,
    to_jurisdiction: to.jurisdiction_id,
    sender_did: facts.sender_did,
    recipient_did: facts.recipient_did,
    amount: facts.amount,
  }
  const checks: ComplianceCheck[] = [
    tokenActiveCheck(token, from.jurisdiction_id),
    credentialCheck(facts.credential, from.jurisdiction_id, now),
    sufficientHoldingCheck(move, ledger),
    holderNotFrozenCheck(move, ledger),
  ]
  const unfrozen = unfrozenBalanceCheck(move, ledger)
  if (unfrozen) checks.push(unfrozen)
  checks.push(trustCheck(facts.trust, from.jurisdiction_id, to.jurisdiction_id))
  checks.push(...ruleChecks(facts.rules, move, ledger, now))
  checks.push(...holdingRuleChecks(facts.rules, move, ledger, facts.holding ?? NO_HOLDING_FACTS))
  checks.push(...investorRuleChecks(facts.rules, move, facts.investors ?? NO_INVESTOR_FACTS))

  const requirementFacts = { ...facts, credential_id: token.credential_id }
  const seen = new Set<string>()
  for (const jurisdiction of [from, to]) {
    for (const requirement of jurisdiction.transfer_requirements) {
      const id = `${jurisdiction.jurisdiction_id}\u0000${requirement}`
      if (seen.has(id)) continue
      seen.add(id)
      const externalOnly = jurisdiction.external_only?.includes(requirement) ?? false
      checks.push(requirementCheck(requirementFacts, jurisdiction.jurisdiction_id, requirement, externalOnly))
    }
  }

  return {
    source_requirements: [...from.transfer_requirements],
    target_requirements: [...to.transfer_requirements],
    all_satisfied: checks.every((c) => c.satisfied),
    checks,
  }
}

/** What an agent operation's identity check needs: who must hold `kyc`, and where. */
export interface KycFacts {
  subject_did: string
  /** The DIDs of the subject's identity, itself included; absent: just it. */
  subject_dids?: readonly string[]
  credential_id: string
  /** Every jurisdiction whose recognition is needed. */
  jurisdictions: readonly string[]
  trust: readonly TrustFacts[]
  attestations: readonly AttestationFacts[]
  /** Trusted issuers' attestations of the subject (none when absent). */
  external?: readonly ExternalAttestationFacts[]
  now: string
}

/**
 * The evaluation of a forced transfer or a recovery (T-REX: an agent bypasses every requirement, rule,
 * freeze and pause): only `kyc` of `subject_did` recognised by each jurisdiction concerned. A forced
 * transfer names its target; a recovery every jurisdiction where the lost identity holds the token.
 */
export function evaluateKyc(facts: KycFacts): ComplianceDetails {
  const requirementFacts = { ...facts, recipient_did: facts.subject_did, recipient_dids: facts.subject_dids }
  const checks = [...new Set(facts.jurisdictions)].map((j) => requirementCheck(requirementFacts, j, KYC))
  return {
    source_requirements: [],
    target_requirements: [KYC],
    all_satisfied: checks.length > 0 && checks.every((c) => c.satisfied),
    checks,
  }
}
