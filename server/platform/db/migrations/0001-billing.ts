import type { Kysely, Migration } from 'kysely'

/** Organizations, API keys, subscriptions, daily usage and processed payment events. */
export const billing: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('organizations')
      .addColumn('org_id', 'text', (c) => c.primaryKey())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('trial_ends_at', 'text')
      .addColumn('trial_checked_at', 'text')
      .execute()

    await db.schema
      .createTable('api_keys')
      .addColumn('key_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.org_id'))
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('key_prefix', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute()
    await db.schema.createIndex('api_keys_org_idx').on('api_keys').columns(['org_id', 'key_id']).execute()

    await db.schema
      .createTable('subscriptions')
      .addColumn('org_id', 'text', (c) => c.primaryKey().references('organizations.org_id'))
      .addColumn('tier', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('payment_subscription_id', 'text')
      .addColumn('payment_customer_id', 'text')
      .addColumn('payment_price_id', 'text')
      .addColumn('current_period_start', 'text')
      .addColumn('current_period_end', 'text')
      .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('provider_updated_at', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('usage_daily')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('request_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('dids_created', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('skills_registered', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('usage_daily_pk', ['org_id', 'date'])
      .execute()

    await db.schema
      .createTable('processed_events')
      .addColumn('event_id', 'text', (c) => c.primaryKey())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('processed_at', 'text', (c) => c.notNull())
      .execute()
  },
}
