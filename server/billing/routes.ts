import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  createKeyRequestSchema,
  createKeyResponseSchema,
  keyIdParamsSchema,
  listKeysQuerySchema,
  listKeysResponseSchema,
  orgIdParamsSchema,
  pricingResponseSchema,
  revokeKeyResponseSchema,
  statsResponseSchema,
  subscriptionResponseSchema,
  updateSubscriptionRequestSchema,
  updateSubscriptionResponseSchema,
  usageQuerySchema,
  usageResponseSchema,
} from '../../src/contract/billing.js'
import { PRICING } from '../../src/contract/pricing.js'
import type { AppEnv } from '../auth/principal.js'
import type { AppContext } from '../context.js'
import { jsonBody, jsonResponse, problemResponses } from '../http/openapi.js'
import * as billing from './service.js'

const tags = ['billing']
const authFailures = problemResponses(400, 401, 403, 429)

const createKey = createRoute({
  method: 'post',
  path: '/console/billing/keys',
  tags,
  summary: 'Create an API key',
  request: { body: jsonBody(createKeyRequestSchema) },
  responses: {
    201: jsonResponse(createKeyResponseSchema, 'The new key; the raw key is shown only here'),
    ...authFailures,
  },
})

const listKeys = createRoute({
  method: 'get',
  path: '/console/billing/keys',
  tags,
  summary: 'List the keys of an organization (masked)',
  request: { query: listKeysQuerySchema },
  responses: {
    200: jsonResponse(listKeysResponseSchema, 'Keys, newest first'),
    ...authFailures,
    ...problemResponses(404),
  },
})

const revokeKey = createRoute({
  method: 'delete',
  path: '/console/billing/keys/{key_id}',
  tags,
  summary: 'Revoke a key (permanent)',
  request: { params: keyIdParamsSchema },
  responses: {
    200: jsonResponse(revokeKeyResponseSchema, 'Revoked'),
    ...authFailures,
    ...problemResponses(404, 409),
  },
})

const getSubscription = createRoute({
  method: 'get',
  path: '/console/billing/subscription/{org_id}',
  tags,
  summary: 'Get the subscription of an organization',
  request: { params: orgIdParamsSchema },
  responses: {
    200: jsonResponse(subscriptionResponseSchema, 'The subscription'),
    ...authFailures,
    ...problemResponses(404),
  },
})

const updateSubscription = createRoute({
  method: 'post',
  path: '/console/billing/subscription',
  tags,
  summary: 'Update the subscription tier of an organization (admin)',
  request: { body: jsonBody(updateSubscriptionRequestSchema) },
  responses: {
    200: jsonResponse(updateSubscriptionResponseSchema, 'Updated'),
    ...authFailures,
    ...problemResponses(404),
  },
})

const getUsage = createRoute({
  method: 'get',
  path: '/console/billing/usage/{org_id}',
  tags,
  summary: 'Get the usage of an organization',
  request: { params: orgIdParamsSchema, query: usageQuerySchema },
  responses: { 200: jsonResponse(usageResponseSchema, 'Usage'), ...authFailures, ...problemResponses(404) },
})

const getPricing = createRoute({
  method: 'get',
  path: '/console/billing/pricing',
  tags,
  summary: 'Get the pricing tiers (public)',
  responses: { 200: jsonResponse(pricingResponseSchema, 'Pricing') },
})

const getStats = createRoute({
  method: 'get',
  path: '/console/billing/stats',
  tags,
  summary: 'Get the billing overview (admin)',
  responses: { 200: jsonResponse(statsResponseSchema, 'Key statistics'), ...authFailures },
})

/** The 8 billing endpoints. Every one but pricing runs behind `auth`. */
export function registerBillingRoutes(
  app: OpenAPIHono<AppEnv>,
  ctx: AppContext,
  auth: MiddlewareHandler<AppEnv>,
): void {
  const pricingBody = JSON.stringify(PRICING)
  app.openapi(getPricing, (c) => c.body(pricingBody, 200, { 'Content-Type': 'application/json' }) as never)

  app.openapi({ ...createKey, middleware: [auth] }, async (c) =>
    c.json(await billing.createKey(ctx, c.get('principal'), c.req.valid('json')), 201),
  )
  app.openapi({ ...listKeys, middleware: [auth] }, async (c) =>
    c.json(await billing.listKeys(ctx, c.get('principal'), c.req.valid('query').org_id), 200),
  )
  app.openapi({ ...revokeKey, middleware: [auth] }, async (c) =>
    c.json(await billing.revokeKey(ctx, c.get('principal'), c.req.valid('param').key_id), 200),
  )
  app.openapi({ ...getSubscription, middleware: [auth] }, async (c) =>
    c.json(await billing.getSubscription(ctx, c.get('principal'), c.req.valid('param').org_id), 200),
  )
  app.openapi({ ...updateSubscription, middleware: [auth] }, async (c) =>
    c.json(await billing.updateSubscription(ctx, c.get('principal'), c.req.valid('json')), 200),
  )
  app.openapi({ ...getUsage, middleware: [auth] }, async (c) =>
    c.json(
      await billing.getUsage(ctx, c.get('principal'), c.req.valid('param').org_id, c.req.valid('query').days),
      200,
    ),
  )
  app.openapi({ ...getStats, middleware: [auth] }, async (c) =>
    c.json(await billing.getStats(ctx, c.get('principal')), 200),
  )
}
