import { type Kysely, type Migration, sql } from 'kysely'
import { isPostgres } from './dialect.js'

/**
 * A transfer's evaluation stored as the list and the detail read it (issue 11): `compliance_details`
 * (~2 KB, mostly its `checks`) becomes `compliance_summary` — the three fields a list item shows
 * (`source_requirements`, `target_requirements`, `all_satisfied`, in that order) — and
 * `compliance_checks`, the checks. A list page reads and parses only the summaries; the detail and the
 * proof put the two back together in the order the server always wrote them (the three fields, then
 * `checks`). Each thing is still stored once.
 *
 * Existing rows are split by the database's own JSON functions (`json` on PostgreSQL keeps the stored
 * text of each value, as SQLite's do). PostgreSQL changes the table in place; SQLite cannot add a
 * NOT NULL column without a default nor drop one cheaply, so its table is rebuilt (copy, drop, rename)
 * with its indexes.
 */
export const summaryColumns: Migration = {
  async up(db: Kysely<unknown>) {
    if (isPostgres(db)) {
      await db.schema.alterTable('transfers').addColumn('compliance_summary', 'text').execute()
      await db.schema.alterTable('transfers').addColumn('compliance_checks', 'text').execute()
      await sql`
        update transfers set
          compliance_summary = json_build_object(
            'source_requirements', compliance_details::json -> 'source_requirements',
            'target_requirements', compliance_details::json -> 'target_requirements',
            'all_satisfied', compliance_details::json -> 'all_satisfied')::text,
          compliance_checks = (compliance_details::json -> 'checks')::text`.execute(db)
      for (const column of ['compliance_summary', 'compliance_checks']) {
        await db.schema
          .alterTable('transfers')
          .alterColumn(column, (c) => c.setNotNull())
          .execute()
      }
      await db.schema.alterTable('transfers').dropColumn('compliance_details').execute()
      return
    }

    await db.schema
      .createTable('transfers_v8')
      .addColumn('transfer_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('from_jurisdiction', 'text', (c) => c.notNull())
      .addColumn('to_jurisdiction', 'text', (c) => c.notNull())
      .addColumn('sender_did', 'text', (c) => c.notNull())
      .addColumn('recipient_did', 'text', (c) => c.notNull())
      .addColumn('amount', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('proof_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('compliance_summary', 'text', (c) => c.notNull())
      .addColumn('compliance_checks', 'text', (c) => c.notNull())
      .execute()
    await sql`
      insert into transfers_v8 (transfer_id, org_id, token_id, from_jurisdiction, to_jurisdiction,
        sender_did, recipient_did, amount, status, proof_id, created_at, reason,
        compliance_summary, compliance_checks)
      select transfer_id, org_id, token_id, from_jurisdiction, to_jurisdiction,
        sender_did, recipient_did, amount, status, proof_id, created_at, reason,
        json_object(
          'source_requirements', json(compliance_details -> '$.source_requirements'),
          'target_requirements', json(compliance_details -> '$.target_requirements'),
          'all_satisfied', json(compliance_details -> '$.all_satisfied')),
        json(compliance_details -> '$.checks')
      from transfers`.execute(db)
    await db.schema.dropTable('transfers').execute()
    await db.schema.alterTable('transfers_v8').renameTo('transfers').execute()
    // The indexes transfers had after 0007, as they were.
    for (const [name, column] of [
      ['transfers_org_idx', undefined],
      ['transfers_token_idx', 'token_id'],
      ['transfers_status_idx', 'status'],
      ['transfers_from_idx', 'from_jurisdiction'],
      ['transfers_to_idx', 'to_jurisdiction'],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('transfers')
        .columns(column ? ['org_id', column, 'transfer_id'] : ['org_id', 'transfer_id'])
        .execute()
    }
  },
}
