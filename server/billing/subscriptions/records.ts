import type { AggregateRecords } from '../../context.js'
import { subscriptionOf } from './service.js'

export const subscriptionRecords: AggregateRecords = {
  objects: {
    subscription: (ctx, _db, orgId) => subscriptionOf(ctx, orgId),
  },
}
