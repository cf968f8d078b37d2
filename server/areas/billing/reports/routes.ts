import type { SomeHandlers } from '../../../pipeline/handler.js'
import { getStats, getUsage } from './service.js'

/** Usage and the billing overview. */
export const reportHandlers = {
  getUsage: (ctx, { principal, params, query }) => getUsage(ctx, principal, params.org_id, query.days),
  getStats: (ctx) => getStats(ctx),
} satisfies SomeHandlers
