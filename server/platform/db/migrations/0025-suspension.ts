import type { Kysely, Migration } from 'kysely'

/**
 * Suspension of the organization's own credentials and attestations (docs/governance.md, "Suspension"):
 * - `status_lists.purpose`: `revocation` (every list so far) or `suspension`. A revocation list gets a
 *   sibling suspension list of the same capacity (`suspension_list_id`), and an entry has the same index
 *   in both, so no second index is drawn.
 * - `status_list_suspensions`: the set bits of a suspension list, one row per suspended entry; a row is
 *   deleted when its record is reinstated (a revocation bit is never cleared, a suspension bit is).
 * - `suspended_at`, `suspension_reason` on credentials and attestations: set while suspended. Their
 *   `status` stays `active` meanwhile, so that a suspended credential keeps its title deed (the partial
 *   unique index over active credentials) and reinstating it never collides with another.
 */
export const suspension: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('status_lists')
      .addColumn('purpose', 'text', (c) => c.notNull().defaultTo('revocation'))
      .execute()
    await db.schema.alterTable('status_lists').addColumn('suspension_list_id', 'text').execute()
    await db.schema
      .createTable('status_list_suspensions')
      .addColumn('list_id', 'text', (c) => c.notNull())
      .addColumn('status_index', 'integer', (c) => c.notNull())
      .addColumn('suspended_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('status_list_suspensions_pk', ['list_id', 'status_index'])
      .execute()
    for (const table of ['credentials', 'attestations']) {
      await db.schema.alterTable(table).addColumn('suspended_at', 'text').execute()
      await db.schema.alterTable(table).addColumn('suspension_reason', 'text').execute()
    }
  },
}
