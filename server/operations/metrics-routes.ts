import { type OpenAPIHono, z } from '@hono/zod-openapi'
import { adminKeyOnly } from '../auth/authenticate.js'
import type { AppEnv } from '../auth/principal.js'
import type { AppContext } from '../context.js'
import { defineRoute, operationsTags } from '../http/openapi.js'

const EXAMPLE = `# HELP rwa_http_requests_total HTTP requests answered, by method, route template and status
# TYPE rwa_http_requests_total counter
rwa_http_requests_total{method="GET",route="/console/rwa/tokens/{id}",status="200"} 1027
`

/** `GET /metrics` on the API port: the admin key only (or without a key on `--metrics-port`). */
export function registerMetricsRoute(app: OpenAPIHono<AppEnv>, ctx: AppContext): void {
  const scrape = defineRoute({
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    access: 'admin',
    tags: operationsTags,
    summary: 'Prometheus metrics (admin key; not rate limited or metered)',
    description:
      'The Prometheus text format (`text/plain; version=0.0.4`). On the API port only the admin key may ' +
      'read it; `--metrics-port` serves the same text without a key on a port of its own, to keep off ' +
      'the public network.',
    middleware: [adminKeyOnly(ctx, 'GET /metrics')],
    responses: {
      200: {
        description: 'Every metric, in the Prometheus text format',
        content: { 'text/plain': { schema: z.string(), example: EXAMPLE } },
      },
    },
  })
  app.openapi(
    scrape,
    async (c) => c.body(await ctx.metrics.text(), 200, { 'Content-Type': ctx.metrics.contentType }) as never,
  )
}
