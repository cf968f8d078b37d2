import Stripe from 'stripe'

/** Test configuration of the Stripe provider: fake keys in Stripe's formats, and the two price ids. */
export const STRIPE_SECRET_KEY = 'sk_test_rwa0000000000000000000000'
export const WEBHOOK_SECRET = 'whsec_rwatestsecret0000000000000000000'
export const PRICE_PRO = 'price_1RwaPro000000000000000'
export const PRICE_ENTERPRISE = 'price_1RwaEnterprise000000000'
export const PRICES = { pro: PRICE_PRO, enterprise: PRICE_ENTERPRISE }

let counter = 0
/** A Stripe-looking id with a prefix, unique within the test run. */
export const stripeId = (prefix: string): string =>
  `${prefix}_1Rwa${String(++counter).padStart(6, '0')}${Math.random().toString(36).slice(2, 10)}`

const DAY_S = 86_400

export interface SubscriptionFixture {
  id?: string
  customer?: string
  status?: string
  price?: string
  orgId?: string | null
  /** Unix seconds of the period start (and of creation). */
  start?: number
  cancelAtPeriodEnd?: boolean
  /** Put the period on the subscription (API versions before 2025-03-31) instead of on its item. */
  legacyPeriod?: boolean
}

/** A subscription object as Stripe's API (version 2026-10-28) returns it and sends it in events. */
export function subscriptionObject(f: SubscriptionFixture = {}): Record<string, any> {
  const id = f.id ?? stripeId('sub')
  const start = f.start ?? Math.floor(Date.UTC(2026, 0, 15) / 1000)
  const end = start + 31 * DAY_S
  const price = f.price ?? PRICE_PRO
  const period = { current_period_start: start, current_period_end: end }
  const status = f.status ?? 'active'
  return {
    id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: start,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: null, type: 'classic' },
    billing_thresholds: null,
    cancel_at: f.cancelAtPeriodEnd ? end : null,
    cancel_at_period_end: f.cancelAtPeriodEnd ?? false,
    canceled_at: status === 'canceled' ? start + DAY_S : null,
    cancellation_details: { comment: null, feedback: null, reason: null },
    collection_method: 'charge_automatically',
    created: start,
    currency: 'usd',
    customer: f.customer ?? stripeId('cus'),
    customer_account: null,
    days_until_due: null,
    default_payment_method: stripeId('pm'),
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    ended_at: status === 'canceled' ? start + DAY_S : null,
    invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
    items: {
      object: 'list',
      data: [
        {
          id: stripeId('si'),
          object: 'subscription_item',
          billing_thresholds: null,
          created: start,
          ...(f.legacyPeriod ? {} : period),
          discounts: [],
          metadata: {},
          plan: {
            id: price,
            object: 'plan',
            active: true,
            amount: 9900,
            currency: 'usd',
            interval: 'month',
            interval_count: 1,
            product: 'prod_RwaPro',
            usage_type: 'licensed',
          },
          price: {
            id: price,
            object: 'price',
            active: true,
            billing_scheme: 'per_unit',
            created: start - 30 * DAY_S,
            currency: 'usd',
            livemode: false,
            lookup_key: null,
            metadata: {},
            nickname: null,
            product: 'prod_RwaPro',
            recurring: { interval: 'month', interval_count: 1, meter: null, usage_type: 'licensed' },
            tax_behavior: 'unspecified',
            type: 'recurring',
            unit_amount: 9900,
            unit_amount_decimal: '9900',
          },
          quantity: 1,
          subscription: id,
          tax_rates: [],
        },
      ],
      has_more: false,
      total_count: 1,
      url: `/v1/subscription_items?subscription=${id}`,
    },
    latest_invoice: stripeId('in'),
    livemode: false,
    metadata: f.orgId === null ? {} : { org_id: f.orgId ?? 'acme' },
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: {
      payment_method_options: null,
      payment_method_types: null,
      save_default_payment_method: 'off',
    },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: start,
    status,
    test_clock: null,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
    trial_start: null,
    ...(f.legacyPeriod ? period : {}),
  }
}

/** A customer object, linked to an organization by `metadata.org_id` when `orgId` is given. */
export function customerObject(id: string, orgId?: string): Record<string, any> {
  return {
    id,
    object: 'customer',
    address: null,
    balance: 0,
    created: Math.floor(Date.UTC(2026, 0, 1) / 1000),
    currency: 'usd',
    default_source: null,
    delinquent: false,
    description: null,
    email: 'billing@example.com',
    invoice_prefix: 'RWA0001',
    invoice_settings: {
      custom_fields: null,
      default_payment_method: null,
      footer: null,
      rendering_options: null,
    },
    livemode: false,
    metadata: orgId ? { org_id: orgId } : {},
    name: 'Example Corp',
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  }
}

/** A Checkout Session completed in subscription mode. */
export function checkoutSessionObject(
  subscriptionId: string,
  customerId: string,
  orgId: string,
): Record<string, any> {
  return {
    id: stripeId('cs_test'),
    object: 'checkout.session',
    amount_subtotal: 9900,
    amount_total: 9900,
    client_reference_id: orgId,
    created: Math.floor(Date.UTC(2026, 0, 15) / 1000),
    currency: 'usd',
    customer: customerId,
    customer_details: { email: 'billing@example.com', name: 'Example Corp' },
    livemode: false,
    metadata: {},
    mode: 'subscription',
    payment_status: 'paid',
    status: 'complete',
    subscription: subscriptionId,
    success_url: 'https://example.com/success',
    url: null,
  }
}

/** An invoice of a subscription, in the current API shape (`parent.subscription_details`). */
export function invoiceObject(
  subscriptionId: string,
  customerId: string,
  status: 'paid' | 'open',
): Record<string, any> {
  return {
    id: stripeId('in'),
    object: 'invoice',
    amount_due: 9900,
    amount_paid: status === 'paid' ? 9900 : 0,
    amount_remaining: status === 'paid' ? 0 : 9900,
    attempt_count: 1,
    attempted: true,
    billing_reason: 'subscription_cycle',
    collection_method: 'charge_automatically',
    created: Math.floor(Date.UTC(2026, 1, 15) / 1000),
    currency: 'usd',
    customer: customerId,
    livemode: false,
    metadata: {},
    parent: {
      quote_details: null,
      subscription_details: { metadata: {}, subscription: subscriptionId },
      type: 'subscription_details',
    },
    status,
    total: 9900,
  }
}

/** An event envelope as Stripe sends it to a webhook endpoint. */
export function eventObject(
  type: string,
  object: Record<string, any>,
  createdSeconds: number,
  id = stripeId('evt'),
): Record<string, any> {
  return {
    id,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: createdSeconds,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  }
}

/** The `Stripe-Signature` header for a payload, made by the `stripe` package's own test helper. */
export function signedHeader(payload: string, timestampSeconds: number, secret = WEBHOOK_SECRET): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: timestampSeconds })
}
