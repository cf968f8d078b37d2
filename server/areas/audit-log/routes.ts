import type { SomeHandlers } from '../../pipeline/handler.js'
import { getLogCheckpoint, getLogConsistencyProof, getLogEntries, getLogInclusionProof } from './service.js'

/** The verifiable log of the audit events (docs/governance.md, "The verifiable log"). */
export const auditLogHandlers = {
  getLogCheckpoint: (ctx, { principal, query }) => getLogCheckpoint(ctx, principal, query),
  listLogEntries: (ctx, { principal, query }) => getLogEntries(ctx, principal, query),
  getLogInclusionProof: (ctx, { principal, query }) => getLogInclusionProof(ctx, principal, query),
  getLogConsistencyProof: (ctx, { principal, query }) => getLogConsistencyProof(ctx, principal, query),
} satisfies SomeHandlers
