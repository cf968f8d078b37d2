import { z } from 'zod'
import { orgIdSchema, pageFields, pageQuery, prefixedId, timestampSchema } from './common.js'

/*
 * Events and webhook endpoints (docs/webhooks.md). An event says what happened to one record of an
 * organization, with the record as the API answers it; it is written in the transaction of the change
 * (an outbox) and delivered to the organization's webhook endpoints, signed as the Standard Webhooks
 * specification says.
 */

/**
 * Every event type. The types of changes a write makes are the audit actions of the same
 * name (docs/accountability.md, "What is recorded"); the `*.expiring` and `trial.ending`
 * events come from the server's own job, `limit.reached` from a 429 of the per-minute or
 * per-day limit (server/pipeline/events/limit-reached.ts).
 */
export const EVENT_TYPES = [
  'transfer.approved',
  'transfer.rejected',
  'transfer.forced',
  'credential.issued',
  'credential.revoked',
  'attestation.submitted',
  'attestation.revoked',
  'attestation.expiring',
  'token.created',
  'token.paused',
  'token.unpaused',
  'token.recovered',
  'token.rules_updated',
  'holder.frozen',
  'holder.unfrozen',
  'jurisdiction.registered',
  'jurisdiction.updated',
  'jurisdiction.removed',
  'issuer.registered',
  'issuer.updated',
  'issuer.suspended',
  'issuer.removed',
  'issuer.keys_changed',
  'identity.created',
  'identity.updated',
  'identity.dids_changed',
  'trust.established',
  'trust.revoked',
  'key.created',
  'key.revoked',
  'key.rerolled',
  'key.expiring',
  'trial.ending',
  'subscription.updated',
  'limit.reached',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

export const eventTypeSchema = z.enum(EVENT_TYPES)

/** Whether an audit action (or a job's type) is an event type. */
export const isEventType = (type: string): type is EventType =>
  (EVENT_TYPES as readonly string[]).includes(type)

/**
 * What an endpoint subscribes to: an event type, `<resource>.*` for every type of a resource, or `*`
 * for every type.
 */
export const eventSelectorSchema = z
  .string()
  .max(64)
  .refine(
    (s) => s === '*' || isEventType(s) || EVENT_TYPES.some((t) => s === `${t.split('.')[0]}.*`),
    'expected an event type (e.g. transfer.approved), <resource>.* (e.g. transfer.*) or *',
  )

/** Whether an event of `type` matches an endpoint's selectors. */
export function selectsEvent(selectors: readonly string[], type: string): boolean {
  const resource = type.split('.')[0]
  return selectors.some((s) => s === '*' || s === type || s === `${resource}.*`)
}

export const eventSchema = z.object({
  id: prefixedId('evt'),
  type: eventTypeSchema,
  created_at: timestampSchema,
  org_id: orgIdSchema,
  data: z.object({
    object: z
      .unknown()
      .describe('The record the event is about, as the API answers it (never a raw key or secret)'),
  }),
})

export type Event = z.infer<typeof eventSchema>

export const eventIdParamsSchema = z.object({ id: prefixedId('evt') })

export const listEventsQuerySchema = z.strictObject({
  ...pageQuery('evt'),
  type: eventTypeSchema.optional().describe('Only events of this type'),
})

export const listEventsResponseSchema = z.object({ events: z.array(eventSchema), ...pageFields })

export type ListEventsQuery = z.infer<typeof listEventsQuerySchema>
export type ListEventsResponse = z.infer<typeof listEventsResponseSchema>

/** The selectors of an event stream: comma-separated types, `<resource>.*` or `*`. */
export const eventStreamQuerySchema = z.strictObject({
  events: z
    .string()
    .max(2000)
    .refine(
      (s) => s.split(',').every((part) => eventSelectorSchema.safeParse(part.trim()).success),
      'expected comma-separated event types (e.g. transfer.approved), <resource>.* (e.g. transfer.*) or *',
    )
    .optional()
    .describe('Comma-separated event selectors (types, `<resource>.*`, `*`); absent: every type'),
})

export type EventStreamQuery = z.infer<typeof eventStreamQuerySchema>

/** The selectors an event stream's `events` parameter names (every type when absent). */
export const streamSelectors = (events: string | undefined): string[] =>
  events === undefined ? ['*'] : events.split(',').map((part) => part.trim())

export const resendEventResponseSchema = z.object({
  event_id: prefixedId('evt'),
  deliveries: z
    .array(z.object({ delivery_id: prefixedId('dlv'), webhook_id: prefixedId('wh') }))
    .describe('One new delivery per enabled endpoint subscribed to the event'),
})

// ── Webhook endpoints ────────────────────────────────────────────────────────

/**
 * The most enabled endpoints an organization may have (409 `webhook_endpoint_limit` past it): with at
 * most 4 deliveries of an organization in flight at once, more endpoints only wait longer.
 */
export const MAX_ENABLED_WEBHOOKS = 16

/** A webhook signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks). */
export const webhookSecretSchema = z.string().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/)

