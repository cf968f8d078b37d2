import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import { ZodError } from 'zod'
import { webhookAckSchema } from '../../../src/contract/billing.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { ApiError, validationError } from '../../errors.js'
import { jsonResponse, problemResponses } from '../../http/openapi.js'
import { PaymentProviderUnavailableError, WebhookRejectedError } from '../../payments/provider.js'
import { receivePaymentEvent } from './service.js'

/** How long the provider is asked to wait before redelivering an event that could not be processed. */
const RETRY_AFTER_SECONDS = 60

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
 * nothing; when the provider's API is needed and cannot be reached the answer is 503, so it redelivers.
 */
export function registerStripeWebhook(app: OpenAPIHono<AppEnv>, ctx: AppContext): void {
  app.openapi(stripeWebhook, async (c) => {
    const webhook = ctx.payments.name === 'stripe' ? ctx.payments.webhook : null
    if (!webhook) {
      throw new ApiError(
        'not_found',
        'Stripe webhooks are disabled: the server runs with RWA_PAYMENT_PROVIDER=local',
      )
    }
    const signature = c.req.header(webhook.signatureHeader)
    if (!signature) throw new ApiError('invalid_request', `Missing ${webhook.signatureHeader} header`)
    const rawBody = await c.req.text()

    let event: { id: string; type: string }
    try {
      event = webhook.verify(rawBody, signature, ctx.clock.now())
    } catch (error) {
      if (error instanceof WebhookRejectedError) throw new ApiError('invalid_request', error.detail)
      if (error instanceof ZodError) throw validationError(error, 'body')
      throw error
    }

    try {
      const outcome = await receivePaymentEvent(ctx, webhook, event)
      return c.json({ received: true as const, event_id: event.id, ...outcome }, 200)
    } catch (error) {
      if (error instanceof ZodError) throw validationError(error, 'data.object')
      if (error instanceof PaymentProviderUnavailableError) {
        ctx.logError(
          `${ctx.payments.name} event ${event.id} (${event.type}) not processed; it will be redelivered`,
          error,
        )
        throw new ApiError(
          'unavailable',
          `Stripe's API could not be reached to process ${event.id}; retry later`,
          { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
        )
      }
      throw error
    }
  })
}
