import { z } from 'zod'
import {
  createWebhookRequestSchema,
  deleteWebhookResponseSchema,
  deliveryAttemptExample,
  deliveryParamsSchema,
  eventExample,
  eventIdParamsSchema,
  eventSchema,
  eventStreamQuerySchema,
  MAX_ENABLED_WEBHOOKS,
  listDeliveriesQuerySchema,
  listDeliveriesResponseSchema,
  listEventsQuerySchema,
  listEventsResponseSchema,
  listWebhooksQuerySchema,
  listWebhooksResponseSchema,
  resendEventResponseSchema,
  retryDeliveryResponseSchema,
  webhookEndpointSchema,
  webhookExample,
  webhookIdParamsSchema,
  webhookWithSecretExample,
  webhookWithSecretSchema,
} from './events.js'
import { defineOperation, jsonBody, jsonResponse, optionalJsonBody } from './operation.js'

/** The OpenAPI tag of events and webhook endpoints. */
export const eventTags = ['events'] as const

/** A POST that takes no fields. */
const noFields = optionalJsonBody(z.strictObject({}), {})

/**
 * Events and webhook endpoints (docs/webhooks.md). Every role reads them; only an `owner` makes, deletes or
 * rotates an endpoint, resends an event or retries a delivery, since an endpoint decides where the
 * organization's records are sent. In routing order: `/events/stream` before `/events/{id}`. The
 * stream is read by `openEventStream` (src/client/event-stream.ts), not the generic client call, which
 * reads an answer whole.
 */
export const eventStreamRoutes = {
  streamEvents: defineOperation({
    operationId: 'streamEvents',
    method: 'get',
    path: '/console/events/stream',
    access: 'key',
    tags: eventTags,
    summary:
      "Stream the organization's events as they are committed (server-sent events), as `rwa listen` does",
    description:
      'A `text/event-stream` that opens with `retry: 1000`, an `id:` where it starts (a client that reconnects before any event resumes there) and a `: connected` comment, then sends each event committed from then on, on whichever instance, as `id: <event id>`, `event: <type>`, `data: <the event as JSON, as GET /console/events/{id} answers it>`, and a `: keep-alive` comment after 15 s without one. `events` narrows it (comma-separated types, `<resource>.*` or `*`). A client reconnecting with `Last-Event-ID` gets every event after that one, and may get the few seconds of events before it again: events are delivered at least once, so drop the ids you have had.',
    query: eventStreamQuerySchema,
    headers: [
      {
        name: 'Last-Event-ID',
        required: false,
        description:
          'The id of the last event received (an EventSource sends it when it reconnects): the stream resumes after it',
        example: eventExample.id,
      },
    ],
    response: {
      status: 200,
      schema: z.string(),
      mediaType: 'text/event-stream',
      description: 'Server-sent events, one per event committed, until the client disconnects',
      example: `retry: 1000\nid: evt_01KBC8AH000000000000000000\n: connected\n\nevent: ${eventExample.type}\ndata: ${JSON.stringify(eventExample)}\nid: ${eventExample.id}\n\n`,
    },
  }),
} as const

/** The organization's events. */
export const eventRoutes = {
  listEvents: defineOperation({
    operationId: 'listEvents',
    method: 'get',
    path: '/console/events',
    access: 'key',
    tags: eventTags,
    summary: "List the organization's events, newest first",
    description:
      'Each event says what happened to one record, with the record as the API answers it (`data.object`). Events are written in the transaction of their change, so a committed change always has its event. Filter: `type`.',
    query: listEventsQuerySchema,
    response: jsonResponse(200, listEventsResponseSchema, 'Events, newest first', {
      events: [eventExample],
      total: 1,
      next_cursor: null,
    }),
  }),
  getEvent: defineOperation({
    operationId: 'getEvent',
    method: 'get',
    path: '/console/events/{id}',
    access: 'key',
    tags: eventTags,
    summary: 'Get an event',
    params: eventIdParamsSchema,
    response: jsonResponse(200, eventSchema, 'The event', eventExample),
    refusals: ['event_not_found'],
  }),
} as const

