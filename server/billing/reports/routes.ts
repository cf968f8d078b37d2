import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  orgIdParamsSchema,
  statsResponseSchema,
  usageQuerySchema,
  usageResponseSchema,
} from '../../../src/contract/billing.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { jsonResponse, problemResponses } from '../../http/openapi.js'
import { billingFailures, billingTags } from '../routing.js'
import { getStats, getUsage } from './service.js'

const usage = createRoute({
  method: 'get',
  path: '/console/billing/usage/{org_id}',
  tags: billingTags,
  summary: 'Get the usage of an organization',
  request: { params: orgIdParamsSchema, query: usageQuerySchema },
  responses: {
    200: jsonResponse(usageResponseSchema, 'Usage'),
    ...billingFailures,
    ...problemResponses(404),
  },
})
const stats = createRoute({
  method: 'get',
  path: '/console/billing/stats',
  tags: billingTags,
  summary: 'Get the billing overview (admin)',
  responses: { 200: jsonResponse(statsResponseSchema, 'Key statistics'), ...billingFailures },
})

/** Usage and the billing overview. */
export function registerReportRoutes(
  app: OpenAPIHono<AppEnv>,
  ctx: AppContext,
  auth: MiddlewareHandler<AppEnv>,
): void {
  app.openapi({ ...usage, middleware: [auth] }, async (c) =>
    c.json(
      await getUsage(ctx, c.get('principal'), c.req.valid('param').org_id, c.req.valid('query').days),
      200,
    ),
  )
  app.openapi({ ...stats, middleware: [auth] }, async (c) =>
    c.json(await getStats(ctx, c.get('principal')), 200),
  )
}
