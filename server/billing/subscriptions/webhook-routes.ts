import type { OpenAPIHono } from '@hono/zod-openapi'
import { ZodError, z } from 'zod'
import { webhookAckSchema } from '../../../src/contract/billing.js'
import { stripeEventExample, webhookAckExample } from '../../../src/contract/examples.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { ApiError, validationError } from '../../errors.js'
import { defineRoute, jsonResponse } from '../../http/openapi.js'
import { PaymentProviderUnavailableError, WebhookRejectedError } from '../../payments/provider.js'
import { stripeEventSchema } from '../../payments/stripe-objects.js'
import { billingTags } from '../routing.js'
import { receivePaymentEvent } from './service.js'

/** How long the provider is asked to wait before redelivering an event that could not be processed. */
const RETRY_AFTER_SECONDS = 60

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i

/**
 * The signed Stripe event, documented from the schema its envelope is parsed with (the route itself
 * reads the raw body: the signature covers its exact bytes). Stripe's other event fields are ignored.
 */
const { $schema: _, ...stripeEventJson } = z.toJSONSchema(stripeEventSchema, { io: 'input' })
const stripeEventJsonSchema = { ...stripeEventJson, additionalProperties: true } as { type: 'object' }

const stripeWebhook = defineRoute({
  method: 'post',
  path: '/console/billing/webhooks/stripe',
  operationId: 'receiveStripeEvent',
  access: 'public',
  tags: billingTags,
  summary: "Stripe's signed webhook (public; verified by Stripe-Signature)",
  description:
    'Receives Stripe events, verifies `Stripe-Signature` over the raw body with RWA_STRIPE_WEBHOOK_SECRET ' +
    '(300 s tolerance), and applies subscription changes, creating the organization named by `metadata.org_id` ' +
    'if nothing named it before. Enabled with RWA_PAYMENT_PROVIDER=stripe (404 otherwise).',
  parameters: [
    {
      name: 'Stripe-Signature',
      in: 'header',
      required: true,
      description: "Stripe's signature of the raw body: `t=<unix seconds>,v1=<hex HMAC-SHA256>`",
      schema: { type: 'string' },
      example: 't=1795342500,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
    },
  ],
  request: {
    body: {
      content: { 'application/json': { schema: stripeEventJsonSchema, example: stripeEventExample } },
      required: true,
    },
  },
  responses: {
    200: jsonResponse(
      webhookAckSchema,
      'Event received (applied, skipped, duplicate or ignored)',
      webhookAckExample,
    ),
  },
  refusals: [404, 503],
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
      return c.json({ received: true as const, event_id: event.id, ...outcome }, 200)
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
  })
}
