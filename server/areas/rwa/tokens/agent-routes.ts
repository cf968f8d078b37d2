import type { SomeHandlers } from '../../../pipeline/handler.js'
import { setFrozen, setPaused } from './agent-service.js'

/** The token agent's operations that move no units. */
export const tokenAgentHandlers = {
  pauseToken: (ctx, { principal, params, body }) => setPaused(ctx, principal, params.id, true, body),
  unpauseToken: (ctx, { principal, params, body }) => setPaused(ctx, principal, params.id, false, body),
  freezeHolder: (ctx, { principal, params, body }) => setFrozen(ctx, principal, params.id, true, body),
  unfreezeHolder: (ctx, { principal, params, body }) => setFrozen(ctx, principal, params.id, false, body),
} satisfies SomeHandlers
