import type { ListAuditQuery, ListAuditResponse } from '../../../src/contract/audit.js'
import { orgActedOn, type Principal } from '../../pipeline/auth/principal.js'
import type { AppContext } from '../../pipeline/context.js'
import { auditEventFromRow } from '../../pipeline/audit/from-row.js'
import { listAuditEvents as listAuditRows } from '../../pipeline/audit/queries.js'

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
