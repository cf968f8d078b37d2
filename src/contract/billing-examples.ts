import type {
  ApiKeyRecord,
  CreateKeyRequest,
  CreateKeyResponse,
  ListKeysResponse,
  KeySelfResponse,
  RerollKeyRequest,
  RerollKeyResponse,
  RevokeKeyResponse,
  StatsResponse,
  SubscriptionResponse,
  UpdateSubscriptionRequest,
  UpdateSubscriptionResponse,
  UsageResponse,
  WebhookAck,
} from './billing.js'
import { TIER_LIMITS } from './limits.js'

/*
 * One worked example of every billing request body and main response, as the OpenAPI document and the
 * reference page at /docs show them (the governance ones are in ./examples.ts). Typed by the contract,
 * and checked against its schemas by Redocly's lint of the served document.
 */

/** The moment of the worked examples. */
export const AT = '2026-11-22T10:15:00.000Z'
export const LATER = '2026-11-22T10:20:00.000Z'
const TRIAL_ENDS = '2026-12-06T10:15:00.000Z'
/** The key of organization `acme` that acts in the examples. */
export const KEY_ID = 'key_01M80QDRFAQSS9ZK6YPFRFRQA8'

// ── Billing ─────────────────────────────────────────────────────────────────

/** The examples' CI key: it may request transfers, and stops working tonight. */
const TONIGHT = '2026-11-22T23:59:59.000Z'

export const createKeyRequestExample: CreateKeyRequest = {
  org_id: 'acme',
  name: 'ci',
  start_trial: true,
  roles: ['transfers'],
  expires_at: TONIGHT,
}

/** The key as a listing shows it: masked, with its use and revocation. */
const keyRecordExample: ApiKeyRecord = {
  key_id: KEY_ID,
  key_prefix: 'rwa_live_j39...',
  org_id: 'acme',
  tier: 'free',
  name: 'ci',
  created_at: AT,
  last_used_at: LATER,
  revoked: false,
  revoked_reason: null,
  trial_ends_at: TRIAL_ENDS,
  roles: ['transfers'],
  expires_at: TONIGHT,
}

export const createKeyResponseExample: CreateKeyResponse = {
  ...(({ last_used_at: _, revoked: __, revoked_reason: ___, ...created }) => created)(keyRecordExample),
  api_key: 'rwa_live_j39R8cYfohUf4z_PNVzFfULZsurLzWGtmQRnsWlSDgk',
  warning: 'Store this API key now: it is shown only once and cannot be retrieved again.',
}

export const listKeysResponseExample: ListKeysResponse = { keys: [keyRecordExample], total: 1 }

export const revokeKeyResponseExample: RevokeKeyResponse = { status: 'revoked', key_id: KEY_ID }

export const rerollKeyRequestExample: RerollKeyRequest = { overlap_seconds: 3600 }

export const rerollKeyResponseExample: RerollKeyResponse = {
  ...createKeyResponseExample,
  key_id: 'key_01M80R2ZQ4W3C5EVGB1XNE7T0H',
  key_prefix: 'rwa_live_Q7c...',
  api_key: 'rwa_live_Q7cN0kq3xUe1Zl5mJ8rT2vYb6hW9sD4fG1aK7pL3oE0',
  created_at: LATER,
  previous_key_id: KEY_ID,
  previous_key_revoked_at: '2026-11-22T11:20:00.000Z',
}

export const keySelfResponseExample: KeySelfResponse = {
  key_id: KEY_ID,
  key_prefix: 'rwa_live_j39...',
  name: 'ci',
  org_id: 'acme',
  admin: false,
  roles: ['transfers'],
  tier: 'free',
  limits: TIER_LIMITS.pro,
  trial_ends_at: TRIAL_ENDS,
  expires_at: TONIGHT,
}

export const subscriptionResponseExample: SubscriptionResponse = {
  org_id: 'acme',
  tier: 'pro',
  status: 'active',
  limits: TIER_LIMITS.pro,
  trial_ends_at: TRIAL_ENDS,
  subscription: {
    payment_subscription_id: 'sub_1QxYzA2eZvKYlo2C',
    payment_customer_id: 'cus_R4nD0mCu5t0m3r',
    payment_price_id: 'price_1QxPro99Monthly',
    current_period_start: '2026-11-22',
    current_period_end: '2026-12-22',
    cancel_at_period_end: false,
  },
}

export const updateSubscriptionRequestExample: UpdateSubscriptionRequest = {
  org_id: 'acme',
  tier: 'pro',
  payment_subscription_id: 'sub_1QxYzA2eZvKYlo2C',
  payment_customer_id: 'cus_R4nD0mCu5t0m3r',
  payment_price_id: 'price_1QxPro99Monthly',
}

export const updateSubscriptionResponseExample: UpdateSubscriptionResponse = {
  status: 'updated',
  org_id: 'acme',
  tier: 'pro',
  limits: TIER_LIMITS.pro,
}

export const usageResponseExample: UsageResponse = {
  org_id: 'acme',
  tier: 'free',
  limits: TIER_LIMITS.pro,
  trial_ends_at: TRIAL_ENDS,
  totals: { total_requests: 13, total_dids_created: 1, total_skills_registered: 0 },
  daily_usage: [
    { date: '2026-11-20', request_count: 0, dids_created: 0, skills_registered: 0 },
    { date: '2026-11-21', request_count: 0, dids_created: 0, skills_registered: 0 },
    { date: '2026-11-22', request_count: 13, dids_created: 1, skills_registered: 0 },
  ],
}

export const statsResponseExample: StatsResponse = {
  total_keys: 12,
  active_keys: 10,
  by_tier: { free: 4, pro: 5, enterprise: 1 },
}

/** A Stripe event as its webhook delivers it (abridged: Stripe sends the whole subscription object). */
export const stripeEventExample = {
  id: 'evt_1QxYzB2eZvKYlo2Cq8J3',
  object: 'event',
  type: 'customer.subscription.created',
  created: 1795342500,
  api_version: '2025-03-31.basil',
  data: {
    object: {
      id: 'sub_1QxYzA2eZvKYlo2C',
      object: 'subscription',
      status: 'active',
      customer: 'cus_R4nD0mCu5t0m3r',
      metadata: { org_id: 'acme' },
      cancel_at_period_end: false,
      items: {
        data: [
          {
            price: { id: 'price_1QxPro99Monthly' },
            current_period_start: 1795342500,
            current_period_end: 1797934500,
          },
        ],
      },
    },
  },
}

export const webhookAckExample: WebhookAck = {
  received: true,
  event_id: 'evt_1QxYzB2eZvKYlo2Cq8J3',
  outcome: 'applied',
  org_id: 'acme',
  detail: null,
}
