import { ZodError } from 'zod'
import { ApiError, validationError } from '../../../platform/errors.js'
import type { SomeHandlers } from '../../../pipeline/handler.js'
import { PaymentProviderUnavailableError, WebhookRejectedError } from '../../../platform/payments/provider.js'
import { receivePaymentEvent } from './service.js'

/** How long the provider is asked to wait before redelivering an event that could not be processed. */
const RETRY_AFTER_SECONDS = 60

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i

/**
 * `POST /console/billing/webhooks/stripe`. It takes no API key: the signature is the authentication,
 * checked over the raw body before anything is parsed or stored. A refused event stores nothing; when
 * the provider's API is needed and cannot be reached the answer is 503, so it redelivers.
 */
export const stripeWebhookHandlers = {
  receiveStripeEvent: async (ctx, { c }) => {
    const webhook = ctx.payments.name === 'stripe' ? ctx.payments.webhook : null
    if (!webhook) {
      throw new ApiError(
        'payment_webhook_disabled',
        'Stripe webhooks are disabled: the server runs with RWA_PAYMENT_PROVIDER=local',
      )
    }
    const contentType = c.req.header('content-type')
    if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
      throw new ApiError('json_required', 'Stripe sends its events as Content-Type: application/json')
    }
    const signature = c.req.header(webhook.signatureHeader)
    if (!signature) {
      throw new ApiError('missing_signature', `Missing ${webhook.signatureHeader} header`, {
        context: { header: webhook.signatureHeader },
      })
    }
    const rawBody = await c.req.text()

    let event: { id: string; type: string }
    try {
      event = webhook.verify(rawBody, signature, ctx.clock.now())
    } catch (error) {
      if (error instanceof WebhookRejectedError) throw new ApiError('signature_invalid', error.detail)
      if (error instanceof ZodError) throw validationError(error, 'body')
      throw error
    }

    try {
      const outcome = await receivePaymentEvent(ctx, webhook, event)
      return { received: true as const, event_id: event.id, ...outcome }
    } catch (error) {
      if (error instanceof ZodError) throw validationError(error, 'data.object')
      if (error instanceof PaymentProviderUnavailableError) {
        ctx.logError(
          `${ctx.payments.name} event ${event.id} (${event.type}) not processed; it will be redelivered`,
          error,
        )
        throw new ApiError(
          'payment_provider_unreachable',
          `Stripe's API could not be reached to process ${event.id}; retry later`,
          { context: { event_id: event.id }, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
        )
      }
      throw error
    }
  },
} satisfies SomeHandlers
