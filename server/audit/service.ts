import type { AuditEvent, ListAuditQuery, ListAuditResponse } from '../../src/contract/audit.js'
import { orgActedOn, type Principal } from '../auth/principal.js'
import type { AppContext } from '../context.js'
import type { AuditEventsTable } from '../db/accountability-schema.js'
import { listAuditEvents as listAuditRows } from './queries.js'

/** An organization's audit events, newest first; the admin key reads any organization's with `org_id`. */
export async function listAuditEvents(
  ctx: AppContext,
  principal: Principal,
  query: ListAuditQuery,
): Promise<ListAuditResponse> {
  const orgId = orgActedOn(principal, query.org_id)
  const page = await listAuditRows(ctx.db, orgId, query, query)
  return { events: page.rows.map(auditEventFromRow), total: page.total, next_cursor: page.next_cursor }
}

/** The API record of a stored event. */
export function auditEventFromRow(row: AuditEventsTable): AuditEvent {
  return {
    event_id: row.event_id,
    org_id: row.org_id,
    at: row.at,
    actor: JSON.parse(row.actor),
    request_id: row.request_id,
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    ...(row.changes === null ? {} : { changes: JSON.parse(row.changes) }),
    ...(row.log_index === null ? {} : { log_index: row.log_index }),
  }
}
