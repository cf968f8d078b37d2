import Stripe from 'stripe'
import { type Clock, systemClock } from '../clock.js'
import { entitlementOf } from '../limits/entitlement.js'
import type { PriceTiers } from './price-tiers.js'
import {
  type PaymentProvider,
  type PaymentWebhook,
  type ProviderSubscription,
  WebhookRejectedError,
} from './provider.js'
import { interpretStripeEvent } from './stripe-events.js'
import {
  orgIdIn,
  type StripeSubscription,
  stripeCustomerSchema,
  stripeEventSchema,
  stripeSubscriptionSchema,
} from './stripe-objects.js'
import { subscriptionStateOf } from './stripe-subscription.js'

/** How old a signed webhook may be, in seconds (Stripe's own default). */
export const WEBHOOK_TOLERANCE_SECONDS = 300

export interface StripeProviderOptions {
  /** Secret (`sk_...`) or restricted (`rk_...`) API key. */
  secretKey: string
  /** Signing secret of the webhook endpoint (`whsec_...`). */
  webhookSecret: string
  prices: PriceTiers
  /** Base URL of the Stripe API; only tests point it elsewhere. Default `https://api.stripe.com`. */
  apiBase?: string | undefined
  clock?: Clock
  /** Timeout of each Stripe API call, in ms. */
  timeoutMs?: number
}

/**
 * Stripe as the payment provider, through the official `stripe` package: verifies webhook signatures,
 * reads subscriptions and customers, and answers whether an organization has an active subscription.
 * An organization is linked to Stripe by `metadata.org_id` on its subscription or its customer.
 */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe'
  readonly prices: PriceTiers
  private readonly stripe: Stripe
  private readonly webhookSecret: string
  private readonly clock: Clock
  readonly webhook: PaymentWebhook = {
    signatureHeader: 'Stripe-Signature',
    verify: (rawBody, signature, receivedAtMs) => {
      let payload: unknown
      try {
        payload = this.constructEvent(rawBody, signature, receivedAtMs)
      } catch (error) {
        if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
          // The SDK's message names the failure (no match, stale timestamp, bad header); never the secret.
          throw new WebhookRejectedError(
            `Stripe-Signature verification failed: ${error.message.split('. ')[0]}`,
          )
        }
        throw new WebhookRejectedError('The signed body is not JSON')
      }
      return stripeEventSchema.parse(payload)
    },
    interpret: (event, lookups) => interpretStripeEvent(this, stripeEventSchema.parse(event), lookups),
  }

  constructor(options: StripeProviderOptions) {
    this.prices = Object.freeze({ ...options.prices })
    this.webhookSecret = options.webhookSecret
    this.clock = options.clock ?? systemClock
    const base = options.apiBase ? new URL(options.apiBase) : undefined
    this.stripe = new Stripe(options.secretKey, {
      ...(base && {
        host: base.hostname,
        port: base.port || (base.protocol === 'http:' ? 80 : 443),
        protocol: base.protocol === 'http:' ? 'http' : 'https',
      }),
      timeout: options.timeoutMs ?? 10_000,
      maxNetworkRetries: 1,
      telemetry: false,
      appInfo: { name: 'rwa' },
    })
  }

  /**
   * Verifies `Stripe-Signature` over the raw body and returns the parsed JSON. The age of the signature
   * is measured against `receivedAtMs` (the app's clock), with a tolerance of 300 s. Throws
   * `Stripe.errors.StripeSignatureVerificationError` for a bad, missing or stale signature.
   */
  constructEvent(rawBody: string, signature: string, receivedAtMs: number): unknown {
    return this.stripe.webhooks.constructEvent(
      rawBody,
      signature,
      this.webhookSecret,
      WEBHOOK_TOLERANCE_SECONDS,
      undefined,
      receivedAtMs,
    )
  }

  /** The subscription as Stripe holds it now. */
  async subscription(subscriptionId: string): Promise<StripeSubscription> {
    return stripeSubscriptionSchema.parse(await this.stripe.subscriptions.retrieve(subscriptionId))
  }

  /** The `org_id` in a customer's metadata, or null (also for a deleted customer). */
  async customerOrgId(customerId: string): Promise<string | null> {
    const customer = stripeCustomerSchema.parse(await this.stripe.customers.retrieve(customerId))
    return customer.deleted ? null : orgIdIn(customer.metadata)
  }

  /**
   * The organization's best subscription that grants a paid tier now (active, trialing or past_due, at a
   * price this service sells), or null. Subscriptions are found with Stripe's search by
   * `metadata['org_id']` on the subscription, and on the customer (then listed per customer).
   */
  async activeSubscription(orgId: string): Promise<ProviderSubscription | null> {
    const now = this.clock.now()
    let best: ProviderSubscription | null = null
    for (const sub of await this.subscriptionsOf(orgId)) {
      const state = subscriptionStateOf(sub, this.prices)
      if (state.tier === null) continue
      const tier = entitlementOf(
        { trialEndsAt: null, subscription: { tier: state.tier, status: state.status } },
        now,
      ).tier
      if (tier === 'free' || (best && rank(best.tier) >= rank(tier))) continue
      best = { ...state, tier }
    }
    return best
  }

  private async subscriptionsOf(orgId: string): Promise<StripeSubscription[]> {
    const query = `metadata['org_id']:'${orgId.replaceAll("'", "\\'")}'`
    const found = new Map<string, unknown>()
    for (const sub of (await this.stripe.subscriptions.search({ query, limit: 100 })).data)
      found.set(sub.id, sub)
    for (const customer of (await this.stripe.customers.search({ query, limit: 10 })).data) {
      const list = await this.stripe.subscriptions.list({ customer: customer.id, status: 'all', limit: 100 })
      for (const sub of list.data) found.set(sub.id, sub)
    }
    return [...found.values()].map((sub) => stripeSubscriptionSchema.parse(sub))
  }
}

const rank = (tier: string): number => (tier === 'enterprise' ? 2 : tier === 'pro' ? 1 : 0)
