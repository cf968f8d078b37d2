import type { SomeHandlers } from '../../pipeline/handler.js'

/** `GET /metrics` on the API port: the admin key only (or without a key on `--metrics-port`). */
export const metricsHandlers = {
  getMetrics: async (ctx, { c }) =>
    c.body(await ctx.metrics.text(), 200, { 'Content-Type': ctx.metrics.contentType }),
} satisfies SomeHandlers
