import type { OpenAPIHono } from '@hono/zod-openapi'
import { pricingResponseSchema } from '../../../src/contract/billing.js'
import { PRICING } from '../../../src/contract/pricing.js'
import type { AppEnv } from '../../auth/principal.js'
import { defineRoute, jsonResponse } from '../../http/openapi.js'
import { billingTags } from '../routing.js'

const get = defineRoute({
  method: 'get',
  path: '/console/billing/pricing',
  operationId: 'getPricing',
  access: 'public',
  tags: billingTags,
  summary: 'Get the pricing tiers (public)',
  responses: { 200: jsonResponse(pricingResponseSchema, 'Pricing', PRICING) },
})

/** The public price list: a constant, serialized once. */
export function registerPricingRoute(app: OpenAPIHono<AppEnv>): void {
  const pricingBody = JSON.stringify(PRICING)
  app.openapi(get, (c) => c.body(pricingBody, 200, { 'Content-Type': 'application/json' }) as never)
}
