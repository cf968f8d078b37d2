import type { Tier } from '../../../src/contract/limits.js'

/** The tiers a Stripe price can buy: every tier but `free`. */
export type PaidTier = Exclude<Tier, 'free'>

/**
 * Stripe price ids of the paid tiers (RWA_STRIPE_PRICE_PRO, RWA_STRIPE_PRICE_ENTERPRISE). Enterprise is
 * sold at a custom price, so it may have no Stripe price at all.
 */
export interface PriceTiers {
  pro: string
  enterprise?: string | undefined
}

/** The tier a Stripe price id buys, or null for a price this service does not sell. */
export function tierOfPrice(priceId: string, prices: PriceTiers): PaidTier | null {
  if (priceId === prices.pro) return 'pro'
  if (prices.enterprise !== undefined && priceId === prices.enterprise) return 'enterprise'
  return null
}
