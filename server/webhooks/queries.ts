import type { Insertable, Selectable } from 'kysely'
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from '../db/events-schema.js'
import { dialectOf } from '../db/dialect.js'
import { SEALED_PREFIX } from '../signing/master-key.js'
import { type Executor, ownedRecord, type PageQuery, pageOf } from '../db/queries.js'

/** Every query of webhook endpoints and deliveries; those a caller reaches filter by org_id first. */

export const findEndpoint = ownedRecord('webhook_endpoints', 'webhook_id')

export async function insertEndpoint(db: Executor, row: Insertable<WebhookEndpointsTable>): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute()
}

export function listEndpointRows(db: Executor, orgId: string, page: PageQuery) {
  return pageOf(db.selectFrom('webhook_endpoints').where('org_id', '=', orgId), 'webhook_id', page)
}

/** Deletes an endpoint with its deliveries and their attempts. */
export async function deleteEndpoint(db: Executor, orgId: string, webhookId: string): Promise<boolean> {
  await db.deleteFrom('webhook_attempts').where('webhook_id', '=', webhookId).execute()
  await db.deleteFrom('webhook_deliveries').where('webhook_id', '=', webhookId).execute()
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('org_id', '=', orgId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function setEndpointSecret(db: Executor, webhookId: string, secret: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ secret }).where('webhook_id', '=', webhookId).execute()
}

/** Enables an endpoint again, its 3 days of failures starting over. */
export async function enableEndpoint(db: Executor, webhookId: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ status: 'enabled', failing_since: null })
    .where('webhook_id', '=', webhookId)
    .execute()
}

/** An endpoint's attempts, newest first. */
export function listAttemptRows(db: Executor, webhookId: string, page: PageQuery) {
  return pageOf(db.selectFrom('webhook_attempts').where('webhook_id', '=', webhookId), 'attempt_id', page)
}

export function findDelivery(db: Executor, webhookId: string, deliveryId: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirst()
}

/** Makes a delivery due now, pending again, its claim dropped. */
export async function rescheduleDelivery(db: Executor, deliveryId: string, at: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: at, lease_until: null, lease_token: null })
    .where('delivery_id', '=', deliveryId)
    .execute()
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints for one attempt each: their lease is set to
 * `leaseUntil` under `token`, so no other instance takes them until it expires (an instance killed
 * mid-attempt loses its claims that way). On PostgreSQL the rows are chosen `FOR UPDATE SKIP LOCKED`,
 * so two instances claiming at once take different rows and neither waits; SQLite runs one write at a
 * time and needs no lock.
 */
export async function claimDueDeliveries(
  db: Executor,
  now: string,
  leaseUntil: string,
  token: string,
  limit: number,
): Promise<Selectable<WebhookDeliveriesTable>[]> {
  let due = db
    .selectFrom('webhook_deliveries')
    .select('delivery_id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .where('webhook_id', 'in', (eb) =>
      eb.selectFrom('webhook_endpoints').select('webhook_id').where('status', '=', 'enabled'),
    )
    .orderBy('next_attempt_at')
    .limit(limit)
  if (dialectOf(db) === 'postgres') due = due.forUpdate().skipLocked()
  return (
    db
      .updateTable('webhook_deliveries')
      .set({ lease_until: leaseUntil, lease_token: token })
      .where('delivery_id', 'in', due)
      // Re-checked on the row itself: on PostgreSQL another instance's claim may have committed between
      // the subquery's snapshot and this update.
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .returningAll()
      .execute()
  )
}

/** What an attempt needs: the event's row and the endpoint's URL and secret. */
export async function deliveryMaterial(db: Executor, delivery: Selectable<WebhookDeliveriesTable>) {
  const event = await db
    .selectFrom('events')
    .selectAll()
    .where('event_id', '=', delivery.event_id)
    .executeTakeFirst()
  const endpoint = await db
    .selectFrom('webhook_endpoints')
    .select(['url', 'secret', 'status', 'failing_since'])
    .where('webhook_id', '=', delivery.webhook_id)
    .executeTakeFirst()
  return { event, endpoint }
}

/**
 * Records an attempt's outcome if the claim is still this instance's (a claim that outlived its lease
 * may have been taken by another instance, whose outcome counts instead).
 */
export async function recordAttempt(
  db: Executor,
  token: string,
  delivery: Selectable<WebhookDeliveriesTable>,
  change: Pick<WebhookDeliveriesTable, 'status' | 'next_attempt_at'>,
  attempt: Insertable<WebhookAttemptsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...change, attempts: attempt.attempt, lease_until: null, lease_token: null })
    .where('delivery_id', '=', delivery.delivery_id)
    .where('lease_token', '=', token)
    .executeTakeFirst()
  if (Number(result.numUpdatedRows) === 0) return false
  await db.insertInto('webhook_attempts').values(attempt).execute()
  return true
}

/** An endpoint delivered: its failures are over. */
export async function markEndpointSucceeded(db: Executor, webhookId: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('webhook_id', '=', webhookId)
    .where('failing_since', 'is not', null)
    .execute()
}

/** An endpoint failed: failing since now unless it already was. */
export async function markEndpointFailing(db: Executor, webhookId: string, at: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: at })
    .where('webhook_id', '=', webhookId)
    .where('failing_since', 'is', null)
    .execute()
}

/** Disables an endpoint that has failed since before `since` (no success since then). */
export async function disableEndpointFailingSince(
  db: Executor,
  webhookId: string,
  since: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled' })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'enabled')
    .where('failing_since', '<=', since)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Endpoints whose secret is still stored in plaintext (a database from before it was sealed). */
export function plaintextEndpointSecrets(db: Executor) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['webhook_id', 'secret'])
    .where('secret', 'not like', `${SEALED_PREFIX}%`)
    .execute()
}

/** Replaces an endpoint's stored secret, if it is still `from`. */
export async function replaceEndpointSecret(db: Executor, webhookId: string, from: string, to: string) {
  await db
    .updateTable('webhook_endpoints')
    .set({ secret: to })
    .where('webhook_id', '=', webhookId)
    .where('secret', '=', from)
    .execute()
}
