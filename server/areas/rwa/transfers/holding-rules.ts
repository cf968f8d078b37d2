import type { ComplianceCheck, TokenRules, TransferWindow } from '../../../../src/contract/rwa.js'
import type { HoldingRuleFacts } from '../rule-counters/counters.js'
import type { Movement } from './ledger-checks.js'

/*
 * The rules on what a holder holds, sends and has just received, and on the supply (T-REX's
 * MinBalance-like bound, TimeTransfersLimitsModule, TimeExchange lock-ups, SupplyLimitModule): each a
 * pure decision on facts read before the transfer (or the mint), each transfer rule a check named
 * `rule:<name>` whose reason says by how much a refused transfer misses. Only rules that are set
 * produce a check.
 */

/** Whether any rule of this file that reads facts is set (else nothing needs reading). */
export const readsHoldingFacts = (rules: TokenRules): boolean =>
  rules.min_holding !== null || rules.transfer_windows !== null || rules.lockup_days_after_receipt !== null

const check = (
  name: keyof TokenRules,
  jurisdiction: string,
  evidence: string,
  satisfied: boolean,
  reason: string,
): ComplianceCheck => ({ requirement: `rule:${name}`, jurisdiction, satisfied, evidence, reason })

/** A window's length in words: `86400 s`. */
const windowText = (w: TransferWindow) => `${w.seconds} s`

/** The checks of the rules of this file that are set: lock-up after receipt, windows, min holding. */
export function holdingRuleChecks(
  rules: TokenRules,
  move: Movement,
  ledger: { sender_holding: { amount: number }; recipient_balance: number },
  facts: HoldingRuleFacts,
): ComplianceCheck[] {
  const checks: ComplianceCheck[] = []
  if (rules.lockup_days_after_receipt !== null) {
    checks.push(
      lockupAfterReceiptCheck(rules.lockup_days_after_receipt, move, ledger.sender_holding.amount, facts),
    )
  }
  if (rules.transfer_windows !== null) checks.push(transferWindowsCheck(rules.transfer_windows, move, facts))
  if (rules.min_holding !== null) {
    checks.push(
      minHoldingCheck(
        rules.min_holding,
        move,
        facts.sender_balance ?? { atLeast: ledger.sender_holding.amount },
        ledger.recipient_balance,
      ),
    )
  }
  return checks
}

/**
 * `rule:lockup_days_after_receipt`: units the sender's source holding received (by mint or transfer)
 * in the last `days` days cannot move; the amount must come from the others.
 */
export function lockupAfterReceiptCheck(
  days: number,
  move: Movement,
  held: number,
  facts: Pick<HoldingRuleFacts, 'locked'>,
): ComplianceCheck {
  const locked = Math.min(facts.locked.amount, held)
  const free = held - locked
  const ok = move.amount <= free
  const where = `of the sender's ${held} units in ${move.from_jurisdiction}`
  const next = facts.locked.next_unlock === null ? '' : `; the next unlock at ${facts.locked.next_unlock}`
  return check(
    'lockup_days_after_receipt',
    move.from_jurisdiction,
    `rules.lockup_days_after_receipt=${days}`,
    ok,
    locked === 0
      ? `none ${where} was received in the last ${days} days`
      : ok
        ? `${locked} ${where} were received in the last ${days} days and are locked; the ${move.amount} requested come from the ${free} that are not${next}`
        : `${locked} ${where} were received in the last ${days} days and are locked: only ${free} can be sent, ${move.amount - free} fewer than the ${move.amount} requested${next}`,
  )
}

/**
 * `rule:transfer_windows`: in each window, the sender's approved volume with this transfer stays
 * within its `max_volume`. One check for every window; a refusal names each window it misses and by
 * how much.
 */
export function transferWindowsCheck(
  windows: readonly TransferWindow[],
  move: Movement,
  facts: Pick<HoldingRuleFacts, 'sender_label' | 'window_volumes'>,
): ComplianceCheck {
  const results = windows.map((w) => {
    const before = facts.window_volumes.get(w.seconds) ?? 0
    const after = before + move.amount
    return { w, before, after, over: after - w.max_volume }
  })
  const missed = results.filter((r) => r.over > 0)
  const shown = missed.length > 0 ? missed : results
  const text = shown
    .map(({ w, before, after, over }) =>
      over > 0
        ? `in the last ${windowText(w)} it would be ${after} (${before} before this transfer), over max_volume ${w.max_volume} by ${over}`
        : `in the last ${windowText(w)} ${after} of max_volume ${w.max_volume}`,
    )
    .join('; ')
  return check(
    'transfer_windows',
    move.from_jurisdiction,
    `rules.transfer_windows=${windows.map((w) => `${w.seconds}s:${w.max_volume}`).join(',')}`,
    missed.length === 0,
    `sender ${facts.sender_label}'s approved volume ${text}`,
  )
}

/**
 * `rule:min_holding`: after the transfer, the sender's and the recipient's totals in the token are
 * each 0 or at least `min` (moving between one's own holdings changes neither). The sender's total is
 * its balance across jurisdictions, or `{ atLeast }` its source holding when that alone decides.
 */
export function minHoldingCheck(
  min: number,
  move: Movement,
  senderBalance: number | { atLeast: number },
  recipientBalance: number,
): ComplianceCheck {
  const own = move.sender_did === move.recipient_did
  const lower = typeof senderBalance === 'number' ? '' : 'at least '
  const senderTotal = typeof senderBalance === 'number' ? senderBalance : senderBalance.atLeast
  const sides = [
    { who: `sender ${move.sender_did}`, after: senderTotal - (own ? 0 : move.amount), lower },
    { who: `recipient ${move.recipient_did}`, after: recipientBalance + (own ? 0 : move.amount), lower: '' },
  ]
  const short = sides.filter((s) => s.after !== 0 && s.after < min)
  return check(
    'min_holding',
    move.from_jurisdiction,
    `rules.min_holding=${min}`,
    short.length === 0,
    short.length === 0
      ? `${sides.map((s) => `${s.who} would hold ${s.lower}${s.after}`).join(' and ')} of ${move.token_id}: 0 or at least min_holding ${min}`
      : short
          .map(
            (s) =>
              `${s.who} would hold ${s.after} of ${move.token_id}, under min_holding ${min} by ${min - s.after} (and not 0)`,
          )
          .join('; '),
  )
}
