import { type Limits, TIER_LIMITS, type Tier } from '../../../src/contract/limits.js'

/** What the service knows of an organization's plan: its trial and its payment subscription. */
export interface PlanState {
  /** End of the organization's trial in ms, or null when it never started one. */
  trialEndsAt: number | null
  subscription: { tier: Tier; status: string } | null
}

/** What an organization may do right now. */
export interface Entitlement {
  /** The tier the API reports: the subscribed tier, `free` without a subscription (also during a trial). */
  tier: Tier
  /** The tier whose limits are in force: Pro during an active trial unless the subscription is higher. */
  limitsTier: Tier
  limits: Limits
  trialActive: boolean
  /** Governance needs a paid tier or an active trial. */
  governance: boolean
}

/** Subscription statuses that keep the subscribed tier (Stripe keeps access while it retries a payment). */
const ENTITLED_STATUSES = new Set(['active', 'trialing', 'past_due'])

const rank: Record<Tier, number> = { free: 0, pro: 1, enterprise: 2 }

/** The entitlement of an organization with plan `plan` at instant `now` (ms). */
export function entitlementOf(plan: PlanState, now: number): Entitlement {
  const sub = plan.subscription
  const tier: Tier = sub && ENTITLED_STATUSES.has(sub.status) ? sub.tier : 'free'
  const trialActive = plan.trialEndsAt !== null && now < plan.trialEndsAt
  const limitsTier: Tier = trialActive && rank[tier] < rank.pro ? 'pro' : tier
  return { tier, limitsTier, limits: TIER_LIMITS[limitsTier], trialActive, governance: limitsTier !== 'free' }
}
