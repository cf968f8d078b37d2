import type { Kysely, Migration } from 'kysely'

/**
 * Events and webhooks (docs/webhooks.md, issue 27):
 * - `events`: the outbox, one row per event, written in the transaction of its change; ids are
 *   time-sortable, so a page is newest first by `event_id`, per organization and per type.
 * - `webhook_endpoints`: an organization's endpoints with their signing secrets.
 * - `webhook_deliveries`: one row per event and endpoint; the index on (status, next_attempt_at) is
 *   what the delivery workers scan for due ones.
 * - `webhook_attempts`: each attempt, listed per endpoint newest first.
 * - `scheduled_event_marks`: a scheduled event (`*.expiring`, `trial.ending`) fired, keyed by type,
 *   record and threshold, so that it fires once whatever instance runs the job.
 * - `job_leases`: which instance runs a job, until when.
 */
export const events: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('events')
      .addColumn('event_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('events_org_idx').on('events').columns(['org_id', 'event_id']).execute()
    await db.schema
      .createIndex('events_type_idx')
      .on('events')
      .columns(['org_id', 'type', 'event_id'])
      .execute()

    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('webhook_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('failing_since', 'text')
      .execute()
    await db.schema
      .createIndex('webhook_endpoints_org_idx')
      .on('webhook_endpoints')
      .columns(['org_id', 'webhook_id'])
      .execute()

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('delivery_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('webhook_id', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'text')
      .addColumn('lease_until', 'text')
      .addColumn('lease_token', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('webhook_deliveries_due_idx')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute()
    await db.schema
      .createIndex('webhook_deliveries_endpoint_idx')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'delivery_id'])
      .execute()

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('attempt_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('webhook_id', 'text', (c) => c.notNull())
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('next_attempt_at', 'text')
      .execute()
    await db.schema
      .createIndex('webhook_attempts_endpoint_idx')
      .on('webhook_attempts')
      .columns(['webhook_id', 'attempt_id'])
      .execute()

    await db.schema
      .createTable('scheduled_event_marks')
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text', (c) => c.notNull())
      .addColumn('threshold', 'text', (c) => c.notNull())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('fired_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('scheduled_event_marks_pk', ['type', 'subject_id', 'threshold'])
      .execute()

    await db.schema
      .createTable('job_leases')
      .addColumn('job', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'text', (c) => c.notNull())
      .execute()
  },
}
