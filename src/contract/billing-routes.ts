import {
  createKeyRequestSchema,
  createKeyResponseSchema,
  keyIdParamsSchema,
  keySelfResponseSchema,
  listKeysQuerySchema,
  listKeysResponseSchema,
  orgIdParamsSchema,
  pricingResponseSchema,
  rerollKeyRequestSchema,
  rerollKeyResponseSchema,
  revokeKeyResponseSchema,
  statsResponseSchema,
  stripeEventSchema,
  subscriptionResponseSchema,
  updateSubscriptionRequestSchema,
  updateSubscriptionResponseSchema,
  usageQuerySchema,
  usageResponseSchema,
  webhookAckSchema,
} from './billing.js'
import {
  createKeyRequestExample,
  createKeyResponseExample,
  keySelfResponseExample,
  listKeysResponseExample,
  rerollKeyRequestExample,
  rerollKeyResponseExample,
  revokeKeyResponseExample,
  statsResponseExample,
  stripeEventExample,
  subscriptionResponseExample,
  updateSubscriptionRequestExample,
  updateSubscriptionResponseExample,
  usageResponseExample,
  webhookAckExample,
} from './billing-examples.js'
import { defineOperation, jsonBody, jsonResponse, optionalJsonBody } from './operation.js'
import { PRICING } from './pricing.js'

/** The OpenAPI tag of billing operations. */
export const billingTags = ['billing'] as const

/** Billing (`/console/billing/`): pricing is public; everything else takes an API key. */
export const billingRoutes = {
  getPricing: defineOperation({
    operationId: 'getPricing',
    method: 'get',
    path: '/console/billing/pricing',
    access: 'public',
    tags: billingTags,
    summary: 'Get the pricing tiers (public)',
    response: jsonResponse(200, pricingResponseSchema, 'Pricing', PRICING),
  }),
  createKey: defineOperation({
    operationId: 'createKey',
    secretFields: ['api_key'],
    audit: ['key.created'],
    method: 'post',
    path: '/console/billing/keys',
    access: 'key',
    tags: billingTags,
    summary: 'Create an API key (owner)',
    description:
      'The first key of an organization creates it (another organization\'s key needs the admin key, which must name `org_id`); `start_trial` starts the organization\'s one 14-day trial. `roles` (default `["owner"]`) and `expires_at` limit what the key may do and for how long.',
    body: jsonBody(createKeyRequestSchema, createKeyRequestExample),
    response: jsonResponse(
      201,
      createKeyResponseSchema,
      'The new key; the raw key is shown only here',
      createKeyResponseExample,
    ),
    refusals: ['other_organization', 'org_id_required', 'expires_at_not_future'],
  }),
  listKeys: defineOperation({
    operationId: 'listKeys',
    method: 'get',
    path: '/console/billing/keys',
    access: 'key',
    tags: billingTags,
    summary: 'List the keys of an organization (masked)',
    query: listKeysQuerySchema,
    response: jsonResponse(200, listKeysResponseSchema, 'Keys, newest first', listKeysResponseExample),
    refusals: ['other_organization'],
  }),
  getKeySelf: defineOperation({
    operationId: 'getKeySelf',
    method: 'get',
    path: '/console/billing/keys/self',
    access: 'key',
    tags: billingTags,
    summary: 'Get the calling key: its organization, roles, plan and expiry (whoami)',
    response: jsonResponse(200, keySelfResponseSchema, 'The calling key', keySelfResponseExample),
  }),
  revokeKey: defineOperation({
    operationId: 'revokeKey',
    audit: ['key.revoked', 'approval.cancelled'],
    method: 'delete',
    path: '/console/billing/keys/{key_id}',
    access: 'key',
    tags: billingTags,
    summary: 'Revoke a key (permanent; owner)',
    description:
      "Approvals its principal requested and that are still pending read `cancelled` from then on (one `approval.cancelled` event each, in the revocation's write). A key rerolled already and still in its overlap ends the overlap only: the key that replaced it carries its principal and its requests on. The keys it replaced that still work inside their overlap are revoked with it.",
    params: keyIdParamsSchema,
    response: jsonResponse(200, revokeKeyResponseSchema, 'Revoked', revokeKeyResponseExample),
    refusals: ['key_not_found', 'key_already_revoked', 'last_admin_key'],
  }),
  rerollKey: defineOperation({
    operationId: 'rerollKey',
    secretFields: ['api_key'],
    audit: ['key.rerolled'],
    method: 'post',
    path: '/console/billing/keys/{key_id}/reroll',
    access: 'key',
    tags: billingTags,
    summary: 'Reroll a key: a new raw key with the same name, roles and expiry (owner)',
    description:
      'Answers the new raw key once. The old key keeps working for `overlap_seconds`, then reads `revoked: true, revoked_reason: "rerolled"`, so a deployment can switch keys without a failed request. The new key is the same principal as the old (four eyes: neither approves the other\'s requests, and the old key\'s pending requests wait on). The last active admin key is rerolled only with an overlap of at least 300 s (`last_admin_key` otherwise): a lost answer would leave no admin key.',
    params: keyIdParamsSchema,
    body: optionalJsonBody(rerollKeyRequestSchema, rerollKeyRequestExample),
    response: jsonResponse(
      201,
      rerollKeyResponseSchema,
      'The new key; the raw key is shown only here',
      rerollKeyResponseExample,
    ),
    refusals: [
      'key_not_found',
      'key_already_revoked',
      'key_already_rerolled',
      'key_already_expired',
      'last_admin_key',
    ],
  }),
  getSubscription: defineOperation({
    operationId: 'getSubscription',
    method: 'get',
    path: '/console/billing/subscription/{org_id}',
    access: 'key',
    tags: billingTags,
    summary: 'Get the subscription of an organization',
    description:
      'An organization without a subscription, or never named yet, gets the free-tier defaults and `subscription: null`.',
    params: orgIdParamsSchema,
    response: jsonResponse(200, subscriptionResponseSchema, 'The subscription', subscriptionResponseExample),
    refusals: ['other_organization'],
  }),
  updateSubscription: defineOperation({
    operationId: 'updateSubscription',
    audit: ['subscription.updated'],
    method: 'post',
    path: '/console/billing/subscription',
    access: 'admin',
    tags: billingTags,
    summary: 'Update the subscription tier of an organization (admin)',
    description:
      'Records the tier (and the payment details) of an organization, creating the organization if nothing named it before. The operator organization `admin` is not billed (422).',
    body: jsonBody(updateSubscriptionRequestSchema, updateSubscriptionRequestExample),
    response: jsonResponse(
      200,
      updateSubscriptionResponseSchema,
      'Updated',
      updateSubscriptionResponseExample,
    ),
    refusals: ['admin_not_billed'],
  }),
  getUsage: defineOperation({
    operationId: 'getUsage',
    method: 'get',
    path: '/console/billing/usage/{org_id}',
    access: 'key',
    tags: billingTags,
    summary: 'Get the usage of an organization',
    description: 'An organization that has never been named (no key, no subscription) has no usage: zeros.',
    params: orgIdParamsSchema,
    query: usageQuerySchema,
    response: jsonResponse(200, usageResponseSchema, 'Usage', usageResponseExample),
    refusals: ['other_organization'],
  }),
  getStats: defineOperation({
    operationId: 'getStats',
    method: 'get',
    path: '/console/billing/stats',
    access: 'admin',
    tags: billingTags,
    summary: 'Get the billing overview (admin)',
    response: jsonResponse(200, statsResponseSchema, 'Key statistics', statsResponseExample),
  }),
} as const

