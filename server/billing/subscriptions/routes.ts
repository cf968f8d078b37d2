import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  orgIdParamsSchema,
  subscriptionResponseSchema,
  updateSubscriptionRequestSchema,
  updateSubscriptionResponseSchema,
} from '../../../src/contract/billing.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { jsonBody, jsonResponse, problemResponses } from '../../http/openapi.js'
import { billingFailures, billingTags } from '../routing.js'
import { getSubscription, updateSubscription } from './service.js'

const get = createRoute({
  method: 'get',
  path: '/console/billing/subscription/{org_id}',
  tags: billingTags,
  summary: 'Get the subscription of an organization',
  request: { params: orgIdParamsSchema },
  responses: {
    200: jsonResponse(subscriptionResponseSchema, 'The subscription'),
    ...billingFailures,
    ...problemResponses(404),
  },
})
const update = createRoute({
  method: 'post',
  path: '/console/billing/subscription',
  tags: billingTags,
  summary: 'Update the subscription tier of an organization (admin)',
  request: { body: jsonBody(updateSubscriptionRequestSchema) },
  responses: {
    200: jsonResponse(updateSubscriptionResponseSchema, 'Updated'),
    ...billingFailures,
    ...problemResponses(404),
  },
})

export function registerSubscriptionRoutes(
  app: OpenAPIHono<AppEnv>,
  ctx: AppContext,
  auth: MiddlewareHandler<AppEnv>,
): void {
  app.openapi({ ...get, middleware: [auth] }, async (c) =>
    c.json(await getSubscription(ctx, c.get('principal'), c.req.valid('param').org_id), 200),
  )
  app.openapi({ ...update, middleware: [auth] }, async (c) =>
    c.json(await updateSubscription(ctx, c.get('principal'), c.req.valid('json')), 200),
  )
}
