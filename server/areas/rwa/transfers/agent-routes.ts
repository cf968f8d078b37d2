import type { SomeHandlers } from '../../../pipeline/handler.js'
import { forcedTransfer, recover } from './agent-transfers.js'
import { canTransfer } from './service.js'

/** The agent's operations that move units, and the question whether a transfer would pass. */
export const transferAgentHandlers = {
  forcedTransfer: (ctx, { principal, params, body }) => forcedTransfer(ctx, principal, params.id, body),
  recoverIdentity: (ctx, { principal, params, body }) => recover(ctx, principal, params.id, body),
  canTransfer: (ctx, { principal, params, query }) => canTransfer(ctx, principal, params.id, query),
} satisfies SomeHandlers
