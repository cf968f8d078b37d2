import type { SomeHandlers } from '../../../pipeline/handler.js'
import { listHolders } from './holders.js'
import { changeIdentityDids, createIdentity, getIdentity, listIdentities, updateIdentity } from './service.js'

export const identityHandlers = {
  listIdentities: (ctx, { principal, query }) => listIdentities(ctx, principal, query),
  createIdentity: (ctx, { principal, body }) => createIdentity(ctx, principal, body),
  getIdentity: (ctx, { principal, params }) => getIdentity(ctx, principal, params.id),
  updateIdentity: (ctx, { principal, params, body }) => updateIdentity(ctx, principal, params.id, body),
  changeIdentityDids: (ctx, { principal, params, body }) =>
    changeIdentityDids(ctx, principal, params.id, body),
  listHolders: (ctx, { principal, params, query }) => listHolders(ctx, principal, params.id, query),
} satisfies SomeHandlers
