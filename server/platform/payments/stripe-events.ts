import Stripe from 'stripe'
import { isoTimestamp } from '../clock.js'
import { reasonToSkip } from './event-order.js'
import type { PriceTiers } from './price-tiers.js'
import {
  type IgnoredEvent,
  PaymentProviderUnavailableError,
  type SubscriptionEvent,
  type WebhookLookups,
} from './provider.js'
import {
  orgIdIn,
  refId,
  type StripeEvent,
  type StripeSubscription,
  stripeCheckoutSessionSchema,
  stripeInvoiceSchema,
  stripeSubscriptionSchema,
} from './stripe-objects.js'
import { subscriptionStateOf } from './stripe-subscription.js'

/** The event types that change a subscription; every other type is acknowledged and ignored. */
export const HANDLED_EVENT_TYPES: ReadonlySet<string> = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
])

/** What interpreting an event asks of Stripe (the provider's API client). */
export interface StripeReader {
  readonly name: string
  readonly prices: PriceTiers
  /** The subscription as Stripe holds it now. */
  subscription(subscriptionId: string): Promise<StripeSubscription>
  /** The `org_id` in a customer's metadata, or null. */
  customerOrgId(customerId: string): Promise<string | null>
}

/** Where an event's subscription came from, and the org ids the event itself names. */
interface EventSubscription {
  sub: StripeSubscription
  orgHints: Array<string | null | undefined>
}

/**
 * What a verified Stripe event means for an organization's subscription: the change to apply (with the
 * event, so it is applied once and never over a newer state), or why it is ignored. Subscription
 * events carry the subscription; for checkout and invoice events it is fetched from Stripe (its state
 * now). Throws PaymentProviderUnavailableError when Stripe cannot be asked.
 */
export async function interpretStripeEvent(
  stripe: StripeReader,
  event: StripeEvent,
  lookups: WebhookLookups,
): Promise<IgnoredEvent | SubscriptionEvent> {
  const ignored = (orgId: string | null, detail: string): IgnoredEvent => {
    lookups.logError(`stripe event ${event.id} (${event.type}) ignored: ${detail}`)
    return { kind: 'ignored', orgId, detail }
  }
  if (!HANDLED_EVENT_TYPES.has(event.type)) {
    return { kind: 'ignored', orgId: null, detail: `event type ${event.type} is not handled` }
  }
  // A redelivery needs no Stripe call; recording the event with its effect is what guarantees once-only.
  if (await lookups.isProcessed(event.id)) return { kind: 'duplicate', orgId: null, detail: null }

  const found = await subscriptionOf(stripe, event)
  if (typeof found === 'string') return { kind: 'ignored', orgId: null, detail: found }
  const orgId = await orgIdOf(stripe, found, lookups)
  if (orgId === null) {
    return ignored(
      null,
      `no organization linked to subscription ${found.sub.id} (set metadata.org_id on it or its customer)`,
    )
  }
  const refusal = await lookups.refusal(orgId)
  if (refusal !== null) return ignored(orgId, refusal)

  const state = subscriptionStateOf(found.sub, stripe.prices)
  if (state.tier === null) {
    return ignored(
      orgId,
      `price ${state.payment_price_id} is not RWA_STRIPE_PRICE_PRO or RWA_STRIPE_PRICE_ENTERPRISE`,
    )
  }
  const eventCreatedMs = event.created * 1000
  return {
    kind: 'change',
    orgId,
    change: {
      ...state,
      tier: state.tier,
      provider: stripe.name,
      provider_updated_at: isoTimestamp(eventCreatedMs),
    },
    event: {
      id: event.id,
      type: event.type,
      reasonToSkip: (current) =>
        reasonToSkip(
          {
            eventType: event.type,
            eventCreatedMs,
            subscriptionId: state.payment_subscription_id,
            status: state.status,
            tier: state.tier ?? undefined,
          },
          current,
        ),
    },
  }
}

/** The subscription an event is about, or why the event has none to apply. */
async function subscriptionOf(stripe: StripeReader, event: StripeEvent): Promise<EventSubscription | string> {
  const object = event.data.object
  if (event.type.startsWith('customer.subscription.')) {
    const sub = stripeSubscriptionSchema.parse(object)
    return { sub, orgHints: [orgIdIn(sub.metadata)] }
  }
  if (event.type === 'checkout.session.completed') {
    const session = stripeCheckoutSessionSchema.parse(object)
    if (!session.subscription) return `checkout session ${session.id} did not create a subscription`
    const sub =
      typeof session.subscription === 'string'
        ? await fetched(stripe, session.subscription)
        : session.subscription
    if (typeof sub === 'string') return sub
    return { sub, orgHints: [orgIdIn(sub.metadata), orgIdIn(session.metadata), session.client_reference_id] }
  }
  const invoice = stripeInvoiceSchema.parse(object)
  const ref = invoice.parent?.subscription_details?.subscription ?? invoice.subscription
  if (!ref) return `invoice ${invoice.id} is not for a subscription`
  const sub = await fetched(stripe, refId(ref))
  if (typeof sub === 'string') return sub
  return { sub, orgHints: [orgIdIn(sub.metadata), orgIdIn(invoice.parent?.subscription_details?.metadata)] }
}

/** The subscription as Stripe holds it now, or why there is none (it does not exist at Stripe). */
async function fetched(stripe: StripeReader, subscriptionId: string): Promise<StripeSubscription | string> {
  try {
    return await stripe.subscription(subscriptionId)
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) {
      return `subscription ${subscriptionId} does not exist at Stripe`
    }
    throw new PaymentProviderUnavailableError(error)
  }
}

/**
 * The organization of a subscription: the organization already holding this subscription (the stored
 * mapping wins over what the event says), else `org_id` named by the event (subscription metadata
 * first), else the organization holding this customer, else the customer's metadata at Stripe.
 */
async function orgIdOf(
  stripe: StripeReader,
  { sub, orgHints }: EventSubscription,
  lookups: WebhookLookups,
): Promise<string | null> {
  const holder = await lookups.orgOfSubscription(sub.id)
  if (holder) return holder
  const named = orgHints.find((hint): hint is string => typeof hint === 'string' && hint.trim() !== '')
  if (named) return named.trim()
  const customerId = refId(sub.customer)
  const known = await lookups.orgOfPayment(sub.id, customerId)
  if (known) return known
  if (typeof sub.customer !== 'string') return orgIdIn(sub.customer.metadata)
  try {
    return await stripe.customerOrgId(customerId)
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return null
    throw new PaymentProviderUnavailableError(error)
  }
}
