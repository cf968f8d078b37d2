import { z } from 'zod'
import { stripeEventSchema } from '../../../src/contract/billing.js'

/*
 * The parts of Stripe's JSON objects this service reads, as zod schemas. A webhook payload is shaped by
 * the API version of the endpoint that sends it, not by the SDK's types, so each field is read where
 * either shape keeps it (e.g. billing periods moved from the subscription to its items in API version
 * 2025-03-31, and an invoice's subscription moved under `parent.subscription_details`). Unknown fields
 * are dropped; a missing required field fails the parse.
 */

const metadataSchema = z.record(z.string(), z.string()).nullish()

/** An expandable reference: an id, or the object itself when expanded. */
const refSchema = z.union([z.string().min(1), z.object({ id: z.string().min(1), metadata: metadataSchema })])

const unixSeconds = z.number().int().nonnegative()

/** A Stripe subscription (`object: "subscription"`). */
export const stripeSubscriptionSchema = z.object({
  id: z.string().min(1),
  object: z.literal('subscription'),
  status: z.string().min(1),
  customer: refSchema,
  metadata: metadataSchema,
  cancel_at_period_end: z.boolean().nullish(),
  // Before API version 2025-03-31 the billing period lived on the subscription itself.
  current_period_start: unixSeconds.nullish(),
  current_period_end: unixSeconds.nullish(),
  items: z.object({
    data: z.array(
      z.object({
        price: z.object({ id: z.string().min(1) }).nullish(),
        plan: z.object({ id: z.string().min(1) }).nullish(),
        current_period_start: unixSeconds.nullish(),
        current_period_end: unixSeconds.nullish(),
      }),
    ),
  }),
})
export type StripeSubscription = z.infer<typeof stripeSubscriptionSchema>

/** A Checkout Session (`checkout.session.completed`). */
export const stripeCheckoutSessionSchema = z.object({
  id: z.string().min(1),
  object: z.literal('checkout.session'),
  mode: z.string().nullish(),
  client_reference_id: z.string().nullish(),
  metadata: metadataSchema,
  customer: refSchema.nullish(),
  subscription: z.union([z.string().min(1), stripeSubscriptionSchema]).nullish(),
})

/** An invoice (`invoice.paid`, `invoice.payment_failed`). */
export const stripeInvoiceSchema = z.object({
  id: z.string().min(1),
  object: z.literal('invoice'),
  customer: refSchema.nullish(),
  // Before API version 2025-03-31.
  subscription: refSchema.nullish(),
  parent: z
    .object({
      subscription_details: z.object({ subscription: refSchema, metadata: metadataSchema }).nullish(),
    })
    .nullish(),
})

/** A customer, for the `org_id` in its metadata. */
export const stripeCustomerSchema = z.object({
  id: z.string().min(1),
  object: z.literal('customer'),
  deleted: z.boolean().nullish(),
  metadata: metadataSchema,
})

/** The envelope of every webhook event. `data.object` is parsed per event type. */
export { stripeEventSchema }
export type StripeEvent = z.infer<typeof stripeEventSchema>

/** The id of an expandable reference. */
export const refId = (ref: string | { id: string }): string => (typeof ref === 'string' ? ref : ref.id)

/** The `org_id` in a metadata object, if it holds a non-empty one. */
export function orgIdIn(metadata: Record<string, string> | null | undefined): string | null {
  const orgId = metadata?.org_id?.trim()
  return orgId ? orgId : null
}
