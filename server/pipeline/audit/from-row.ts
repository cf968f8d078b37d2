import type { AuditEvent } from '../../../src/contract/audit.js'
import type { AuditEventsTable } from '../../platform/db/accountability-schema.js'

/** The API record of a stored audit event: what the log's leaf commits to (src/tlog/leaf.ts), and what the API answers. */
export function auditEventFromRow(row: AuditEventsTable): AuditEvent {
  const event: AuditEvent = {
    event_id: row.event_id,
    org_id: row.org_id,
    at: row.at,
    actor: JSON.parse(row.actor),
    request_id: row.request_id,
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
  }
  // Assigned, not spread from conditional objects: this runs for every event a write appends
  // (docs/performance.md, "Fifth pass: the batch").
  if (row.changes !== null) event.changes = JSON.parse(row.changes)
  if (row.log_index !== null) event.log_index = row.log_index
  return event
}
