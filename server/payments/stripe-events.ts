import Stripe from 'stripe'
import { ADMIN_ORG_ID } from '../auth/principal.js'
import { applySubscription } from '../billing/service.js'
import { isoTimestamp } from '../clock.js'
import type { AppContext } from '../context.js'
import { reasonToSkip } from './event-order.js'
import {
  orgIdIn,
  refId,
  type StripeEvent,
  type StripeSubscription,
  stripeCheckoutSessionSchema,
  stripeInvoiceSchema,
  stripeSubscriptionSchema,
} from './stripe-objects.js'
import type { StripePaymentProvider } from './stripe-provider.js'
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

/** What the webhook did with an event (every outcome is acknowledged with 200). */
export interface EventOutcome {
  outcome: 'applied' | 'skipped' | 'duplicate' | 'ignored'
  org_id: string | null
  detail: string | null
}

/** The Stripe API could not be reached (or failed) while handling an event: Stripe should retry later. */
export class StripeUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`Stripe API call failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'StripeUnavailableError'
  }
}

/** Where an event's subscription came from, and the org ids the event itself names. */
interface EventSubscription {
  sub: StripeSubscription
  orgHints: Array<string | null | undefined>
}

/**
 * Applies a verified Stripe event to the organization's subscription through `applySubscription`, so
 * limits change on the next request. Idempotent by event id; an event older than the applied state
 * changes nothing. Subscription events carry the subscription; for checkout and invoice events it is
 * fetched from Stripe (its state now). Throws StripeUnavailableError when Stripe cannot be asked.
 */
export async function handleStripeEvent(
  ctx: AppContext,
  stripe: StripePaymentProvider,
  event: StripeEvent,
): Promise<EventOutcome> {
  const result = (outcome: EventOutcome['outcome'], orgId: string | null, detail: string | null = null) => ({
    outcome,
    org_id: orgId,
    detail,
  })
  if (!HANDLED_EVENT_TYPES.has(event.type))
    return result('ignored', null, `event type ${event.type} is not handled`)
  // A redelivery needs no Stripe call; the insert in applySubscription is what guarantees once-only.
  if (await alreadyProcessed(ctx, event.id)) return result('duplicate', null)

  const found = await subscriptionOf(stripe, event)
  if (typeof found === 'string') return result('ignored', null, found)
  const orgId = await orgIdOf(ctx, stripe, found)
  if (orgId === null) {
    const detail = `no organization linked to subscription ${found.sub.id} (set metadata.org_id on it or its customer)`
    ctx.logError(`stripe event ${event.id} (${event.type}) ignored: ${detail}`)
    return result('ignored', null, detail)
  }
  if (orgId === ADMIN_ORG_ID || !(await ctx.directory.org(orgId))) {
    const detail =
      orgId === ADMIN_ORG_ID ? 'the operator organization is not billed' : `unknown organization ${orgId}`
    ctx.logError(`stripe event ${event.id} (${event.type}) ignored: ${detail}`)
    return result('ignored', orgId, detail)
  }

  const state = subscriptionStateOf(found.sub, stripe.prices)
  if (state.tier === null) {
    const detail = `price ${state.payment_price_id} is not RWA_STRIPE_PRICE_PRO or RWA_STRIPE_PRICE_ENTERPRISE`
    ctx.logError(`stripe event ${event.id} (${event.type}) for ${orgId} ignored: ${detail}`)
    return result('ignored', orgId, detail)
  }
  const eventCreatedMs = event.created * 1000
  const applied = await applySubscription(
    ctx,
    orgId,
    { ...state, tier: state.tier, provider: stripe.name, provider_updated_at: isoTimestamp(eventCreatedMs) },
    {
      id: event.id,
      type: event.type,
      reasonToSkip: (current) =>
        reasonToSkip(
          {
            eventType: event.type,
            eventCreatedMs,
            subscriptionId: state.payment_subscription_id,
            status: state.status,
          },
          current,
        ),
    },
  )
  if (applied.outcome === 'applied') stripe.forget(orgId)
  return result(applied.outcome, orgId, applied.outcome === 'skipped' ? applied.reason : null)
}

async function alreadyProcessed(ctx: AppContext, eventId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('processed_events')
    .select('event_id')
    .where('event_id', '=', eventId)
    .executeTakeFirst()
  return row !== undefined
}

/** The subscription an event is about, or why the event has none to apply. */
async function subscriptionOf(
  stripe: StripePaymentProvider,
  event: StripeEvent,
): Promise<EventSubscription | string> {
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
async function fetched(
  stripe: StripePaymentProvider,
  subscriptionId: string,
): Promise<StripeSubscription | string> {
  try {
    return await stripe.subscription(subscriptionId)
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) {
      return `subscription ${subscriptionId} does not exist at Stripe`
    }
    throw new StripeUnavailableError(error)
  }
}

/**
 * The organization of a subscription: `org_id` named by the event (subscription metadata first), else the
 * organization already holding this subscription or customer, else the customer's metadata at Stripe.
 */
async function orgIdOf(
  ctx: AppContext,
  stripe: StripePaymentProvider,
  { sub, orgHints }: EventSubscription,
): Promise<string | null> {
  const named = orgHints.find((hint): hint is string => typeof hint === 'string' && hint.trim() !== '')
  if (named) return named.trim()
  const customerId = refId(sub.customer)
  const known = await ctx.db
    .selectFrom('subscriptions')
    .select('org_id')
    .where((eb) =>
      eb.or([eb('payment_subscription_id', '=', sub.id), eb('payment_customer_id', '=', customerId)]),
    )
    .where('provider', '=', stripe.name)
    .executeTakeFirst()
  if (known) return known.org_id
  if (typeof sub.customer !== 'string') return orgIdIn(sub.customer.metadata)
  try {
    return await stripe.customerOrgId(customerId)
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return null
    throw new StripeUnavailableError(error)
  }
}
