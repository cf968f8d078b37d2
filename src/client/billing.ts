import type { z } from 'zod'
import {
  type createKeyRequestSchema,
  createKeyResponseSchema,
  listKeysResponseSchema,
  pricingResponseSchema,
  revokeKeyResponseSchema,
  statsResponseSchema,
  subscriptionResponseSchema,
  type UpdateSubscriptionRequest,
  updateSubscriptionResponseSchema,
  usageResponseSchema,
} from '../contract/billing.js'
import type { HttpClient } from './http.js'

const seg = encodeURIComponent

/** The 8 billing endpoints under `/console/billing/`. */
export class BillingClient {
  constructor(private readonly http: HttpClient) {}

  /** `POST /console/billing/keys`: the response carries the raw key, once. */
  createKey(body: z.input<typeof createKeyRequestSchema>) {
    return this.http.call({
      method: 'POST',
      path: '/console/billing/keys',
      body,
      schema: createKeyResponseSchema,
    })
  }

  /** `GET /console/billing/keys?org_id=`: masked keys of an organization (the caller's own by default). */
  listKeys(orgId?: string) {
    return this.http.call({
      method: 'GET',
      path: '/console/billing/keys',
      query: { org_id: orgId },
      schema: listKeysResponseSchema,
    })
  }

  /** `DELETE /console/billing/keys/{key_id}`: permanent. */
  revokeKey(keyId: string) {
    return this.http.call({
      method: 'DELETE',
      path: `/console/billing/keys/${seg(keyId)}`,
      schema: revokeKeyResponseSchema,
    })
  }

  getSubscription(orgId: string) {
    return this.http.call({
      method: 'GET',
      path: `/console/billing/subscription/${seg(orgId)}`,
      schema: subscriptionResponseSchema,
    })
  }

  /** Admin only. */
  updateSubscription(body: UpdateSubscriptionRequest) {
    return this.http.call({
      method: 'POST',
      path: '/console/billing/subscription',
      body,
      schema: updateSubscriptionResponseSchema,
    })
  }

  getUsage(orgId: string, days?: number) {
    return this.http.call({
      method: 'GET',
      path: `/console/billing/usage/${seg(orgId)}`,
      query: { days },
      schema: usageResponseSchema,
    })
  }

  /** Public: needs no key. */
  getPricing() {
    return this.http.call({ method: 'GET', path: '/console/billing/pricing', schema: pricingResponseSchema })
  }

  /** Admin only. */
  getStats() {
    return this.http.call({ method: 'GET', path: '/console/billing/stats', schema: statsResponseSchema })
  }
}
