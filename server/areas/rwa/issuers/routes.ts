import type { SomeHandlers } from '../../../pipeline/handler.js'
import {
  getIssuer,
  listIssuers,
  refreshIssuer,
  registerIssuer,
  removeIssuer,
  updateIssuer,
} from './service.js'

export const issuerHandlers = {
  listIssuers: (ctx, { principal, query }) => listIssuers(ctx, principal, query),
  registerIssuer: (ctx, { principal, body }) => registerIssuer(ctx, principal, body),
  getIssuer: (ctx, { principal, params }) => getIssuer(ctx, principal, params.id),
  updateIssuer: (ctx, { principal, params, body }) => updateIssuer(ctx, principal, params.id, body),
  removeIssuer: (ctx, { principal, params }) => removeIssuer(ctx, principal, params.id),
  refreshIssuer: (ctx, { principal, params }) => refreshIssuer(ctx, principal, params.id),
} satisfies SomeHandlers
