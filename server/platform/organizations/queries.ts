import { isoTimestamp } from '../clock.js'
import { compiledOnce } from '../db/compiled-query.js'
import { type Executor, withLock } from '../db/queries.js'
import type { SubscriptionsTable } from '../db/schema.js'

/*
 * Organizations and their subscriptions: the plan every other area reads (authentication, billing,
 * payments, bootstrap). An organization's row appears with whatever first names it.
 */

/** Creates the organization if it does not exist yet. */
export async function ensureOrganization(db: Executor, orgId: string, now: number): Promise<void> {
  await db
    .insertInto('organizations')
    .values({ org_id: orgId, created_at: isoTimestamp(now), trial_ends_at: null, trial_checked_at: null })
    .onConflict((oc) => oc.column('org_id').doNothing())
    .execute()
}

/**
 * Locks the organization's row until the transaction ends (PostgreSQL), serializing the decisions taken
 * per organization across instances: its quotas, its trial, its keys, its subscription.
 */
export async function lockOrganization(db: Executor, orgId: string): Promise<void> {
  await lockedOrganization(db, orgId)
}

/** Compiled once per dialect (compiledOnce): an issuance to a new DID and every quota check take it. */
const lockedOrganization = compiledOnce((db: Executor, orgId: string) =>
  withLock(db, db.selectFrom('organizations').select('org_id').where('org_id', '=', orgId), 'update'),
)

/** Starts the organization's one trial, ending at `endsAt`, unless it has started one before. */
export async function startTrialOnce(db: Executor, orgId: string, endsAt: string): Promise<void> {
  await db
    .updateTable('organizations')
    .set({ trial_ends_at: endsAt })
    .where('org_id', '=', orgId)
    .where('trial_ends_at', 'is', null)
    .execute()
}

/** Records when the payment provider was asked about an organization whose trial ended. */
export async function markTrialChecked(db: Executor, orgId: string, at: string): Promise<void> {
  await db.updateTable('organizations').set({ trial_checked_at: at }).where('org_id', '=', orgId).execute()
}

/** What decides an organization's entitlement: its trial and its subscription's tier and status. */
export function findOrganizationPlan(db: Executor, orgId: string) {
  return db
    .selectFrom('organizations as o')
    .leftJoin('subscriptions as s', 's.org_id', 'o.org_id')
    .select(['o.org_id', 'o.trial_ends_at', 'o.trial_checked_at', 's.tier', 's.status'])
    .where('o.org_id', '=', orgId)
    .executeTakeFirst()
}

export function findSubscription(db: Executor, orgId: string) {
  return db.selectFrom('subscriptions').selectAll().where('org_id', '=', orgId).executeTakeFirst()
}

/** The organization holding a payment provider's subscription, if any. */
export async function orgOfSubscription(
  db: Executor,
  provider: string,
  subscriptionId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('subscriptions')
    .select('org_id')
    .where('payment_subscription_id', '=', subscriptionId)
    .where('provider', '=', provider)
    .executeTakeFirst()
  return row?.org_id
}

/** The organization holding a payment provider's subscription or customer, if any. */
export async function orgOfPayment(
  db: Executor,
  provider: string,
  subscriptionId: string,
  customerId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('subscriptions')
    .select('org_id')
    .where((eb) =>
      eb.or([eb('payment_subscription_id', '=', subscriptionId), eb('payment_customer_id', '=', customerId)]),
    )
    .where('provider', '=', provider)
    .executeTakeFirst()
  return row?.org_id
}

export type SubscriptionValues = Omit<SubscriptionsTable, 'org_id' | 'updated_at'>

export async function upsertSubscription(
  db: Executor,
  orgId: string,
  values: SubscriptionValues,
  now: number,
): Promise<void> {
  const row = { org_id: orgId, ...values, updated_at: isoTimestamp(now) }
  await db
    .insertInto('subscriptions')
    .values(row)
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ ...values, updated_at: row.updated_at }))
    .execute()
}