/** Webhook endpoints and their deliveries (owner writes; every role reads). */
export const webhookRoutes = {
  resendEvent: defineOperation({
    operationId: 'resendEvent',
    audit: ['event.resent'],
    method: 'post',
    path: '/console/events/{id}/resend',
    access: 'key',
    tags: eventTags,
    summary: 'Deliver an event again to every enabled endpoint subscribed to it (owner)',
    params: eventIdParamsSchema,
    body: noFields,
    response: jsonResponse(200, resendEventResponseSchema, 'The new deliveries, attempted at once', {
      event_id: eventExample.id,
      deliveries: [
        { delivery_id: deliveryAttemptExample.delivery_id, webhook_id: webhookExample.webhook_id },
      ],
    }),
    refusals: ['event_not_found'],
  }),

  createWebhook: defineOperation({
    operationId: 'createWebhook',
    secretFields: ['secret'],
    audit: ['webhook.created'],
    method: 'post',
    path: '/console/webhooks',
    access: 'key',
    tags: eventTags,
    summary: 'Add a webhook endpoint (owner); its signing secret is shown once',
    description: `Events of the types in \`events\` (a type, \`<resource>.*\` or \`*\`) are POSTed to \`url\`, signed as the Standard Webhooks specification says (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature: v1,<base64 HMAC-SHA256>\` keyed with the secret), retried with backoff for 3 days. The URL must be https and its host must not be (or resolve to) a loopback, private, link-local, unique-local or metadata address; loopback http is allowed when the server runs with \`--allow-http-webhooks\` (as \`rwa sandbox\` does). An organization has at most ${MAX_ENABLED_WEBHOOKS} enabled endpoints.`,
    body: jsonBody(createWebhookRequestSchema, {
      url: webhookExample.url,
      events: webhookExample.events,
      description: 'Back office',
    }),
    response: jsonResponse(
      201,
      webhookWithSecretSchema,
      'The endpoint and its signing secret, shown only here',
      webhookWithSecretExample,
    ),
    refusals: ['webhook_url_refused', 'webhook_endpoint_limit'],
  }),
  listWebhooks: defineOperation({
    operationId: 'listWebhooks',
    method: 'get',
    path: '/console/webhooks',
    access: 'key',
    tags: eventTags,
    summary: "List the organization's webhook endpoints, newest first",
    query: listWebhooksQuerySchema,
    response: jsonResponse(200, listWebhooksResponseSchema, 'Endpoints, newest first', {
      webhooks: [webhookExample],
      total: 1,
      next_cursor: null,
    }),
  }),
  getWebhook: defineOperation({
    operationId: 'getWebhook',
    method: 'get',
    path: '/console/webhooks/{id}',
    access: 'key',
    tags: eventTags,
    summary: 'Get a webhook endpoint',
    params: webhookIdParamsSchema,
    response: jsonResponse(200, webhookEndpointSchema, 'The endpoint', webhookExample),
    refusals: ['webhook_not_found'],
  }),
  deleteWebhook: defineOperation({
    operationId: 'deleteWebhook',
    audit: ['webhook.deleted'],
    method: 'delete',
    path: '/console/webhooks/{id}',
    access: 'key',
    tags: eventTags,
    summary: 'Delete a webhook endpoint and its pending deliveries (owner)',
    params: webhookIdParamsSchema,
    response: jsonResponse(200, deleteWebhookResponseSchema, 'Deleted', {
      status: 'deleted',
      webhook_id: webhookExample.webhook_id,
    }),
    refusals: ['webhook_not_found'],
  }),
  rotateWebhookSecret: defineOperation({
    operationId: 'rotateWebhookSecret',
    secretFields: ['secret'],
    audit: ['webhook.secret_rotated'],
    method: 'post',
    path: '/console/webhooks/{id}/rotate-secret',
    access: 'key',
    tags: eventTags,
    summary: 'Give a webhook endpoint a new signing secret, shown once (owner)',
    description: 'Deliveries from now on are signed with the new secret only.',
    params: webhookIdParamsSchema,
    body: noFields,
    response: jsonResponse(
      200,
      webhookWithSecretSchema,
      'The endpoint and its new signing secret, shown only here',
      webhookWithSecretExample,
    ),
    refusals: ['webhook_not_found'],
  }),
  listWebhookDeliveries: defineOperation({
    operationId: 'listWebhookDeliveries',
    method: 'get',
    path: '/console/webhooks/{id}/deliveries',
    access: 'key',
    tags: eventTags,
    summary: 'List the attempts at delivering events to an endpoint, newest first',
    params: webhookIdParamsSchema,
    query: listDeliveriesQuerySchema,
    response: jsonResponse(200, listDeliveriesResponseSchema, 'Attempts, newest first', {
      deliveries: [deliveryAttemptExample],
      total: 1,
      next_cursor: null,
    }),
    refusals: ['webhook_not_found'],
  }),
  retryWebhookDelivery: defineOperation({
    operationId: 'retryWebhookDelivery',
    audit: ['webhook.delivery_retried'],
    method: 'post',
    path: '/console/webhooks/{id}/deliveries/{delivery_id}/retry',
    access: 'key',
    tags: eventTags,
    summary: 'Attempt a delivery again now (owner); a disabled endpoint is enabled again',
    params: deliveryParamsSchema,
    body: noFields,
    response: jsonResponse(200, retryDeliveryResponseSchema, 'Scheduled for now', {
      delivery_id: deliveryAttemptExample.delivery_id,
      webhook_id: webhookExample.webhook_id,
      event_id: eventExample.id,
      status: 'scheduled',
      next_attempt_at: deliveryAttemptExample.at,
    }),
    refusals: ['webhook_not_found', 'delivery_not_found', 'webhook_endpoint_limit'],
  }),
} as const
