import type { Event, ListEventsQuery, ListEventsResponse } from '../../../src/contract/events.js'
import type { Principal } from '../../pipeline/auth/principal.js'
import type { AppContext } from '../../pipeline/context.js'
import type { EventsTable } from '../../platform/db/events-schema.js'
import { listPage, ownedOr404 } from '../rwa/owned.js'
import { findEvent, listEventRows } from '../../pipeline/events/queries.js'

/** The organization's events, newest first. */
export async function listEvents(
  ctx: AppContext,
  principal: Principal,
  query: ListEventsQuery,
): Promise<ListEventsResponse> {
  return listPage('events', await listEventRows(ctx.db, principal.orgId, query.type, query), eventFromRow)
}

export async function getEvent(ctx: AppContext, principal: Principal, id: string): Promise<Event> {
  return eventFromRow(await ownedOr404(findEvent(ctx.db, principal.orgId, id), 'event', id))
}

/** The API record of a stored event: what `GET /console/events/{id}` answers and a webhook receives. */
export function eventFromRow(row: EventsTable): Event {
  return {
    id: row.event_id,
    type: row.type as Event['type'],
    created_at: row.created_at,
    org_id: row.org_id,
    data: JSON.parse(row.data),
  }
}
