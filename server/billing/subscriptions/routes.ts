import type { OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  orgIdParamsSchema,
  subscriptionResponseSchema,
  updateSubscriptionRequestSchema,
  updateSubscriptionResponseSchema,
} from '../../../src/contract/billing.js'
import {
  subscriptionResponseExample,
  updateSubscriptionRequestExample,
  updateSubscriptionResponseExample,
} from '../../../src/contract/examples.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute, jsonBody, jsonResponse } from '../../http/openapi.js'
import { billingTags } from '../routing.js'
import { getSubscription, updateSubscription } from './service.js'

const get = defineRoute({
  method: 'get',
  path: '/console/billing/subscription/{org_id}',
  operationId: 'getSubscription',
  access: 'key',
  tags: billingTags,
  summary: 'Get the subscription of an organization',
  description:
    'An organization without a subscription, or never named yet, gets the free-tier defaults and `subscription: null`.',
  request: { params: orgIdParamsSchema },
  responses: {
    200: jsonResponse(subscriptionResponseSchema, 'The subscription', subscriptionResponseExample),
  },
  refusals: [403],
})
const update = defineRoute({
  method: 'post',
  path: '/console/billing/subscription',
  operationId: 'updateSubscription',
  access: 'key',
  tags: billingTags,
  summary: 'Update the subscription tier of an organization (admin)',
  description:
    'Records the tier (and the payment details) of an organization, creating the organization if nothing named it before. The operator organization `admin` is not billed (422).',
  request: { body: jsonBody(updateSubscriptionRequestSchema, updateSubscriptionRequestExample) },
  responses: {
    200: jsonResponse(updateSubscriptionResponseSchema, 'Updated', updateSubscriptionResponseExample),
  },
  refusals: [403, 422],
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
