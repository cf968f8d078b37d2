import { auditEventExample, listAuditQuerySchema, listAuditResponseSchema } from './audit.js'
import { defineOperation, jsonResponse } from './operation.js'

/** The OpenAPI tag of the audit log. */
export const auditTags = ['audit'] as const

/** The audit log (`/console/audit`, DESIGN §16). */
export const auditRoutes = {
  listAuditEvents: defineOperation({
    operationId: 'listAuditEvents',
    method: 'get',
    path: '/console/audit',
    access: 'key',
    roles: ['auditor'],
    tags: auditTags,
    summary: "List the organization's audit events, newest first",
    description:
      "Every write (through any route, the payment webhook and the server's own jobs) recorded with who made it, the request, the action, the record changed and, for an update, before and after. Filters: `action`, `target_id`, `actor_key_id`, `since`, `until`. The admin key reads any organization with `org_id`.",
    query: listAuditQuerySchema,
    response: jsonResponse(200, listAuditResponseSchema, 'Audit events, newest first', {
      events: [auditEventExample],
      total: 1,
      next_cursor: null,
    }),
    refusals: ['other_organization'],
  }),
} as const
