import type { Insertable } from 'kysely'
import type { AuditEventsTable } from '../../platform/db/accountability-schema.js'
import { compiledInsert } from '../../platform/db/compiled-query.js'
import { type Executor, insertRows, type PageQuery, pageOf, whereEqual } from '../../platform/db/queries.js'

/** Every query of the audit log; each filters by org_id first. */

/** Appends a write's events (in the write's transaction). */
export async function insertAuditEvents(db: Executor, rows: Insertable<AuditEventsTable>[]): Promise<void> {
  // Most writes record one event: its insert is compiled once.
  if (rows.length === 1) await insertAuditEvent(db, rows[0]!)
  else await insertRows(db, 'audit_events', rows)
}

const insertAuditEvent = compiledInsert<Insertable<AuditEventsTable>>('audit_events', [
  'event_id',
  'org_id',
  'at',
  'actor',
  'actor_key_id',
  'request_id',
  'action',
  'target_type',
  'target_id',
  'changes',
  'log_index',
])

export interface AuditFilters {
  action?: string | undefined
  target_id?: string | undefined
  actor_key_id?: string | undefined
  /** Inclusive lower bound of `at` (ISO 8601). */
  since?: string | undefined
  /** Exclusive upper bound of `at`. */
  until?: string | undefined
}

/** An organization's events, newest first, narrowed by the filters. */
export function listAuditEvents(db: Executor, orgId: string, filters: AuditFilters, page: PageQuery) {
  let base = whereEqual(db.selectFrom('audit_events').where('org_id', '=', orgId), {
    action: filters.action,
    target_id: filters.target_id,
    actor_key_id: filters.actor_key_id,
  })
  if (filters.since !== undefined) base = base.where('at', '>=', filters.since)
  if (filters.until !== undefined) base = base.where('at', '<', filters.until)
  return pageOf(base, 'event_id', page)
}
