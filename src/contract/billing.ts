import { z } from 'zod'
import { dateSchema, orgIdSchema, prefixedId, timestampSchema } from './common.js'
import { DEFAULT_USAGE_DAYS, limitsSchema, tierSchema } from './limits.js'
import { roleSchema, rolesSchema } from './roles.js'

const label = z.string().trim().min(1).max(100)
const providerRef = z.string().min(1).max(255)

/** The raw API key: `rwa_live_` then 43 base64url characters (32 random bytes). */
export const API_KEY_PATTERN = /^rwa_live_[A-Za-z0-9_-]{43}$/
export const apiKeySecretSchema = z
  .string()
  .regex(API_KEY_PATTERN, 'expected rwa_live_ followed by 43 characters')

export const keyIdSchema = prefixedId('key')

// ── Create key ──────────────────────────────────────────────────────────────
export const createKeyRequestSchema = z.strictObject({
  org_id: orgIdSchema
    .optional()
    .describe("Owning organization; defaults to the caller's own (the admin key must name it)"),
  name: label.describe('Label of the key'),
  start_trial: z
    .boolean()
    .default(false)
    .describe("Start the organization's 14-day trial if it has none yet"),
  roles: rolesSchema
    .optional()
    .describe('Roles of the key (default `["owner"]`); never more than the caller has'),
  expires_at: timestampSchema
    .optional()
    .describe('When the key stops working (401 `key_expired` after it); a future instant. Absent: never'),
})

// ── List and revoke keys ────────────────────────────────────────────────────
export const listKeysQuerySchema = z.strictObject({
  org_id: orgIdSchema.optional().describe("Organization whose keys to list; defaults to the caller's own"),
})

export const apiKeyRecordSchema = z.object({
  key_id: keyIdSchema,
  key_prefix: z.string(),
  org_id: orgIdSchema,
  tier: tierSchema,
  name: z.string(),
  created_at: timestampSchema,
  last_used_at: timestampSchema.nullable(),
  revoked: z.boolean(),
  revoked_reason: z
    .enum(['revoked', 'rerolled'])
    .nullable()
    .describe('Why the key no longer works: revoked, or rerolled and its overlap ended; null while it works'),
  trial_ends_at: timestampSchema.nullable(),
  roles: z.array(roleSchema),
  expires_at: timestampSchema.nullable(),
})

/** The creation response: the key record (no use or revocation yet) plus the raw key, shown only here. */
export const createKeyResponseSchema = apiKeyRecordSchema
  .omit({ last_used_at: true, revoked: true, revoked_reason: true })
  .extend({
    api_key: apiKeySecretSchema
      .nullable()
      .describe(
        'The raw key. Shown only in this response: a replay of it (the same `Idempotency-Key`) answers `null`, since the raw key is never stored',
      ),
    warning: z.string(),
  })

export const listKeysResponseSchema = z.object({
  keys: z.array(apiKeyRecordSchema),
  total: z.number().int().nonnegative(),
})

export const keyIdParamsSchema = z.object({ key_id: keyIdSchema })

export const revokeKeyResponseSchema = z.object({
  status: z.literal('revoked'),
  key_id: keyIdSchema,
})

/** The longest overlap of a reroll: 30 days. */
export const MAX_REROLL_OVERLAP_SECONDS = 2_592_000

export const rerollKeyRequestSchema = z.strictObject({
  overlap_seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_REROLL_OVERLAP_SECONDS)
    .optional()
    .describe('How long the old key keeps working, 0–2592000 s (30 days); absent or 0: it stops now'),
})

/** A reroll answers the new key, as a creation does, and when the old one stops working. */
export const rerollKeyResponseSchema = createKeyResponseSchema.extend({
  previous_key_id: keyIdSchema.describe('The rerolled key'),
  previous_key_revoked_at: timestampSchema.describe(
    'When the rerolled key stops working (then it reads `revoked_reason: "rerolled"`)',
  ),
})

/** The calling key, as it sees itself (`rwa whoami`). */
export const keySelfResponseSchema = z.object({
  key_id: keyIdSchema,
  key_prefix: z.string(),
  name: z.string(),
  org_id: orgIdSchema,
  admin: z.boolean().describe('Whether this is an admin key (acts on every organization)'),
  roles: z.array(roleSchema),
  tier: tierSchema,
  limits: limitsSchema,
  trial_ends_at: timestampSchema.nullable(),
  expires_at: timestampSchema.nullable(),
})

// ── Subscription ────────────────────────────────────────────────────────────
export const orgIdParamsSchema = z.object({ org_id: orgIdSchema })

export const subscriptionStatusSchema = z.enum([
  'active',
  'trialing',
  'past_due',
  'canceled',
  'unpaid',
  'incomplete',
])

