import type { PricingResponse } from './billing.js'
import { FREE_TRIAL_DAYS, TIER_LIMITS } from './limits.js'

/** The published price list (README.md, "Billing endpoints"). Public: `GET /console/billing/pricing`. */
export const PRICING: PricingResponse = Object.freeze({
  free_trial_days: FREE_TRIAL_DAYS,
  tiers: {
    free: {
      name: 'Community',
      price: '$0',
      price_monthly: 0,
      description:
        'Billing API and a small request budget. Governance needs a trial or a paid tier. A skill is a tokenized asset: up to 10.',
      limits: TIER_LIMITS.free,
    },
    pro: {
      name: 'Pro',
      price: '$99/mo',
      price_monthly: 99,
      description:
        'Full cross-border governance for production teams: up to 500 skills (tokenized assets) and 10,000 DIDs.',
      limits: TIER_LIMITS.pro,
    },
    enterprise: {
      name: 'Enterprise',
      price: 'Custom',
      price_monthly: null,
      description:
        'Unlimited daily requests, DIDs and skills (tokenized assets), the highest per-minute rate, custom terms.',
      limits: TIER_LIMITS.enterprise,
    },
  },
})
