import type { SomeHandlers } from '../../../pipeline/handler.js'
import { setFrozen, setPaused } from './agent-service.js'
import { burn, mint } from './supply.js'

/** The token agent's operations that move no units, and mint and burn. */
export const tokenAgentHandlers = {
  pauseToken: (ctx, { principal, params, body }) => setPaused(ctx, principal, params.id, true, body),
  unpauseToken: (ctx, { principal, params, body }) => setPaused(ctx, principal, params.id, false, body),
  freezeHolder: (ctx, { principal, params, body }) => setFrozen(ctx, principal, params.id, true, body),
  unfreezeHolder: (ctx, { principal, params, body }) => setFrozen(ctx, principal, params.id, false, body),
  mintTokens: (ctx, { principal, params, body }) => mint(ctx, principal, params.id, body),
  burnTokens: (ctx, { principal, params, body }) => burn(ctx, principal, params.id, body),
} satisfies SomeHandlers
