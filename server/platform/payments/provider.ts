import type { Tier } from '../../../src/contract/limits.js'
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

/** A subscription to record for an organization: what the admin endpoint or a provider event says. */
export interface SubscriptionChange {
  tier: Tier
  status?: string
  provider: string
  payment_subscription_id?: string | null
  payment_customer_id?: string | null
  payment_price_id?: string | null
  current_period_start?: string | null
  current_period_end?: string | null
  cancel_at_period_end?: boolean
  provider_updated_at?: string | null
}

/** The payment-provider event behind a change: applied at most once, and never over a newer state. */
export interface ProviderEventRef {
  id: string
  type: string
  /** Why the change must not replace the stored subscription (e.g. it is older), or null to apply it. */
  reasonToSkip(current: SubscriptionsTable | undefined): string | null
}

/** A verified webhook event that is not about a subscription this service can apply. */
export interface IgnoredEvent {
  kind: 'ignored' | 'duplicate'
  orgId: string | null
  detail: string | null
}

/** A verified webhook event that changes an organization's subscription. */
export interface SubscriptionEvent {
  kind: 'change'
  orgId: string
  change: SubscriptionChange
  event: ProviderEventRef
}

/** What the service tells a webhook about its own records while the event is interpreted. */
export interface WebhookLookups {
  /** Whether the event was applied before (a redelivery). */
  isProcessed(eventId: string): Promise<boolean>
  /** The organization holding a subscription of this provider (the stored mapping). */
  orgOfSubscription(subscriptionId: string): Promise<string | undefined>
  /** The organization already holding a subscription or customer of this provider. */
  orgOfPayment(subscriptionId: string, customerId: string): Promise<string | undefined>
  /** Why an organization cannot take a subscription (e.g. the operator organization), or null. */
  refusal(orgId: string): Promise<string | null>
  logError(message: string, error?: unknown): void
}

/** The provider's signed notifications of subscription changes. */
export interface PaymentWebhook {
  /** The request header carrying the signature. */
  readonly signatureHeader: string
  /**
   * Verifies the signature over the raw body at `receivedAtMs` and returns the event. Throws
   * WebhookRejectedError when it does not hold, or a ZodError when the signed body is not an event.
   */
  verify(rawBody: string, signature: string, receivedAtMs: number): { id: string; type: string }
  /** What a verified event means; throws PaymentProviderUnavailableError when the provider must be asked and cannot be. */
  interpret(
    event: { id: string; type: string },
    lookups: WebhookLookups,
  ): Promise<IgnoredEvent | SubscriptionEvent>
}

/**
 * The payment-provider port. The service asks it, when an organization's trial has ended, whether the
 * organization has an active subscription; if so the trial ends in that tier instead of `free`. A
 * provider that sends signed webhooks exposes them as `webhook`.
 */
export interface PaymentProvider {
  /** Stored with each subscription the provider recorded: `local` or `stripe`. */
  readonly name: string
  activeSubscription(orgId: string): Promise<ProviderSubscription | null>
  readonly webhook: PaymentWebhook | null
}

/** A webhook delivery refused before anything is stored: a bad signature, or a body that is not JSON. */
export class WebhookRejectedError extends Error {
  constructor(readonly detail: string) {
    super(detail)
    this.name = 'WebhookRejectedError'
  }
}

/** The provider's API could not be reached (or failed) while an event needed it: redeliver later. */
export class PaymentProviderUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`payment provider API call failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    })
    this.name = 'PaymentProviderUnavailableError'
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
