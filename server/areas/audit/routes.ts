import type { SomeHandlers } from '../../pipeline/handler.js'
import { listAuditEvents } from './service.js'

/** The audit log. */
export const auditHandlers = {
  listAuditEvents: (ctx, { principal, query }) => listAuditEvents(ctx, principal, query),
} satisfies SomeHandlers
