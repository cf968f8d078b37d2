import type { Insertable } from 'kysely'
import type { EventsTable, WebhookDeliveriesTable } from '../../platform/db/events-schema.js'
import {
  type Executor,
  insertRows,
  ownedRecord,
  type PageQuery,
  pageOf,
  whereEqual,
} from '../../platform/db/queries.js'

/** Every query of the events outbox; each filters by org_id first. */

/** Appends a write's events (in the write's transaction). */
export async function insertEvents(db: Executor, rows: Insertable<EventsTable>[]): Promise<void> {
  await insertRows(db, 'events', rows)
}

export const findEvent = ownedRecord('events', 'event_id')

/** An organization's events, newest first, narrowed to one type. */
export function listEventRows(db: Executor, orgId: string, type: string | undefined, page: PageQuery) {
  return pageOf(whereEqual(db.selectFrom('events').where('org_id', '=', orgId), { type }), 'event_id', page)
}

/**
 * An organization's events after `afterId` (ids sort by time), oldest first, for the stream
 * (server/areas/events/stream.ts), which asks again from a little before the newest id it has seen.
 */
export function eventsSince(db: Executor, orgId: string, afterId: string, limit: number) {
  return db
    .selectFrom('events')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('event_id', '>', afterId)
    .orderBy('event_id', 'asc')
    .limit(limit)
    .execute()
}

/** The enabled endpoints of the organizations named, with what they subscribe to. */
export function enabledEndpointsOf(db: Executor, orgIds: string[]) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['webhook_id', 'org_id', 'events'])
    .where('org_id', 'in', orgIds)
    .where('status', '=', 'enabled')
    .execute()
}

/** Queues deliveries (in the write's transaction, beside their events). */
export async function insertDeliveries(
  db: Executor,
  rows: Insertable<WebhookDeliveriesTable>[],
): Promise<void> {
  await insertRows(db, 'webhook_deliveries', rows)
}
