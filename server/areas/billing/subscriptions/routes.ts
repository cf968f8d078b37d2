import type { SomeHandlers } from '../../../pipeline/handler.js'
import { getSubscription, updateSubscription } from './service.js'

export const subscriptionHandlers = {
  getSubscription: (ctx, { principal, params }) => getSubscription(ctx, principal, params.org_id),
  updateSubscription: (ctx, { principal, body }) => updateSubscription(ctx, principal, body),
} satisfies SomeHandlers
