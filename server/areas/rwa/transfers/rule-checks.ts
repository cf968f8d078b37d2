import type { ComplianceCheck, TokenRules } from '../../../../src/contract/rwa.js'
import type { LedgerFacts, Movement } from './ledger-checks.js'
import { before } from './requirement-checks.js'

/*
 * The token's transfer rules (T-REX compliance modules), each a check named `rule:<name>` whose reason
 * says by how much a refused transfer misses. Only rules that are set produce a check. Pure.
 */

const check = (
  name: keyof TokenRules,
  jurisdiction: string,
  evidence: string,
  satisfied: boolean,
  reason: string,
): ComplianceCheck => ({ requirement: `rule:${name}`, jurisdiction, satisfied, evidence, reason })

/** "3d 4h 5m", the time left until a lock-up ends. */
export function durationText(ms: number): string {
  const minutes = Math.ceil(ms / 60_000)
  const d = Math.floor(minutes / 1440)
  const h = Math.floor((minutes % 1440) / 60)
  const m = minutes % 60
  return [d ? `${d}d` : '', h ? `${h}h` : '', m || (!d && !h) ? `${m}m` : ''].filter(Boolean).join(' ')
}

/** The cap `max_holders` puts on `jurisdiction`, if any. */
export function holderCap(rule: TokenRules['max_holders'], jurisdiction: string): number | undefined {
  if (rule === null) return undefined
  // Object.hasOwn: a jurisdiction named `constructor` or `__proto__` must not read Object.prototype.
  return typeof rule === 'number' ? rule : Object.hasOwn(rule, jurisdiction) ? rule[jurisdiction] : undefined
}

/** How many holders the target has after the transfer (a holder leaves when its holding reaches 0). */
export function targetHoldersAfter(move: Movement, ledger: LedgerFacts): number {
  const joins = ledger.recipient_holds_in_target ? 0 : 1
  const leaves =
    move.from_jurisdiction === move.to_jurisdiction &&
    move.sender_did !== move.recipient_did &&
    move.amount === ledger.sender_holding.amount
      ? 1
      : 0
  return ledger.target_holders + joins - leaves
}

/** The checks of every rule that is set, in a fixed order. */
export function ruleChecks(
  rules: TokenRules,
  move: Movement,
  ledger: LedgerFacts,
  now: string,
): ComplianceCheck[] {
  const checks: ComplianceCheck[] = []
  const { from_jurisdiction: from, to_jurisdiction: to, amount } = move

  if (rules.lockup_until !== null) {
    const locked = before(now, rules.lockup_until)
    checks.push(
      check(
        'lockup_until',
        from,
        `rules.lockup_until=${rules.lockup_until}`,
        !locked,
        locked
          ? `token is locked up until ${rules.lockup_until} (${durationText(Date.parse(rules.lockup_until) - Date.parse(now))} left): only forced transfers move it before then`
          : `lock-up ended at ${rules.lockup_until}`,
      ),
    )
  }

  const maxAmount = rules.max_transfer_amount
  if (maxAmount !== null) {
    const over = amount - maxAmount
    checks.push(
      check(
        'max_transfer_amount',
        from,
        `rules.max_transfer_amount=${maxAmount}`,
        over <= 0,
        over <= 0
          ? `amount ${amount} is within max_transfer_amount ${maxAmount}`
          : `amount ${amount} is over max_transfer_amount ${maxAmount} by ${over}`,
      ),
    )
  }

  const daily = rules.daily_volume_per_holder
  if (daily !== null) {
    const after = ledger.sender_volume_today + amount
    const day = now.slice(0, 10)
    const volume = `sender ${move.sender_did}'s approved volume on ${day} would be ${after} (${ledger.sender_volume_today} before this transfer)`
    checks.push(
      check(
        'daily_volume_per_holder',
        from,
        `rules.daily_volume_per_holder=${daily}`,
        after <= daily,
        after <= daily
          ? `${volume}, within daily_volume_per_holder ${daily}`
          : `${volume}, over daily_volume_per_holder ${daily} by ${after - daily}`,
      ),
    )
  }

  const maxBalance = rules.max_balance_per_holder
  if (maxBalance !== null) {
    // Moving between one's own holdings does not change one's total.
    const after = ledger.recipient_balance + (move.recipient_did === move.sender_did ? 0 : amount)
    const holds = `recipient ${move.recipient_did} would hold ${after} of ${move.token_id} across jurisdictions`
    checks.push(
      check(
        'max_balance_per_holder',
        to,
        `rules.max_balance_per_holder=${maxBalance}`,
        after <= maxBalance,
        after <= maxBalance
          ? `${holds}, within max_balance_per_holder ${maxBalance}`
          : `${holds}, over max_balance_per_holder ${maxBalance} by ${after - maxBalance}`,
      ),
    )
  }

  const cap = holderCap(rules.max_holders, to)
  if (cap !== undefined) {
    const beforeCount = ledger.target_holders
    const after = targetHoldersAfter(move, ledger)
    const evidence =
      typeof rules.max_holders === 'number' ? `rules.max_holders=${cap}` : `rules.max_holders.${to}=${cap}`
    // Like T-REX's country cap: a transfer that adds no holder is never refused by it.
    const refused = after > cap && after > beforeCount
    const holders = `${after} ${after === 1 ? 'holder' : 'holders'} of ${move.token_id}`
    checks.push(
      check(
        'max_holders',
        to,
        evidence,
        !refused,
        refused
          ? `${to} would have ${holders}, over max_holders ${cap} by ${after - cap}`
          : after > beforeCount
            ? `${to} would have ${holders}, within max_holders ${cap}`
            : `the transfer adds no holder to ${to} (${holders}, max_holders ${cap})`,
      ),
    )
  }
  return checks
}
