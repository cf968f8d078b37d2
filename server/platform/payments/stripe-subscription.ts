import type { SubscriptionStatus } from '../../../src/contract/billing.js'
import type { Tier } from '../../../src/contract/limits.js'
import { utcDate } from '../clock.js'
import { type PriceTiers, tierOfPrice } from './price-tiers.js'
import { refId, type StripeSubscription } from './stripe-objects.js'

/** What this service stores of a Stripe subscription. */
export interface StripeSubscriptionState {
  /** The tier bought; `free` once the subscription ended; null when its price is not one this service sells. */
  tier: Tier | null
  status: SubscriptionStatus
  payment_subscription_id: string
  payment_customer_id: string
  payment_price_id: string | null
  current_period_start: string | null
  current_period_end: string | null
  cancel_at_period_end: boolean
}

/**
 * Stripe's subscription statuses in the contract's vocabulary. The two Stripe has beyond it:
 * `incomplete_expired` has ended like `canceled`; `paused` (a trial ended without a payment method)
 * gives no access until paid, like `unpaid`. A status Stripe adds later gives no access.
 */
const STORED_STATUS: Record<string, SubscriptionStatus> = {
  active: 'active',
  trialing: 'trialing',
  past_due: 'past_due',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
  unpaid: 'unpaid',
  paused: 'unpaid',
  incomplete: 'incomplete',
}

/** The stored status of a Stripe subscription status. */
export const storedStatusOf = (stripeStatus: string): SubscriptionStatus =>
  STORED_STATUS[stripeStatus] ?? 'incomplete'

/** Whether a stored status means the subscription is over for good (Stripe never revives one). */
export const hasEnded = (status: string): boolean => status === 'canceled'

const rank: Record<Tier, number> = { free: 0, pro: 1, enterprise: 2 }

/**
 * The state to store for a Stripe subscription: the highest tier among its items' prices, that item's
 * billing period as dates (on the item in current API versions, on the subscription in older ones), and
 * `free` once it has ended.
 */
export function subscriptionStateOf(sub: StripeSubscription, prices: PriceTiers): StripeSubscriptionState {
  const items = sub.items.data.map((item) => {
    const priceId = item.price?.id ?? item.plan?.id ?? null
    return { item, priceId, tier: priceId === null ? null : tierOfPrice(priceId, prices) }
  })
  const sold = items.filter((i) => i.tier !== null).sort((a, b) => rank[b.tier!] - rank[a.tier!])
  const chosen = sold[0] ?? items[0]
  const status = storedStatusOf(sub.status)
  const start = chosen?.item.current_period_start ?? sub.current_period_start ?? null
  const end = chosen?.item.current_period_end ?? sub.current_period_end ?? null
  return {
    tier: hasEnded(status) ? 'free' : (chosen?.tier ?? null),
    status,
    payment_subscription_id: sub.id,
    payment_customer_id: refId(sub.customer),
    payment_price_id: chosen?.priceId ?? null,
    current_period_start: start === null ? null : utcDate(start * 1000),
    current_period_end: end === null ? null : utcDate(end * 1000),
    cancel_at_period_end: sub.cancel_at_period_end ?? false,
  }
}
