import { hasEnded } from './stripe-subscription.js'

/** What is stored of the subscription an event would replace. */
export interface AppliedSubscription {
  payment_subscription_id: string | null
  status: string
  /** ISO time of the provider event applied last; null when the state was not set by the provider. */
  provider_updated_at: string | null
  /** The tier it gives (absent: not compared). */
  tier?: string
}

/** A subscription state carried by (or fetched for) a provider event. */
export interface IncomingSubscription {
  eventType: string
  /** When the provider created the event, in ms. */
  eventCreatedMs: number
  subscriptionId: string
  status: string
  /** The tier it would give (absent: not compared). */
  tier?: string
}

const TIER_RANK: Record<string, number> = { free: 0, pro: 1, enterprise: 2 }

/** Whether a stored state still gives its tier (active, trialing, past_due). */
const givesAccess = (status: string): boolean =>
  !hasEnded(status) && status !== 'unpaid' && status !== 'incomplete'

/**
 * Why an incoming subscription state must not replace the applied one, or null when it should.
 * Stripe delivers events out of order and retries them for days, so:
 * - an event created before the applied one is stale;
 * - an ended subscription never comes back, so a live state of it is stale whatever its time says;
 * - within the same second (Stripe's timestamps have no finer grain) a `created` event cannot follow
 *   another event of the same subscription;
 * - the end of a subscription other than the applied one does not end the applied one;
 * - another subscription never replaces one that still gives a higher tier (an event naming the
 *   organization in its metadata cannot turn its enterprise subscription into pro).
 * A state not set by the provider (the admin endpoint, or none) is always replaced.
 */
export function reasonToSkip(
  incoming: IncomingSubscription,
  applied: AppliedSubscription | undefined,
): string | null {
  if (!applied || applied.provider_updated_at === null) return null
  const sameSubscription = applied.payment_subscription_id === incoming.subscriptionId
  const appliedMs = Date.parse(applied.provider_updated_at)
  if (incoming.eventCreatedMs < appliedMs) return 'older than the subscription state already applied'
  if (sameSubscription && hasEnded(applied.status) && !hasEnded(incoming.status)) {
    return 'the subscription has already ended'
  }
  if (
    sameSubscription &&
    incoming.eventCreatedMs === appliedMs &&
    incoming.eventType === 'customer.subscription.created'
  ) {
    return 'a later state of the subscription is already applied'
  }
  if (!sameSubscription && hasEnded(incoming.status) && !hasEnded(applied.status)) {
    return 'the ended subscription is not the one the organization holds'
  }
  const appliedRank = TIER_RANK[applied.tier ?? '']
  const incomingRank = TIER_RANK[incoming.tier ?? '']
  if (
    !sameSubscription &&
    givesAccess(applied.status) &&
    appliedRank !== undefined &&
    incomingRank !== undefined &&
    incomingRank < appliedRank
  ) {
    return `the organization holds another subscription (${applied.payment_subscription_id}) that gives a higher tier (${applied.tier})`
  }
  return null
}
