import type { TokenRules } from '../../../../src/contract/rwa.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { Executor } from '../../../platform/db/queries.js'
import { balanceOf } from '../holdings/queries.js'
import { identitiesOfDids } from '../identities/queries.js'
import {
  epochSeconds,
  lockedSince,
  receivedBy,
  takeFirstInFirstOut,
  windowBucketOf,
  windowFirstBucket,
} from './buckets.js'
import {
  addReceipt,
  addWindowVolumes,
  dropReceiptsOfHolder,
  dropTokenReceipts,
  dropUnlockedReceipts,
  dropWindowSeries,
  pruneWindowVolumes,
  receiptsOf,
  receiptsOfHolder,
  setReceipt,
  windowSums,
} from './queries.js'

/*
 * The running counts behind rules `transfer_windows` and `lockup_days_after_receipt`: read for an
 * evaluation, and kept up to date by every approved transfer, forced transfer, mint, burn and
 * recovery in its own transaction, after the token's row lock (which serializes them per token, so the
 * counts are exact on PostgreSQL too). Counted only while the rule is set: setting it starts from
 * nothing, clearing it forgets (docs/governance.md, "Running counts and their exactness").
 */

/** What the holding rules read, gathered before the transfer. */
export interface HoldingRuleFacts {
  /**
   * The sender's units of the token across every jurisdiction; null when not read because its source
   * holding alone keeps it at `min_holding` or more after the transfer (its total is at least that).
   */
  sender_balance: number | null
  /** Whose volume the windows count: `identity idn_…` or the sender's DID. */
  sender_label: string
  /** The sender's approved volume in each window of `transfer_windows` (by its `seconds`), before this one. */
  window_volumes: ReadonlyMap<number, number>
  /** Units of the sender's source holding still locked after their receipt, and when the first unlocks. */
  locked: { amount: number; next_unlock: string | null }
  /** Whose windows: `identity:<id>` or `did:<did>` (null while the rule is not set). */
  window_key: string | null
  /** Whether the sender's current bucket of its longest window holds a volume already. */
  window_bucket_started: boolean
}

/** Facts of a token with none of these rules set (nothing to read). */
export const NO_HOLDING_FACTS: HoldingRuleFacts = Object.freeze({
  sender_balance: null,
  sender_label: '',
  window_volumes: new Map<number, number>(),
  locked: { amount: 0, next_unlock: null },
  window_key: null,
  window_bucket_started: false,
})

/**
 * Whose volume a sender's windows count: its identity when its DID has one, else the DID. `known`: the
 * sender's identity (null: none) when the evaluation read it already (the rules that read identities).
 */
export async function windowHolder(
  db: Executor,
  orgId: string,
  senderDid: string,
  known?: { identity_id: string } | null,
): Promise<{ key: string; label: string }> {
  const identity =
    known !== undefined ? known : (await identitiesOfDids(db, orgId, [senderDid])).get(senderDid)
  return identity
    ? { key: `identity:${identity.identity_id}`, label: `identity ${identity.identity_id} (${senderDid})` }
    : { key: `did:${senderDid}`, label: senderDid }
}

/**
 * The sender's approved volume in each window, before this transfer, and whether the current bucket of
 * its longest window holds a volume already (one statement, summed by the database).
 */
export async function windowVolumes(
  db: Executor,
  tokenId: string,
  holderKey: string,
  windows: readonly { seconds: number }[],
  nowSec: number,
): Promise<{ volumes: Map<number, number>; started: boolean }> {
  const seconds = windows.map((w) => w.seconds)
  const longest = Math.max(...seconds)
  const rows = await windowSums(
    db,
    tokenId,
    holderKey,
    seconds,
    seconds.map((s) => windowFirstBucket(s, nowSec)),
    windowBucketOf(longest, nowSec),
  )
  const volumes = new Map<number, number>(seconds.map((s) => [s, 0]))
  let started = false
  for (const r of rows) {
    const s = Number(r.window_seconds)
    volumes.set(s, Number(r.volume))
    if (s === longest && Number(r.at_current) === 1) started = true
  }
  return { volumes, started }
}

/** The units of a holding still locked after their receipt, and when the first of them unlocks. */
export async function lockedUnits(
  db: Executor,
  tokenId: string,
  holderDid: string,
  jurisdiction: string,
  days: number,
  nowSec: number,
): Promise<HoldingRuleFacts['locked']> {
  const receipts = await receiptsOf(db, tokenId, holderDid, jurisdiction, lockedSince(days, nowSec))
  return {
    amount: receipts.reduce((sum, r) => sum + r.amount, 0),
    next_unlock:
      receipts.length === 0 ? null : isoTimestamp((receipts[0]!.received_by + days * 86_400) * 1000),
  }
}

