import type { SomeHandlers } from '../../../pipeline/handler.js'
import {
  getToken,
  listFrozenHolders,
  listHoldings,
  listTokens,
  setRules,
  tokenHistory,
  tokenize,
} from './service.js'

export const tokenHandlers = {
  tokenize: (ctx, { principal, body }) => tokenize(ctx, principal, body),
  listTokens: (ctx, { principal, query }) => listTokens(ctx, principal, query),
  getToken: (ctx, { principal, params }) => getToken(ctx, principal, params.id),
  getTokenHistory: (ctx, { principal, params, query }) => tokenHistory(ctx, principal, params.id, query),
  listHoldings: (ctx, { principal, params, query }) => listHoldings(ctx, principal, params.id, query),
  listFrozenHolders: (ctx, { principal, params, query }) =>
    listFrozenHolders(ctx, principal, params.id, query),
  setTokenRules: (ctx, { principal, params, body }) => setRules(ctx, principal, params.id, body),
} satisfies SomeHandlers
