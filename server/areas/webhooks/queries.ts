import { type ExpressionBuilder, type Insertable, type Selectable, sql } from 'kysely'
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from '../../platform/db/events-schema.js'
import { dialectOf } from '../../platform/db/dialect.js'
import type { Database } from '../../platform/db/schema.js'
import { SEALED_PREFIX } from '../../platform/signing/master-key.js'
import { countOf, type Executor, ownedRecord, type PageQuery, pageOf } from '../../platform/db/queries.js'

/** Every query of webhook endpoints and deliveries; those a caller reaches filter by org_id first. */

export const findEndpoint = ownedRecord('webhook_endpoints', 'webhook_id')

export async function insertEndpoint(db: Executor, row: Insertable<WebhookEndpointsTable>): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute()
}

/** How many enabled endpoints an organization has. */
export function countEnabledEndpoints(db: Executor, orgId: string): Promise<number> {
  return countOf(
    db.selectFrom('webhook_endpoints').where('org_id', '=', orgId).where('status', '=', 'enabled'),
  )
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

/** A delivery due now and claimed by no instance (or by one whose lease has expired). */
const dueAndFree = (now: string) => (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
  eb.and([
    eb('status', '=', 'pending'),
    eb('next_attempt_at', '<=', now),
    eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
  ])

/**
 * The organizations that have a delivery due now to an enabled endpoint and fewer than `most` of their
 * deliveries claimed by any instance (their lease unexpired): those a worker may claim for. Read per
 * enabled endpoint (an index probe each), so a long backlog of due deliveries is never scanned whole.
 */
export async function organizationsWithDueDeliveries(
  db: Executor,
  now: string,
  most: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_endpoints as e')
    .select('e.org_id')
    .distinct()
    .where('e.status', '=', 'enabled')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhook_deliveries')
          .select('delivery_id')
          .whereRef('webhook_deliveries.webhook_id', '=', 'e.webhook_id')
          .where(dueAndFree(now)),
      ),
    )
    .where('e.org_id', 'not in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('org_id')
        .where('lease_until', '>=', now)
        .groupBy('org_id')
        .having((h) => h.fn.countAll(), '>=', most),
    )
    .execute()
  return rows.map((row) => row.org_id)
}

/**
 * Serializes the claims of one organization's deliveries across instances until the transaction ends
 * (PostgreSQL: an advisory lock of its own, so that claiming never waits on the organization's other
 * writes, which lock its row). SQLite runs one transaction at a time and needs none.
 */
export async function lockDeliveriesOf(db: Executor, orgId: string): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`select pg_advisory_xact_lock(${DELIVERY_LOCK_SPACE}, hashtext(${orgId}))`.execute(db)
}

/** The first key of the two-key advisory locks above (their own space: no other lock uses it). */
const DELIVERY_LOCK_SPACE = 2036

/** How many of an organization's deliveries are claimed now, by any instance (their lease unexpired). */
export async function countDeliveriesInFlight(db: Executor, orgId: string, now: string): Promise<number> {
  return countOf(
    db.selectFrom('webhook_deliveries').where('lease_until', '>=', now).where('org_id', '=', orgId),
  )
}

/** The first `limit` due deliveries of an endpoint, in its index's order: never a sort of a backlog. */
export function dueDeliveriesOf(db: Executor, webhookId: string, now: string, limit: number) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['delivery_id', 'next_attempt_at'])
    .where('webhook_id', '=', webhookId)
    .where(dueAndFree(now))
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute()
}

/**
 * Claims up to `limit` of an organization's due deliveries to enabled endpoints, longest due first, for
 * one attempt each: their lease is set to `leaseUntil` under `token`, so no other instance takes them
 * until it expires (an instance killed mid-attempt loses its claims that way). Called under
 * `lockDeliveriesOf`, so no other instance claims for the organization meanwhile; a row that changed
 * since it was read (retried, recorded) is left, as the update checks it again.
 */
export async function claimDueDeliveries(
  db: Executor,
  orgId: string,
  now: string,
  leaseUntil: string,
  token: string,
  limit: number,
): Promise<Selectable<WebhookDeliveriesTable>[]> {
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select('webhook_id')
    .where('org_id', '=', orgId)
    .where('status', '=', 'enabled')
    .execute()
  const due: Array<{ delivery_id: string; next_attempt_at: string | null }> = []
  for (const { webhook_id } of endpoints) due.push(...(await dueDeliveriesOf(db, webhook_id, now, limit)))
  const ids = due
    .sort((a, b) => (a.next_attempt_at ?? '').localeCompare(b.next_attempt_at ?? ''))
    .slice(0, limit)
    .map((row) => row.delivery_id)
  if (ids.length === 0) return []
  return db
    .updateTable('webhook_deliveries')
    .set({ lease_until: leaseUntil, lease_token: token })
    .where('delivery_id', 'in', ids)
    .where(dueAndFree(now))
    .returningAll()
    .execute()
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
