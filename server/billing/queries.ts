import type { Transaction } from 'kysely'
import { isoTimestamp } from '../clock.js'
import type { AppContext } from '../context.js'
import type { Db } from '../db/database.js'
import type { Database, SubscriptionsTable } from '../db/schema.js'
import type { ProviderSubscription } from '../payments/provider.js'

type Executor = Db | Transaction<Database>

export async function requestCountOn(db: Executor, orgId: string, date: string): Promise<number> {
  const row = await db
    .selectFrom('usage_daily')
    .select('request_count')
    .where('org_id', '=', orgId)
    .where('date', '=', date)
    .executeTakeFirst()
  return row?.request_count ?? 0
}

export async function findOrganization(db: Executor, orgId: string) {
  return db.selectFrom('organizations').selectAll().where('org_id', '=', orgId).executeTakeFirst()
}

/** Creates the organization if it does not exist yet. */
export async function ensureOrganization(db: Executor, orgId: string, now: number): Promise<void> {
  await db
    .insertInto('organizations')
    .values({ org_id: orgId, created_at: isoTimestamp(now), trial_ends_at: null, trial_checked_at: null })
    .onConflict((oc) => oc.column('org_id').doNothing())
    .execute()
}

export async function findSubscription(db: Executor, orgId: string) {
  return db.selectFrom('subscriptions').selectAll().where('org_id', '=', orgId).executeTakeFirst()
}

export type SubscriptionValues = Omit<SubscriptionsTable, 'org_id' | 'updated_at'>

export async function upsertSubscription(
  db: Executor,
  orgId: string,
  values: SubscriptionValues,
  now: number,
) {
  const row = { org_id: orgId, ...values, updated_at: isoTimestamp(now) }
  await db
    .insertInto('subscriptions')
    .values(row)
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ ...values, updated_at: row.updated_at }))
    .execute()
}

/**
 * Records that the payment provider was asked about an organization whose trial ended, and stores the
 * active subscription it reported, when it is one the local database does not hold yet.
 */
export async function recordTrialCheck(
  ctx: AppContext,
  orgId: string,
  now: number,
  active: ProviderSubscription | null,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (active && ctx.payments.name !== 'local') {
      await upsertSubscription(
        trx,
        orgId,
        {
          tier: active.tier,
          status: active.status,
          provider: ctx.payments.name,
          payment_subscription_id: active.payment_subscription_id,
          payment_customer_id: active.payment_customer_id,
          payment_price_id: active.payment_price_id,
          current_period_start: active.current_period_start,
          current_period_end: active.current_period_end,
          cancel_at_period_end: active.cancel_at_period_end ? 1 : 0,
          provider_updated_at: isoTimestamp(now),
        },
        now,
      )
    }
    await trx
      .updateTable('organizations')
      .set({ trial_checked_at: isoTimestamp(now) })
      .where('org_id', '=', orgId)
      .execute()
  })
}

export async function listKeyRows(db: Executor, orgId: string) {
  return db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).orderBy('key_id', 'desc').execute()
}

export async function findKeyRow(db: Executor, keyId: string) {
  return db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst()
}

export async function countActiveKeys(db: Executor, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function usageRows(db: Executor, orgId: string, fromDate: string, toDate: string) {
  return db
    .selectFrom('usage_daily')
    .select(['date', 'request_count', 'dids_created', 'skills_registered'])
    .where('org_id', '=', orgId)
    .where('date', '>=', fromDate)
    .where('date', '<=', toDate)
    .execute()
}

/** Every key with its organization's subscription, for the billing overview. */
export async function keysWithSubscription(db: Executor) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('organizations as o', 'o.org_id', 'k.org_id')
    .leftJoin('subscriptions as s', 's.org_id', 'k.org_id')
    .select(['k.revoked_at', 'o.trial_ends_at', 's.tier', 's.status'])
    .execute()
}
