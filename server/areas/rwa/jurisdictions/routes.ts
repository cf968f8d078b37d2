import type { SomeHandlers } from '../../../pipeline/handler.js'
import {
  getJurisdiction,
  listJurisdictions,
  registerJurisdiction,
  removeJurisdiction,
  updateJurisdiction,
} from './service.js'

export const jurisdictionHandlers = {
  listJurisdictions: (ctx, { principal, query }) => listJurisdictions(ctx, principal, query),
  registerJurisdiction: (ctx, { principal, body }) => registerJurisdiction(ctx, principal, body),
  getJurisdiction: (ctx, { principal, params }) => getJurisdiction(ctx, principal, params.id),
  updateJurisdiction: (ctx, { principal, params, body }) =>
    updateJurisdiction(ctx, principal, params.id, body),
  removeJurisdiction: (ctx, { principal, params }) => removeJurisdiction(ctx, principal, params.id),
} satisfies SomeHandlers
