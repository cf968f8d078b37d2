/*
 * The time buckets of the rules that keep running counts (docs/governance.md, "Running counts and
 * their exactness"): a window of `transfer_windows` and a lock-up of `lockup_days_after_receipt` are
 * kept as a bounded number of rows, each 1/60 of the period long, so that reading either costs the same
 * whatever the history. Pure.
 */

/** Buckets per period: a window or a lock-up is read from at most this many rows (plus one). */
export const BUCKETS_PER_PERIOD = 60

/** Seconds since the epoch of an instant given in milliseconds. */
export const epochSeconds = (ms: number): number => Math.floor(ms / 1000)

/** The length of one bucket of a window of `seconds`: 1/60 of it, at least one second. */
export const windowBucketSeconds = (seconds: number): number =>
  Math.max(1, Math.floor(seconds / BUCKETS_PER_PERIOD))

/** The bucket a volume at `nowSec` is added to, for a window of `seconds`. */
export const windowBucketOf = (seconds: number, nowSec: number): number => {
  const b = windowBucketSeconds(seconds)
  return Math.floor(nowSec / b) * b
}

/**
 * The first bucket a window of `seconds` ending at `nowSec` reads: every bucket that overlaps the
 * window counts whole, so a transfer counts for at least `seconds` and at most `seconds` plus one
 * bucket (1/60 more): the cap is never exceeded within any window of the exact length.
 */
export const windowFirstBucket = (seconds: number, nowSec: number): number => {
  const b = windowBucketSeconds(seconds)
  return Math.floor((nowSec - seconds) / b) * b
}

/** The length of one receipt bucket of a lock-up of `days`: 1/60 of it (a day's lock-up: 24 minutes). */
export const receiptBucketSeconds = (days: number): number => (days * 86_400) / BUCKETS_PER_PERIOD

/**
 * The end of the receipt bucket of units received at `nowSec` (`received_by`): they stay locked until
 * `received_by` plus the lock-up, i.e. at least `days` and at most `days` plus 1/60 after the receipt.
 */
export const receivedBy = (days: number, nowSec: number): number => {
  const b = receiptBucketSeconds(days)
  return (Math.floor(nowSec / b) + 1) * b
}

/** The receipts still locked at `nowSec` are those with `received_by` after this. */
export const lockedSince = (days: number, nowSec: number): number => nowSec - days * 86_400

/** A receipt of a holding: units received by mint or transfer, not yet sent on. */
export interface Receipt {
  received_by: number
  amount: number
}

/**
 * What sending `amount` of a holding of `held` units takes from its receipts, first in first out: the
 * units not among the receipts (from tokenization, or whose lock-up passed) are the oldest and go first,
 * then the oldest receipts. Returns each receipt touched with what is left of it (0: gone).
 */
export function takeFirstInFirstOut(receipts: readonly Receipt[], held: number, amount: number): Receipt[] {
  const inReceipts = receipts.reduce((sum, r) => sum + r.amount, 0)
  let toTake = amount - Math.max(0, held - inReceipts)
  const touched: Receipt[] = []
  for (const r of [...receipts].sort((a, b) => a.received_by - b.received_by)) {
    if (toTake <= 0) break
    const taken = Math.min(r.amount, toTake)
    toTake -= taken
    touched.push({ received_by: r.received_by, amount: r.amount - taken })
  }
  return touched
}
