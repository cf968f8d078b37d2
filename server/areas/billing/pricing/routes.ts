import { PRICING } from '../../../../src/contract/pricing.js'
import type { SomeHandlers } from '../../../pipeline/handler.js'

// The public price list is a constant: serialized once.
const pricingBody = JSON.stringify(PRICING)

export const pricingHandlers = {
  getPricing: (_ctx, { c }) => c.body(pricingBody, 200, { 'Content-Type': 'application/json' }),
} satisfies SomeHandlers
