import type { SomeHandlers } from '../../pipeline/handler.js'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  resendEvent,
  retryWebhookDelivery,
  rotateWebhookSecret,
} from './service.js'

/** Webhook endpoints, their deliveries, and resending an event to them. */
export const webhookHandlers = {
  resendEvent: (ctx, { principal, params }) => resendEvent(ctx, principal, params.id),
  createWebhook: (ctx, { principal, body }) => createWebhook(ctx, principal, body),
  listWebhooks: (ctx, { principal, query }) => listWebhooks(ctx, principal, query),
  getWebhook: (ctx, { principal, params }) => getWebhook(ctx, principal, params.id),
  deleteWebhook: (ctx, { principal, params }) => deleteWebhook(ctx, principal, params.id),
  rotateWebhookSecret: (ctx, { principal, params }) => rotateWebhookSecret(ctx, principal, params.id),
  listWebhookDeliveries: (ctx, { principal, params, query }) =>
    listWebhookDeliveries(ctx, principal, params.id, query),
  retryWebhookDelivery: (ctx, { principal, params }) =>
    retryWebhookDelivery(ctx, principal, params.id, params.delivery_id),
} satisfies SomeHandlers
