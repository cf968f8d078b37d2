import { type Kysely, type Migration, sql } from 'kysely'
import { isPostgres } from './dialect.js'

/**
 * What several instances over one PostgreSQL database need of the schema:
 * - amounts and supplies as 64-bit integers (`integer` is 32-bit on PostgreSQL, 64-bit on SQLite
 *   already), since the contract allows up to 2^53-1: supplies, holdings with their frozen units
 *   (0004), transfers;
 * - one active trust relation per pair of jurisdictions, in either direction, held by a partial unique
 *   index, so two concurrent requests cannot both establish it (the second is a 409).
 */
export const sharedInstances: Migration = {
  async up(db: Kysely<unknown>) {
    const postgres = isPostgres(db)
    if (postgres) {
      for (const [table, column] of [
        ['tokens', 'total_supply'],
        ['holdings', 'amount'],
        ['holdings', 'frozen_amount'],
        ['transfers', 'amount'],
      ] as const) {
        await db.schema
          .alterTable(table)
          .alterColumn(column, (c) => c.setDataType('bigint'))
          .execute()
      }
    }
    // The pair in a fixed order, so A→B and B→A are the same pair: SQLite's two-argument min/max are
    // PostgreSQL's least/greatest.
    const [low, high] = postgres ? ['least', 'greatest'] : ['min', 'max']
    await sql`
      create unique index trust_active_pair_uq on trust_relations
        (org_id, ${sql.raw(low)}(from_jurisdiction, to_jurisdiction), ${sql.raw(high)}(from_jurisdiction, to_jurisdiction))
        where status = 'active'`.execute(db)
  },
}
