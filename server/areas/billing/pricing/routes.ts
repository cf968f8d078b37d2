import { PRICING } from '../../../../src/contract/pricing.js'
import type { SomeHandlers } from '../../../pipeline/handler.js'
import { answerPrepared, prepareJson } from '../../../platform/http/prepared-answer.js'

/** The public price list is a constant: its bytes and ETag prepared once per process. */
export const pricingAnswer = prepareJson(PRICING)

export const pricingHandlers = {
  getPricing: (_ctx, { c }) => answerPrepared(c, pricingAnswer),
} satisfies SomeHandlers
