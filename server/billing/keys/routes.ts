import type { SomeHandlers } from '../../handler.js'
import { createKey, listKeys, revokeKey } from './service.js'

/** API keys: create (the raw key shown once), list masked, revoke. */
export const keyHandlers = {
  createKey: (ctx, { principal, body }) => createKey(ctx, principal, body),
  listKeys: (ctx, { principal, query }) => listKeys(ctx, principal, query.org_id),
  revokeKey: (ctx, { principal, params }) => revokeKey(ctx, principal, params.key_id),
} satisfies SomeHandlers
