import type { AuditEvent } from '../../../src/contract/audit.js'
import type { AuditEventsTable } from '../../platform/db/accountability-schema.js'

/** The API record of a stored audit event: what the log's leaf commits to (src/tlog/leaf.ts), and what the API answers. */
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
