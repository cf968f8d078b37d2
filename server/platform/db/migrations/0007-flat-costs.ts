import { type Kysely, type Migration, sql } from 'kysely'

/**
 * Cost that stays flat as the data grows (docs/performance.md, "Cost as the data grows"): what a request used
 * to count or sum over an organization's whole history is kept as a counter, updated in the same transaction
 * as the row it counts (so it is exact, and never half-written), and backfilled here from the rows.
 * - `transfer_counts`: transfers per organization, token, status and route (from, to). A list's exact
 *   `total` sums the few counter rows its filters select, instead of COUNT(*) over the transfers.
 * - `token_event_counts`: events per token: a token detail's `governance_history_total` and the history
 *   page's `total`.
 * - `transfer_daily_volumes`: a sender's approved units of a token per UTC day (rule
 *   daily_volume_per_holder), instead of summing the day's transfers; `transfers_sender_day_idx`, which
 *   only that sum used, goes.
 * - `transfers_from_idx` and `transfers_to_idx` come back (0006 dropped them when no plan used them):
 *   a list filtered by jurisdiction now seeks a page from each and merges the two, instead of walking
 *   the organization's transfers through `transfers_org_idx`.
 * `bigint` is 64-bit on PostgreSQL and INTEGER affinity on SQLite.
 */
export const flatCosts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('transfer_counts')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('from_jurisdiction', 'text', (c) => c.notNull())
      .addColumn('to_jurisdiction', 'text', (c) => c.notNull())
      .addColumn('n', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('transfer_counts_pk', [
        'org_id',
        'token_id',
        'status',
        'from_jurisdiction',
        'to_jurisdiction',
      ])
      .execute()
    await sql`
      insert into transfer_counts (org_id, token_id, status, from_jurisdiction, to_jurisdiction, n)
      select org_id, token_id, status, from_jurisdiction, to_jurisdiction, count(*) from transfers
      group by org_id, token_id, status, from_jurisdiction, to_jurisdiction`.execute(db)

    await db.schema
      .createTable('token_event_counts')
      .addColumn('token_id', 'text', (c) => c.primaryKey())
      .addColumn('n', 'bigint', (c) => c.notNull())
      .execute()
    await sql`
      insert into token_event_counts (token_id, n)
      select token_id, count(*) from token_events group by token_id`.execute(db)

    await db.schema
      .createTable('transfer_daily_volumes')
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('sender_did', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('volume', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('transfer_daily_volumes_pk', ['token_id', 'sender_did', 'day'])
      .execute()
    await sql`
      insert into transfer_daily_volumes (token_id, sender_did, day, volume)
      select token_id, sender_did, substr(created_at, 1, 10), sum(amount) from transfers
      where status = 'approved'
      group by token_id, sender_did, substr(created_at, 1, 10)`.execute(db)
    await db.schema.dropIndex('transfers_sender_day_idx').ifExists().execute()
    await db.schema
      .createIndex('transfers_from_idx')
      .ifNotExists()
      .on('transfers')
      .columns(['org_id', 'from_jurisdiction', 'transfer_id'])
      .execute()
    await db.schema
      .createIndex('transfers_to_idx')
      .ifNotExists()
      .on('transfers')
      .columns(['org_id', 'to_jurisdiction', 'transfer_id'])
      .execute()
  },
}
