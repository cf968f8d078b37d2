import type { SomeHandlers } from '../../../pipeline/handler.js'
import { getCredential, issueCredential, listCredentials, revokeCredential } from './service.js'
import { reinstateCredential, suspendCredential } from './suspension.js'

export const credentialHandlers = {
  listCredentials: (ctx, { principal, query }) => listCredentials(ctx, principal, query),
  issueCredential: (ctx, { principal, body }) => issueCredential(ctx, principal, body),
  getCredential: (ctx, { principal, params }) => getCredential(ctx, principal, params.id),
  revokeCredential: (ctx, { principal, params, body }) => revokeCredential(ctx, principal, params.id, body),
  suspendCredential: (ctx, { principal, params, body }) => suspendCredential(ctx, principal, params.id, body),
  reinstateCredential: (ctx, { principal, params }) => reinstateCredential(ctx, principal, params.id),
} satisfies SomeHandlers
