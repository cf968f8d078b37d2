import { auditEventExample, listAuditQuerySchema, listAuditResponseSchema } from './audit.js'
import {
  logCheckpointExample,
  logCheckpointQuerySchema,
  logCheckpointSchema,
  logConsistencyExample,
  logConsistencyQuerySchema,
  logConsistencySchema,
  logEntriesExample,
  logEntriesQuerySchema,
  logEntriesSchema,
  logInclusionExample,
  logInclusionQuerySchema,
  logInclusionSchema,
  MAX_LOG_ENTRIES,
} from './audit-log.js'
import { defineOperation, jsonResponse } from './operation.js'

/** The OpenAPI tag of the audit log. */
export const auditTags = ['audit'] as const

/** The audit log (`/console/audit`: docs/accountability.md). */
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
  getLogCheckpoint: defineOperation({
    operationId: 'getLogCheckpoint',
    method: 'get',
    path: '/console/audit/log/checkpoint',
    access: 'key',
    roles: ['auditor'],
    tags: auditTags,
    summary: "The signed checkpoint of the organization's verifiable log",
    description:
      "The latest C2SP tlog-checkpoint of the organization's log of audit events: origin `<public host>/console/audit/<org_id>`, tree size and RFC 9162 root hash, signed by the log key (in the JWKS and, as a note verifier key, in the trust bundle). It covers every committed write. Keep it: a later checkpoint must be consistent with it (`/log/consistency`), or the log was rewritten. The admin key reads any organization with `org_id`.",
    query: logCheckpointQuerySchema,
    response: jsonResponse(200, logCheckpointSchema, 'The signed checkpoint', logCheckpointExample),
    refusals: ['other_organization'],
  }),
  listLogEntries: defineOperation({
    operationId: 'listLogEntries',
    method: 'get',
    path: '/console/audit/log/entries',
    access: 'key',
    roles: ['auditor'],
    tags: auditTags,
    summary: 'The audit events at log positions [start, end)',
    description: `The log's leaves in order, at most ${MAX_LOG_ENTRIES} a call (\`start\` inclusive, \`end\` exclusive; fewer when the log is shorter). Each leaf is SHA-256(0x00 || the event's RFC 8785 canonical JSON without \`log_index\`).`,
    query: logEntriesQuerySchema,
    response: jsonResponse(200, logEntriesSchema, 'The events, in log order', logEntriesExample),
    refusals: ['other_organization'],
  }),
  getLogInclusionProof: defineOperation({
    operationId: 'getLogInclusionProof',
    method: 'get',
    path: '/console/audit/log/inclusion',
    access: 'key',
    roles: ['auditor'],
    tags: auditTags,
    summary: 'Prove that an event is in the log at a checkpoint',
    description:
      "The RFC 9162 inclusion proof of the event at `index` in the tree of `tree_size` events (a checkpoint's size): O(log n) hashes.",
    query: logInclusionQuerySchema,
    response: jsonResponse(200, logInclusionSchema, 'The inclusion proof', logInclusionExample),
    refusals: ['other_organization', 'log_size_exceeded'],
  }),
  getLogConsistencyProof: defineOperation({
    operationId: 'getLogConsistencyProof',
    method: 'get',
    path: '/console/audit/log/consistency',
    access: 'key',
    roles: ['auditor'],
    tags: auditTags,
    summary: 'Prove that a later checkpoint extends an earlier one',
    description:
      'The RFC 9162 consistency proof between tree sizes `from` and `to`: the tree of `from` events is a prefix of the tree of `to`, so nothing was removed or changed in between.',
    query: logConsistencyQuerySchema,
    response: jsonResponse(200, logConsistencySchema, 'The consistency proof', logConsistencyExample),
    refusals: ['other_organization', 'log_size_exceeded'],
  }),
} as const
