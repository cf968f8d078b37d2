import type { Kysely, Migration } from 'kysely'

/**
 * Four eyes (docs/accountability.md, "Four eyes", issue 24):
 * - `approval_policies`: an organization's policy, one row once an owner has set it: the operations
 *   that need a second key (a JSON array of their policy names).
 * - `approvals`: a covered call waiting for (or decided by) a second key: the operation, the record of
 *   its path, its validated body (JSON), who asked and when it expires; once decided, by whom and, when
 *   approved, the operation's answer (`outcome`, JSON). `expired` is never stored: a `pending` row past
 *   its `expires_at` reads expired. Ids are time-sortable, so a page is newest first by `approval_id`,
 *   with an index per organization and one per organization and status for the `status` filter.
 */
export const approvals: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('approval_policies')
      .addColumn('org_id', 'text', (c) => c.primaryKey())
      .addColumn('require_approval', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('updated_by', 'text', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('approvals')
      .addColumn('approval_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('operation', 'text', (c) => c.notNull())
      .addColumn('target_type', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('requested_by', 'text', (c) => c.notNull())
      .addColumn('requested_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('decided_by', 'text')
      .addColumn('decided_at', 'text')
      .addColumn('reason', 'text')
      .addColumn('outcome', 'text')
      .execute()
    await db.schema
      .createIndex('approvals_org_idx')
      .on('approvals')
      .columns(['org_id', 'approval_id'])
      .execute()
    await db.schema
      .createIndex('approvals_status_idx')
      .on('approvals')
      .columns(['org_id', 'status', 'approval_id'])
      .execute()
  },
}
