import type { Kysely, Migration } from 'kysely'

/**
 * Webhook deliveries claimed per organization (docs/webhooks.md, "Deliveries"): a worker asks, per
 * enabled endpoint, whether a delivery is due, and counts each organization's claims in flight.
 * - `webhook_deliveries_endpoint_due_idx` (webhook_id, status, next_attempt_at): the due deliveries of
 *   one endpoint, an index probe however long its backlog or its history of delivered ones.
 * - `webhook_deliveries_lease_idx` (lease_until, org_id): the claims unexpired, a handful per
 *   organization, without reading the deliveries waiting.
 * The index of every due delivery by time (`webhook_deliveries_due_idx`) served the one claim across
 * organizations, which is gone: dropped, as every delivery written paid for it.
 */
export const fairDeliveries: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('webhook_deliveries_endpoint_due_idx')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'status', 'next_attempt_at'])
      .execute()
    await db.schema
      .createIndex('webhook_deliveries_lease_idx')
      .on('webhook_deliveries')
      .columns(['lease_until', 'org_id'])
      .execute()
    await db.schema.dropIndex('webhook_deliveries_due_idx').execute()
  },
}
