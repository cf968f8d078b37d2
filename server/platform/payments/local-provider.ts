import type { Tier } from '../../../src/contract/limits.js'
import type { Db } from '../db/database.js'
import { findSubscription } from '../organizations/queries.js'
import { type PaymentProvider, type ProviderSubscription, paymentDetailsOf } from './provider.js'

/**
 * The embedded default: the subscription is whatever `POST /console/billing/subscription` recorded,
 * so the answer comes from the local database. It sends no webhooks.
 */
export class LocalPaymentProvider implements PaymentProvider {
  readonly name = 'local'
  readonly webhook = null

  constructor(private readonly db: Db) {}

  async activeSubscription(orgId: string): Promise<ProviderSubscription | null> {
    const row = await findSubscription(this.db, orgId)
    if (row?.status !== 'active' || row.tier === 'free') return null
    return { tier: row.tier as Tier, status: row.status, ...paymentDetailsOf(row) }
  }
}
