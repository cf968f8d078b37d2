import { sql } from 'kysely'
import { compiledOnce } from '../../../platform/db/compiled-query.js'
import type { Executor } from '../../../platform/db/queries.js'
import type { Receipt } from './buckets.js'

/**
 * The running counts of rules `transfer_windows` and `lockup_days_after_receipt` (migration 0027):
 * each written in the transaction of the transfer or mint it counts, after the token's row lock, so
 * the rows of a token are written by one transaction at a time (docs/architecture.md, "Concurrency").
 */

/** The largest volume kept: the contract's largest integer (past it, over any cap). */
const MAX_VOLUME = Number.MAX_SAFE_INTEGER

// ── transfer_windows ────────────────────────────────────────────────────────

/**
 * A sender's volume in each of its windows of a token (`seconds[i]`, summing its buckets from
 * `firstBuckets[i]` on), one row per window that has any; with whether the window has a bucket starting
 * at `current` (`at_current` 1). Summed by the database: one row a window rather than its ~61 buckets.
 */
export function windowSums(
  db: Executor,
  tokenId: string,
  holderKey: string,
  seconds: number[],
  firstBuckets: number[],
  current: number,
): Promise<Array<{ window_seconds: number | string; volume: number | string; at_current: number | string }>> {
  return windowSumsQuery(db, tokenId, holderKey, seconds, firstBuckets, current)
}

/**
 * One select a window, each an index range (token, holder, window length, buckets from its first on),
 * joined by UNION ALL: a window reads its ~61 buckets, whatever the other windows' buckets not yet
 * forgotten (those of a short window gather until a new bucket of the longest starts).
 */
const windowSumsQuery = compiledOnce(
  (
    db: Executor,
    tokenId: string,
    holderKey: string,
    seconds: number[],
    firstBuckets: number[],
    current: number,
  ) => {
    const one = (i: number) =>
      db
        .selectFrom('transfer_window_volumes')
        .select((eb) => [
          'window_seconds',
          eb.fn.sum<number | string>('volume').as('volume'),
          eb.fn
            .max<number | string>(eb.case().when('bucket_start', '=', current).then(1).else(0).end())
            .as('at_current'),
        ])
        .where('token_id', '=', tokenId)
        .where('holder_key', '=', holderKey)
        .where('window_seconds', '=', seconds[i]!)
        .where('bucket_start', '>=', firstBuckets[i]!)
        .groupBy('window_seconds')
    let query = one(0)
    for (let i = 1; i < seconds.length; i++) query = query.unionAll(one(i))
    return query
  },
)

/**
 * Adds an approved transfer's units to the sender's current bucket of each window length (`seconds[i]`,
 * `bucketStarts[i]`), saturating: one statement for every window.
 */
