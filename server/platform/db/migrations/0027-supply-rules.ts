import { type Kysely, type Migration, sql } from 'kysely'

/**
 * Minting, burning and the rules that keep running counts (docs/governance.md, "Supply: mint and burn"
 * and "Transfer rules"), each kept up to date in the transaction that changes it, never recomputed
 * from the history:
 * - `tokens.supply`: the units in existence, the sum of the token's holdings; it moves only with a mint
 *   or a burn. Backfilled from the holdings.
 * - `transfer_window_volumes`: a sender's approved units of a token per bucket of one window length of
 *   rule `transfer_windows` (a bucket is 1/60 of its window, at least one second); `holder_key` is the
 *   sender's identity (`identity:<id>`) or its DID (`did:<did>`).
 * - `holding_receipts`: units a holding received by mint or transfer while rule
 *   `lockup_days_after_receipt` is set, per bucket of receipt time (`received_by`: the bucket's end,
 *   epoch seconds); taken first in first out, and deleted once their lock-up has passed.
 * `bigint` is 64-bit on PostgreSQL and INTEGER affinity on SQLite.
 */
export const supplyRules: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('tokens')
      .addColumn('supply', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute()
    await sql`
      update tokens set supply = coalesce(
        (select sum(h.amount) from holdings h where h.token_id = tokens.token_id), 0)`.execute(db)

    await db.schema
      .createTable('transfer_window_volumes')
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('holder_key', 'text', (c) => c.notNull())
      .addColumn('window_seconds', 'bigint', (c) => c.notNull())
      .addColumn('bucket_start', 'bigint', (c) => c.notNull())
      .addColumn('volume', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('transfer_window_volumes_pk', [
        'token_id',
        'holder_key',
        'window_seconds',
        'bucket_start',
      ])
      .execute()

    await db.schema
      .createTable('holding_receipts')
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('holder_did', 'text', (c) => c.notNull())
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('received_by', 'bigint', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('holding_receipts_pk', [
        'token_id',
        'holder_did',
        'jurisdiction',
        'received_by',
      ])
      .execute()
  },
}