/** Whether a URL names a user or a password (`https://user:pass@host/`). */
const hasUserinfo = (url: string): boolean => {
  const parsed = URL.parse(url)
  return parsed !== null && (parsed.username !== '' || parsed.password !== '')
}

export const webhookUrlSchema = z
  .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
  .max(2048)
  .refine(
    (url) => !hasUserinfo(url),
    'must not hold a user name or password (user:pass@): it would be shown and kept wherever the URL is; verify the signature instead, or put a token in the query or path, which only owner keys see',
  )
  .describe(
    'Where events are POSTed: https; http only to a loopback address when the server runs with --allow-http-webhooks. No user name or password; shown whole to owner keys only (others see the path past its first segment and the query values as `***`: `/services/***?token=***`)',
  )

export const webhookStatusSchema = z.enum(['enabled', 'disabled'])

export const webhookEndpointSchema = z.object({
  webhook_id: prefixedId('wh'),
  url: z
    .string()
    .describe(
      'Where events are POSTed; to any key but an owner the path past its first segment and the query values read `***`',
    ),
  events: z.array(z.string()).describe('The event types (or `<resource>.*`, `*`) it receives'),
  description: z.string().nullable(),
  status: webhookStatusSchema.describe(
    '`disabled` after 3 days of failed deliveries (or never retried since)',
  ),
  created_at: timestampSchema,
})

export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>

export const createWebhookRequestSchema = z.strictObject({
  url: webhookUrlSchema,
  events: z.array(eventSelectorSchema).min(1).max(64),
  description: z.string().max(500).optional(),
})

/** The endpoint with its signing secret, shown only when it is made (and by rotate-secret). */
export const webhookWithSecretSchema = webhookEndpointSchema.extend({
  secret: webhookSecretSchema
    .nullable()
    .describe(
      'The signing secret (`whsec_...`), shown only here; a replay of the request (the same `Idempotency-Key`) answers `null`',
    ),
})

export type WebhookWithSecret = z.infer<typeof webhookWithSecretSchema>

export const webhookIdParamsSchema = z.object({ id: prefixedId('wh') })

export const listWebhooksQuerySchema = z.strictObject({ ...pageQuery('wh') })

export const listWebhooksResponseSchema = z.object({
  webhooks: z.array(webhookEndpointSchema),
  ...pageFields,
})

export const deleteWebhookResponseSchema = z.object({
  status: z.literal('deleted'),
  webhook_id: prefixedId('wh'),
})

/** One attempt at delivering an event to an endpoint. */
export const deliveryAttemptSchema = z.object({
  delivery_id: prefixedId('dlv'),
  event_id: prefixedId('evt'),
  attempt: z.number().int().positive(),
  at: timestampSchema,
  status_code: z.number().int().nullable().describe("The endpoint's HTTP status; null when none came back"),
  error: z
    .string()
    .nullable()
    .describe('Why the attempt failed (timeout, refused address, status); null on success'),
  next_attempt_at: timestampSchema
    .nullable()
    .describe('When the delivery is tried again; null once delivered or given up'),
})

export const listDeliveriesQuerySchema = z.strictObject({ ...pageQuery('wha') })

export const listDeliveriesResponseSchema = z.object({
  deliveries: z.array(deliveryAttemptSchema),
  ...pageFields,
})

export const deliveryParamsSchema = z.object({ id: prefixedId('wh'), delivery_id: prefixedId('dlv') })

export const retryDeliveryResponseSchema = z.object({
  delivery_id: prefixedId('dlv'),
  webhook_id: prefixedId('wh'),
  event_id: prefixedId('evt'),
  status: z.literal('scheduled'),
  next_attempt_at: timestampSchema,
})

export type ListWebhooksResponse = z.infer<typeof listWebhooksResponseSchema>
export type ListDeliveriesResponse = z.infer<typeof listDeliveriesResponseSchema>
export type CreateWebhookRequest = z.infer<typeof createWebhookRequestSchema>

// ── Examples ─────────────────────────────────────────────────────────────────

export const eventExample: Event = {
  id: 'evt_01M8420DESXZV8X28W2ZQWTKA9',
  type: 'jurisdiction.updated',
  created_at: '2026-11-22T10:20:00.000Z',
  org_id: 'acme',
  data: {
    object: {
      jurisdiction_id: 'US',
      name: 'United States',
      transfer_requirements: ['kyc', 'aml'],
    },
  },
}

export const webhookExample: WebhookEndpoint = {
  webhook_id: 'wh_01M8420DESXZV8X28W2ZQWTKB0',
  url: 'https://hooks.example.com/rwa',
  events: ['transfer.*', 'attestation.expiring'],
  description: 'Back office',
  status: 'enabled',
  created_at: '2026-11-22T10:20:00.000Z',
}

export const webhookWithSecretExample: WebhookWithSecret = {
  ...webhookExample,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
}

export const deliveryAttemptExample = {
  delivery_id: 'dlv_01M8420DESXZV8X28W2ZQWTKC1',
  event_id: eventExample.id,
  attempt: 2,
  at: '2026-11-22T10:20:05.000Z',
  status_code: 503,
  error: 'the endpoint answered 503',
  next_attempt_at: '2026-11-22T10:20:35.000Z',
}