export const addWindowVolumes = compiledOnce(
  (
    db: Executor,
    tokenId: string,
    holderKey: string,
    seconds: number[],
    bucketStarts: number[],
    amount: number,
  ) =>
    db
      .insertInto('transfer_window_volumes')
      .values(
        seconds.map((s, i) => ({
          token_id: tokenId,
          holder_key: holderKey,
          window_seconds: s,
          bucket_start: bucketStarts[i]!,
          volume: amount,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['token_id', 'holder_key', 'window_seconds', 'bucket_start']).doUpdateSet(() => ({
          volume: sql<number>`case when transfer_window_volumes.volume > ${MAX_VOLUME} - excluded.volume then ${MAX_VOLUME} else transfer_window_volumes.volume + excluded.volume end`,
        })),
      ),
)

/**
 * Forgets a sender's buckets that no window can read any more (older than twice the window: a bucket
 * is at most the window long), so a sender's rows stay about 60 per window.
 */
export const pruneWindowVolumes = compiledOnce(
  (db: Executor, tokenId: string, holderKey: string, nowSec: number) =>
    db
      .deleteFrom('transfer_window_volumes')
      .where('token_id', '=', tokenId)
      .where('holder_key', '=', holderKey)
      .where((eb) => eb(eb('bucket_start', '+', eb('window_seconds', '*', 2)), '<', nowSec)),
)

/** Forgets the token's buckets of window lengths its rules no longer name (all when `keep` is empty). */
export async function dropWindowSeries(db: Executor, tokenId: string, keep: number[]): Promise<void> {
  let q = db.deleteFrom('transfer_window_volumes').where('token_id', '=', tokenId)
  if (keep.length > 0) q = q.where('window_seconds', 'not in', keep)
  await q.execute()
}

// ── lockup_days_after_receipt ───────────────────────────────────────────────

/** A holding's receipts, oldest first; only those received by after `after` when given. */
export async function receiptsOf(
  db: Executor,
  tokenId: string,
  holderDid: string,
  jurisdiction: string,
  after = -1,
): Promise<Receipt[]> {
  const rows = await receiptsQuery(db, tokenId, holderDid, jurisdiction, after)
  return rows.map((r) => ({ received_by: Number(r.received_by), amount: Number(r.amount) }))
}

const receiptsQuery = compiledOnce(
  (db: Executor, tokenId: string, holderDid: string, jurisdiction: string, after: number) =>
    db
      .selectFrom('holding_receipts')
      .select(['received_by', 'amount'])
      .where('token_id', '=', tokenId)
      .where('holder_did', '=', holderDid)
      .where('jurisdiction', '=', jurisdiction)
      .where('received_by', '>', after)
      .orderBy('received_by'),
)

/** Adds received units to a holding's bucket. */
export const addReceipt = compiledOnce(
  (
    db: Executor,
    tokenId: string,
    holderDid: string,
    jurisdiction: string,
    receivedBy: number,
    amount: number,
  ) =>
    db
      .insertInto('holding_receipts')
      .values({ token_id: tokenId, holder_did: holderDid, jurisdiction, received_by: receivedBy, amount })
      .onConflict((oc) =>
        oc
          .columns(['token_id', 'holder_did', 'jurisdiction', 'received_by'])
          .doUpdateSet((eb) => ({ amount: eb('holding_receipts.amount', '+', eb.ref('excluded.amount')) })),
      ),
)

/** Sets what is left of a receipt; a receipt left with nothing is deleted. */
export async function setReceipt(
  db: Executor,
  tokenId: string,
  holderDid: string,
  jurisdiction: string,
  receipt: Receipt,
): Promise<void> {
  if (receipt.amount > 0) {
    await updateReceiptQuery(db, tokenId, holderDid, jurisdiction, receipt.received_by, receipt.amount)
    return
  }
  await deleteReceiptQuery(db, tokenId, holderDid, jurisdiction, receipt.received_by)
}

const updateReceiptQuery = compiledOnce(
  (
    db: Executor,
    tokenId: string,
    holderDid: string,
    jurisdiction: string,
    receivedBy: number,
    amount: number,
  ) =>
    db
      .updateTable('holding_receipts')
      .set({ amount })
      .where('token_id', '=', tokenId)
      .where('holder_did', '=', holderDid)
      .where('jurisdiction', '=', jurisdiction)
      .where('received_by', '=', receivedBy),
)

const deleteReceiptQuery = compiledOnce(
  (db: Executor, tokenId: string, holderDid: string, jurisdiction: string, receivedBy: number) =>
    db
      .deleteFrom('holding_receipts')
      .where('token_id', '=', tokenId)
      .where('holder_did', '=', holderDid)
      .where('jurisdiction', '=', jurisdiction)
      .where('received_by', '=', receivedBy),
)

/** Forgets a holding's receipts whose lock-up has passed (received by `upTo` or before). */
export const dropUnlockedReceipts = compiledOnce(
  (db: Executor, tokenId: string, holderDid: string, jurisdiction: string, upTo: number) =>
    db
      .deleteFrom('holding_receipts')
      .where('token_id', '=', tokenId)
      .where('holder_did', '=', holderDid)
      .where('jurisdiction', '=', jurisdiction)
      .where('received_by', '<=', upTo),
)

/** Every receipt of a holder of a token, in every jurisdiction (a recovery moves them). */
export function receiptsOfHolder(db: Executor, tokenId: string, holderDid: string) {
  return db
    .selectFrom('holding_receipts')
    .select(['jurisdiction', 'received_by', 'amount'])
    .where('token_id', '=', tokenId)
    .where('holder_did', '=', holderDid)
    .execute()
}

/** Forgets every receipt of a holder of a token. */
export async function dropReceiptsOfHolder(db: Executor, tokenId: string, holderDid: string): Promise<void> {
  await db
    .deleteFrom('holding_receipts')
    .where('token_id', '=', tokenId)
    .where('holder_did', '=', holderDid)
    .execute()
}

/** Forgets every receipt of a token (its lock-up rule cleared). */
export async function dropTokenReceipts(db: Executor, tokenId: string): Promise<void> {
  await db.deleteFrom('holding_receipts').where('token_id', '=', tokenId).execute()
}