/** The facts of the rules that are set (nothing is read for those that are not). */
export async function holdingRuleFacts(
  db: Executor,
  orgId: string,
  rules: TokenRules,
  move: { token_id: string; sender_did: string; from_jurisdiction: string; amount: number },
  /** The sender's units in the source jurisdiction, read already. */
  senderHolding: number,
  nowMs: number,
  /** The sender's identity (null: none), when the evaluation read it already. */
  senderIdentity?: { identity_id: string } | null,
): Promise<HoldingRuleFacts> {
  const nowSec = epochSeconds(nowMs)
  const facts = { ...NO_HOLDING_FACTS }
  if (rules.min_holding !== null && senderHolding - move.amount < rules.min_holding) {
    facts.sender_balance = await balanceOf(db, move.token_id, move.sender_did)
  }
  if (rules.transfer_windows !== null) {
    const holder = await windowHolder(db, orgId, move.sender_did, senderIdentity)
    const read = await windowVolumes(db, move.token_id, holder.key, rules.transfer_windows, nowSec)
    facts.sender_label = holder.label
    facts.window_key = holder.key
    facts.window_volumes = read.volumes
    facts.window_bucket_started = read.started
  }
  if (rules.lockup_days_after_receipt !== null) {
    facts.locked = await lockedUnits(
      db,
      move.token_id,
      move.sender_did,
      move.from_jurisdiction,
      rules.lockup_days_after_receipt,
      nowSec,
    )
  }
  return facts
}

/**
 * Adds an approved transfer's units to the sender's window buckets (forced transfers never count), as
 * its evaluation read them (`facts`: the same transaction, under the token's lock). The buckets no
 * window reads any more are deleted when a new bucket of the longest window starts (at most 60 times a
 * window): a sender keeps about 120 rows of its longest window, and of a shorter one those of a bucket
 * of the longest at most (a minute's window beside a 30 days' one: up to 12 hours of one-second
 * buckets). A window's read takes only its own ~61 buckets whatever that number (windowSums).
 */
export async function countWindowVolume(
  db: Executor,
  rules: TokenRules,
  tokenId: string,
  facts: HoldingRuleFacts,
  amount: number,
  nowMs: number,
): Promise<void> {
  if (rules.transfer_windows === null || facts.window_key === null) return
  const nowSec = epochSeconds(nowMs)
  const seconds = rules.transfer_windows.map((w) => w.seconds)
  const buckets = seconds.map((s) => windowBucketOf(s, nowSec))
  await addWindowVolumes(db, tokenId, facts.window_key, seconds, buckets, amount)
  if (!facts.window_bucket_started) await pruneWindowVolumes(db, tokenId, facts.window_key, nowSec)
}

/**
 * Units a holding received (by mint or transfer): locked for the rule's days from now. Receipts whose
 * lock-up passed stay until the holding next sends (countSend drops them); reads skip them.
 */
export async function countReceipt(
  db: Executor,
  rules: TokenRules,
  tokenId: string,
  holderDid: string,
  jurisdiction: string,
  amount: number,
  nowMs: number,
): Promise<void> {
  const days = rules.lockup_days_after_receipt
  if (days === null) return
  await addReceipt(db, tokenId, holderDid, jurisdiction, receivedBy(days, epochSeconds(nowMs)), amount)
}

/**
 * Units leaving a holding of `held` units (a transfer, forced or not, or a burn): taken from its
 * receipts first in first out, after the units that are not among them. `lockedBefore`, when the
 * caller read it (an evaluation's facts): with nothing locked there is nothing to protect, and the
 * receipts whose lock-up passed, oldest of all, are left for a later send to drop.
 */
export async function countSend(
  db: Executor,
  rules: TokenRules,
  tokenId: string,
  holderDid: string,
  jurisdiction: string,
  held: number,
  amount: number,
  nowMs: number,
  lockedBefore?: number,
): Promise<void> {
  const days = rules.lockup_days_after_receipt
  if (days === null || lockedBefore === 0) return
  await dropUnlockedReceipts(db, tokenId, holderDid, jurisdiction, lockedSince(days, epochSeconds(nowMs)))
  const receipts = await receiptsOf(db, tokenId, holderDid, jurisdiction)
  for (const left of takeFirstInFirstOut(receipts, held, amount)) {
    await setReceipt(db, tokenId, holderDid, jurisdiction, left)
  }
}

/** A recovery: the lost DID's receipts (still locked) go with its holdings to the new DID. */
export async function moveReceipts(
  db: Executor,
  tokenId: string,
  lostDid: string,
  newDid: string,
): Promise<void> {
  const rows = await receiptsOfHolder(db, tokenId, lostDid)
  if (rows.length === 0) return
  await dropReceiptsOfHolder(db, tokenId, lostDid)
  for (const r of rows) {
    await addReceipt(db, tokenId, newDid, r.jurisdiction, Number(r.received_by), Number(r.amount))
  }
}

/** New rules: the counts of a window length no longer named, or of a lock-up cleared, are forgotten. */
export async function rulesReplaced(db: Executor, tokenId: string, previous: TokenRules, next: TokenRules) {
  if (previous.transfer_windows !== null) {
    const keep = (next.transfer_windows ?? []).map((w) => w.seconds)
    if (previous.transfer_windows.some((w) => !keep.includes(w.seconds)))
      await dropWindowSeries(db, tokenId, keep)
  }
  if (previous.lockup_days_after_receipt !== null && next.lockup_days_after_receipt === null) {
    await dropTokenReceipts(db, tokenId)
  }
}
