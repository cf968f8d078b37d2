import type { Kysely, Migration } from 'kysely'
import { isPostgres } from './dialect.js'

/**
 * Counters as 64-bit integers on PostgreSQL, where `integer` is 32-bit (SQLite's are 64-bit already),
 * as 0005 did for amounts: every count the contract serves may reach 2^53 - 1, and these can pass
 * 2^31 - 1 in a deployment's life, past which an increment is an error (`integer out of range`):
 * - `usage_daily`: a day's requests, DIDs created and skills registered (Enterprise has no daily
 *   limit; a batch counts each of its operations);
 * - the verifiable log (0015): an organization's log size (`tree_size`), each event's `log_index`
 *   and each stored node's position in its level.
 * Bounded counts stay 32-bit: a status list's capacity, used entries, version and indexes (at most
 * 2^18), webhook attempts, HTTP statuses. pg reads int8 as a number (database.ts's type parser).
 */
export const wideCounters: Migration = {
  async up(db: Kysely<unknown>) {
    if (!isPostgres(db)) return
    for (const [table, column] of [
      ['usage_daily', 'request_count'],
      ['usage_daily', 'dids_created'],
      ['usage_daily', 'skills_registered'],
      ['audit_events', 'log_index'],
      ['audit_logs', 'size'],
      ['audit_log_nodes', 'idx'],
    ] as const) {
      await db.schema
        .alterTable(table)
        .alterColumn(column, (c) => c.setDataType('bigint'))
        .execute()
    }
  },
}
