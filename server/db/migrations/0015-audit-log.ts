import type { Kysely, Migration } from 'kysely'
import { auditEventFromRow } from '../../audit/service.js'
import type { AuditEventsTable } from '../accountability-schema.js'
import { appendToFrontier, rootOfFrontier } from '../../../src/tlog/merkle.js'
import { eventLeafHash } from '../../../src/tlog/leaf.js'

/**
 * The verifiable log of each organization's audit events (issue 25;
 * docs/governance.md, "The verifiable log"):
 * - `audit_events.log_index`: the event's position in its organization's log (unique per organization).
 * - `audit_logs`: one row per organization, its tree's size, root (hex) and compact range (the hex
 *   roots of the complete subtrees its size decomposes into, largest first, comma-separated): an
 *   append reads and rewrites this row only, and PostgreSQL's lock on it serializes appends.
 * - `audit_log_nodes`: every complete subtree's hash (level 0: the leaves), which never changes once
 *   written: a proof at any size reads O(log n) of them.
 * The events recorded before this migration are appended in their id order (time-sortable).
 */
export const auditLog: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: the backfill reads rows of the schema as it is here.
  async up(db: Kysely<any>) {
    await db.schema.alterTable('audit_events').addColumn('log_index', 'integer').execute()
    await db.schema
      .createTable('audit_logs')
      .addColumn('org_id', 'text', (c) => c.primaryKey())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('root', 'text', (c) => c.notNull())
      .addColumn('frontier', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createTable('audit_log_nodes')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('level', 'integer', (c) => c.notNull())
      .addColumn('idx', 'integer', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('audit_log_nodes_pk', ['org_id', 'level', 'idx'])
      .execute()

    const orgs = await db.selectFrom('audit_events').select('org_id').distinct().execute()
    for (const { org_id } of orgs) {
      const rows = await db
        .selectFrom('audit_events')
        .selectAll()
        .where('org_id', '=', org_id)
        .orderBy('event_id')
        .execute()
      let frontier: Buffer[] = []
      let size = 0
      for (const row of rows) {
        const step = appendToFrontier(
          size,
          frontier,
          eventLeafHash(auditEventFromRow({ ...row, log_index: null } as AuditEventsTable)),
        )
        frontier = step.frontier
        await db
          .updateTable('audit_events')
          .set({ log_index: size })
          .where('event_id', '=', row.event_id)
          .execute()
        await db
          .insertInto('audit_log_nodes')
          .values(
            step.completed.map((n) => ({
              org_id,
              level: n.level,
              idx: n.index,
              hash: n.hash.toString('hex'),
            })),
          )
          .execute()
        size += 1
      }
      await db
        .insertInto('audit_logs')
        .values({
          org_id,
          size,
          root: rootOfFrontier(frontier).toString('hex'),
          frontier: frontier.map((h) => h.toString('hex')).join(','),
        })
        .execute()
    }
    await db.schema
      .createIndex('audit_events_log_idx')
      .on('audit_events')
      .columns(['org_id', 'log_index'])
      .unique()
      .execute()
  },
}
