import type { SomeHandlers } from '../../../pipeline/handler.js'
import { createKey, getKeySelf, listKeys, rerollKey, revokeKey } from './service.js'

/** API keys: create (the raw key shown once), list masked, the caller's own, revoke, reroll. */
export const keyHandlers = {
  createKey: (ctx, { principal, body }) => createKey(ctx, principal, body),
  listKeys: (ctx, { principal, query }) => listKeys(ctx, principal, query.org_id),
  getKeySelf: (ctx, { principal }) => getKeySelf(ctx, principal),
  revokeKey: (ctx, { principal, params }) => revokeKey(ctx, principal, params.key_id),
  rerollKey: (ctx, { principal, params, body }) => rerollKey(ctx, principal, params.key_id, body),
} satisfies SomeHandlers
