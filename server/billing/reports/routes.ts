import type { OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  orgIdParamsSchema,
  statsResponseSchema,
  usageQuerySchema,
  usageResponseSchema,
} from '../../../src/contract/billing.js'
import { statsResponseExample, usageResponseExample } from '../../../src/contract/examples.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute, jsonResponse } from '../../http/openapi.js'
import { billingTags } from '../routing.js'
import { getStats, getUsage } from './service.js'

const usage = defineRoute({
  method: 'get',
  path: '/console/billing/usage/{org_id}',
  operationId: 'getUsage',
  access: 'key',
  tags: billingTags,
  summary: 'Get the usage of an organization',
  description: 'An organization that has never been named (no key, no subscription) has no usage: zeros.',
  request: { params: orgIdParamsSchema, query: usageQuerySchema },
  responses: { 200: jsonResponse(usageResponseSchema, 'Usage', usageResponseExample) },
  refusals: [403],
})
const stats = defineRoute({
  method: 'get',
  path: '/console/billing/stats',
  operationId: 'getStats',
  access: 'key',
  tags: billingTags,
  summary: 'Get the billing overview (admin)',
  responses: { 200: jsonResponse(statsResponseSchema, 'Key statistics', statsResponseExample) },
  refusals: [403],
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