export const paymentSubscriptionSchema = z.object({
  payment_subscription_id: z.string().nullable(),
  payment_customer_id: z.string().nullable(),
  payment_price_id: z.string().nullable(),
  current_period_start: dateSchema.nullable(),
  current_period_end: dateSchema.nullable(),
  cancel_at_period_end: z.boolean(),
})

export const subscriptionResponseSchema = z.object({
  org_id: orgIdSchema,
  tier: tierSchema,
  status: subscriptionStatusSchema,
  limits: limitsSchema.describe('The limits in force now (Pro limits during an active trial)'),
  trial_ends_at: timestampSchema.nullable(),
  subscription: paymentSubscriptionSchema.nullable(),
})

export const updateSubscriptionRequestSchema = z.strictObject({
  org_id: orgIdSchema,
  tier: tierSchema,
  payment_subscription_id: providerRef.optional(),
  payment_customer_id: providerRef.optional(),
  payment_price_id: providerRef.optional(),
})

export const updateSubscriptionResponseSchema = z.object({
  status: z.literal('updated'),
  org_id: orgIdSchema,
  tier: tierSchema,
  limits: limitsSchema,
})

// ── Usage ───────────────────────────────────────────────────────────────────
export const usageQuerySchema = z.strictObject({
  days: z.coerce.number().int().min(1).max(365).default(DEFAULT_USAGE_DAYS).describe('Window in days, 1–365'),
})

export const dailyUsageSchema = z.object({
  date: dateSchema,
  request_count: z.number().int().nonnegative(),
  dids_created: z.number().int().nonnegative(),
  skills_registered: z.number().int().nonnegative(),
})

export const usageResponseSchema = z.object({
  org_id: orgIdSchema,
  tier: tierSchema,
  limits: limitsSchema,
  trial_ends_at: timestampSchema.nullable(),
  totals: z.object({
    total_requests: z.number().int().nonnegative(),
    total_dids_created: z.number().int().nonnegative(),
    total_skills_registered: z.number().int().nonnegative(),
  }),
  daily_usage: z.array(dailyUsageSchema).describe('One row per UTC day of the window, oldest first'),
})

// ── Pricing and stats ───────────────────────────────────────────────────────
export const pricingTierSchema = z.object({
  name: z.string(),
  price: z.string(),
  price_monthly: z.number().nullable(),
  description: z.string(),
  limits: limitsSchema,
})

export const pricingResponseSchema = z.object({
  free_trial_days: z.number().int(),
  tiers: z.object({ free: pricingTierSchema, pro: pricingTierSchema, enterprise: pricingTierSchema }),
})

export const statsResponseSchema = z.object({
  total_keys: z.number().int().nonnegative(),
  active_keys: z.number().int().nonnegative(),
  by_tier: z.object({
    free: z.number().int().nonnegative(),
    pro: z.number().int().nonnegative(),
    enterprise: z.number().int().nonnegative(),
  }),
})

// ── Payment-provider webhook ────────────────────────────────────────────────
/**
 * The envelope of a Stripe event as the webhook reads it (the route reads the raw body: the signature
 * covers its exact bytes). Stripe's other event fields are ignored; `data.object` is read per type.
 */
export const stripeEventSchema = z.object({
  id: z.string().min(1).max(255),
  object: z.literal('event'),
  type: z.string().min(1).max(255),
  created: z.number().int().nonnegative(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
})

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

export type CreateKeyRequest = z.infer<typeof createKeyRequestSchema>
export type CreateKeyResponse = z.infer<typeof createKeyResponseSchema>
export type ApiKeyRecord = z.infer<typeof apiKeyRecordSchema>
export type ListKeysResponse = z.infer<typeof listKeysResponseSchema>
export type RevokeKeyResponse = z.infer<typeof revokeKeyResponseSchema>
export type RerollKeyRequest = z.infer<typeof rerollKeyRequestSchema>
export type RerollKeyResponse = z.infer<typeof rerollKeyResponseSchema>
export type KeySelfResponse = z.infer<typeof keySelfResponseSchema>
export type SubscriptionStatus = z.infer<typeof subscriptionStatusSchema>
export type SubscriptionResponse = z.infer<typeof subscriptionResponseSchema>
export type UpdateSubscriptionRequest = z.infer<typeof updateSubscriptionRequestSchema>
export type UpdateSubscriptionResponse = z.infer<typeof updateSubscriptionResponseSchema>
export type UsageResponse = z.infer<typeof usageResponseSchema>
export type PricingResponse = z.infer<typeof pricingResponseSchema>
export type StatsResponse = z.infer<typeof statsResponseSchema>
export type WebhookAck = z.infer<typeof webhookAckSchema>
