import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import Stripe from 'stripe'
import { z, ZodError } from 'zod'
import type { AppEnv } from '../auth/principal.js'
import type { AppContext } from '../context.js'
import { ApiError, validationError } from '../errors.js'
import { jsonResponse, problemResponses } from '../http/openapi.js'
import { stripeEventSchema } from '../payments/stripe-objects.js'
import { handleStripeEvent, StripeUnavailableError } from '../payments/stripe-events.js'
import { StripePaymentProvider } from '../payments/stripe-provider.js'

/** How long Stripe is asked to wait before redelivering an event it could not be processed with. */
const RETRY_AFTER_SECONDS = 60

/** The acknowledgement of a webhook event: what was done with it. */
export const webhookAckSchema = z.object({
  received: z.literal(true),
  event_id: z.string(),
  outcome: z
    .enum(['applied', 'skipped', 'duplicate', 'ignored'])
    .describe(
      'applied: the subscription changed; skipped: older than the applied state; duplicate: already processed; ignored: not a subscription change this service knows',
    ),
  org_id: z.string().nullable(),
  detail: z.string().nullable(),
})

const stripeWebhook = createRoute({
  method: 'post',
  path: '/console/billing/webhooks/stripe',
  tags: ['billing'],
  summary: "Stripe's signed webhook (public; verified by Stripe-Signature)",
  description:
    'Receives Stripe events, verifies `Stripe-Signature` over the raw body with RWA_STRIPE_WEBHOOK_SECRET ' +
    '(300 s tolerance), and applies subscription changes. Enabled with RWA_PAYMENT_PROVIDER=stripe.',
  responses: {
    200: jsonResponse(webhookAckSchema, 'Event received (applied, skipped, duplicate or ignored)'),
    ...problemResponses(400, 404, 413, 503),
  },
})

/**
 * Registers `POST /console/billing/webhooks/stripe`. It takes no API key: the signature is the
 * authentication, checked over the raw body before anything is parsed or stored. A refused event stores
 * nothing; when Stripe's API is needed and cannot be reached the answer is 503, so Stripe retries.
 */
export function registerStripeWebhook(app: OpenAPIHono<AppEnv>, ctx: AppContext): void {
  app.openapi(stripeWebhook, async (c) => {
    const stripe = ctx.payments
    if (!(stripe instanceof StripePaymentProvider)) {
      throw new ApiError(
        'not_found',
        'Stripe webhooks are disabled: the server runs with RWA_PAYMENT_PROVIDER=local',
      )
    }
    const signature = c.req.header('stripe-signature')
    if (!signature) throw new ApiError('invalid_request', 'Missing Stripe-Signature header')
    const rawBody = await c.req.text()

    let payload: unknown
    try {
      payload = stripe.constructEvent(rawBody, signature, ctx.clock.now())
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
        // The SDK's message names the failure (no match, stale timestamp, bad header); never the secret.
        const reason = error.message.split('. ')[0]
        throw new ApiError('invalid_request', `Stripe-Signature verification failed: ${reason}`)
      }
      throw new ApiError('invalid_request', 'The signed body is not JSON')
    }
    const parsed = stripeEventSchema.safeParse(payload)
    if (!parsed.success) throw validationError(parsed.error, 'body')
    const event = parsed.data

    try {
      const outcome = await handleStripeEvent(ctx, stripe, event)
      return c.json({ received: true as const, event_id: event.id, ...outcome }, 200)
    } catch (error) {
      if (error instanceof ZodError) throw validationError(error, 'data.object')
      if (error instanceof StripeUnavailableError) {
        ctx.logError(
          `stripe event ${event.id} (${event.type}) not processed; Stripe will redeliver it`,
          error,
        )
        throw new ApiError(
          'unavailable',
          `Stripe's API could not be reached to process ${event.id}; retry later`,
          {
            headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
          },
        )
      }
      throw error
    }
  })
}
