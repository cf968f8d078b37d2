import type { ProofTransfer, TokenRules } from '../../../../src/contract/rwa.js'
import type { Executor } from '../../../platform/db/queries.js'
import {
  countReceipt,
  countSend,
  countWindowVolume,
  type HoldingRuleFacts,
  NO_HOLDING_FACTS,
} from '../rule-counters/counters.js'

/*
 * What a transfer that moved units adds to the running counts of the holding rules
 * (rule-counters/counters.ts): in its transaction, after the token's row lock.
 */

/**
 * An approved transfer: the sender's window volume, the units leaving its source holding (of `held`
 * units before), and the recipient's receipt (moving between one's own holdings receives nothing).
 */
export async function countApprovedTransfer(
  db: Executor,
  rules: TokenRules,
  facts: HoldingRuleFacts | undefined,
  transfer: ProofTransfer,
  tokenId: string,
  held: number,
  nowMs: number,
): Promise<void> {
  const read = facts ?? NO_HOLDING_FACTS
  await countWindowVolume(db, rules, tokenId, read, transfer.amount, nowMs)
  await countMoved(db, rules, transfer, tokenId, held, nowMs, facts?.locked.amount)
}

/** Units moved (approved or forced): taken from the sender's receipts, a receipt of the recipient. */
export async function countMoved(
  db: Executor,
  rules: TokenRules,
  transfer: ProofTransfer,
  tokenId: string,
  held: number,
  nowMs: number,
  /** The sender's locked units, when its evaluation read them. */
  lockedBefore?: number,
): Promise<void> {
  const { sender_did, recipient_did, from_jurisdiction, to_jurisdiction, amount } = transfer
  await countSend(db, rules, tokenId, sender_did, from_jurisdiction, held, amount, nowMs, lockedBefore)
  if (recipient_did !== sender_did) {
    await countReceipt(db, rules, tokenId, recipient_did, to_jurisdiction, amount, nowMs)
  }
}
