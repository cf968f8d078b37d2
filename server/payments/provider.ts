import type { Tier } from '../../src/contract/limits.js'
import type { Db } from '../db/database.js'
import type { SubscriptionsTable } from '../db/schema.js'

/** A subscription as the payment provider reports it. */
export interface ProviderSubscription {
  tier: Tier
  status: string
  payment_subscription_id: string | null
  payment_customer_id: string | null
  payment_price_id: string | null
  current_period_start: string | null
  current_period_end: string | null
  cancel_at_period_end: boolean
}

/**
 * The payment-provider port. The service asks it, when an organization's trial has ended, whether the
 * organization has an active subscription; if so the trial ends in that tier instead of `free`.
 */
export interface PaymentProvider {
  /** Stored with each subscription the provider recorded: `local` or `stripe`. */
  readonly name: string
  activeSubscription(orgId: string): Promise<ProviderSubscription | null>
}

/**
 * The embedded default: the subscription is whatever `POST /console/billing/subscription` recorded,
 * so the answer comes from the local database.
 */
export class LocalPaymentProvider implements PaymentProvider {
  readonly name = 'local'

  constructor(private readonly db: Db) {}

  async activeSubscription(orgId: string): Promise<ProviderSubscription | null> {
    const row = await this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('org_id', '=', orgId)
      .executeTakeFirst()
    if (row?.status !== 'active' || row.tier === 'free') return null
    return { tier: row.tier as Tier, status: row.status, ...paymentDetailsOf(row) }
  }
}

/** The payment-provider details of a stored subscription, as the API shows them. */
export function paymentDetailsOf(row: SubscriptionsTable) {
  return {
    payment_subscription_id: row.payment_subscription_id,
    payment_customer_id: row.payment_customer_id,
    payment_price_id: row.payment_price_id,
    current_period_start: row.current_period_start,
    current_period_end: row.current_period_end,
    cancel_at_period_end: row.cancel_at_period_end === 1,
  }
}
