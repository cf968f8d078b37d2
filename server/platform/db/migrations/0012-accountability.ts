import type { Kysely, Migration } from 'kysely'

/**
 * Accountability (docs/accountability.md, issue 24):
 * - `audit_events`: one row per change a write recorded, written in the write's own transaction. Event
 *   ids are time-sortable, so a page is newest first by `event_id`; each filter of `GET /console/audit`
 *   (action, target, acting key) has an index that starts with the organization and ends with the id.
 *   `actor` and `changes` are JSON text; `actor_key_id` repeats the acting key for its filter.
 * - `idempotency_keys`: an organization's `Idempotency-Key`s for 24 h: the request they were first
 *   sent with (method, path, a SHA-256 of the body), `in_flight` while it runs and `done` with the
 *   stored answer (status, headers, body) once it has one.
 */
export const accountability: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('audit_events')
      .addColumn('event_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('actor_key_id', 'text')
      .addColumn('request_id', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_type', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text', (c) => c.notNull())
      .addColumn('changes', 'text')
      .execute()
    const indexes = [
      ['audit_events_org_idx', ['org_id', 'event_id']],
      ['audit_events_action_idx', ['org_id', 'action', 'event_id']],
      ['audit_events_target_idx', ['org_id', 'target_id', 'event_id']],
      ['audit_events_actor_idx', ['org_id', 'actor_key_id', 'event_id']],
    ] as const
    for (const [name, columns] of indexes) {
      await db.schema
        .createIndex(name)
        .on('audit_events')
        .columns([...columns])
        .execute()
    }

    await db.schema
      .createTable('idempotency_keys')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('body_hash', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('headers', 'text')
      .addColumn('body', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['org_id', 'key'])
      .execute()
    await db.schema
      .createIndex('idempotency_keys_expiry_idx')
      .on('idempotency_keys')
      .column('expires_at')
      .execute()
  },
}