/** The payment provider's signed webhook: public, authenticated by its signature over the raw body. */
export const paymentProviderRoutes = {
  receiveStripeEvent: defineOperation({
    operationId: 'receiveStripeEvent',
    audit: ['subscription.updated'],
    method: 'post',
    path: '/console/billing/webhooks/stripe',
    access: 'public',
    tags: billingTags,
    summary: "Stripe's signed webhook (public; verified by Stripe-Signature)",
    description:
      'Receives Stripe events, verifies `Stripe-Signature` over the raw body with RWA_STRIPE_WEBHOOK_SECRET ' +
      '(300 s tolerance), and applies subscription changes, creating the organization named by `metadata.org_id` ' +
      'if nothing named it before. Enabled with RWA_PAYMENT_PROVIDER=stripe (404 otherwise).',
    headers: [
      {
        name: 'Stripe-Signature',
        required: true,
        description: "Stripe's signature of the raw body: `t=<unix seconds>,v1=<hex HMAC-SHA256>`",
        example: 't=1795342500,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
      },
    ],
    // The handler reads the raw body (the signature covers its exact bytes): the schema documents the
    // envelope, and Stripe's other fields are allowed.
    body: { schema: stripeEventSchema, example: stripeEventExample, required: true, raw: true },
    response: jsonResponse(
      200,
      webhookAckSchema,
      'Event received (applied, skipped, duplicate or ignored)',
      webhookAckExample,
    ),
    refusals: [
      'missing_signature',
      'signature_invalid',
      'payment_webhook_disabled',
      'payment_provider_unreachable',
    ],
  }),
} as const
