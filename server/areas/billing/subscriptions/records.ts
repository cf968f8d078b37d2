import type { AggregateRecords } from '../../../pipeline/context.js'
import { subscriptionOf } from './service.js'

export const subscriptionRecords: AggregateRecords = {
  objects: {
    subscription: (ctx, _db, orgId) => subscriptionOf(ctx, orgId),
  },
}
