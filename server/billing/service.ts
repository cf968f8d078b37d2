import type {
  ApiKeyRecord,
  CreateKeyRequest,
  CreateKeyResponse,
  ListKeysResponse,
  RevokeKeyResponse,
  StatsResponse,
  SubscriptionResponse,
  UpdateSubscriptionRequest,
  UpdateSubscriptionResponse,
  UsageResponse,
} from '../../src/contract/billing.js'
import { FREE_TRIAL_DAYS, TIER_LIMITS, type Tier } from '../../src/contract/limits.js'
import { generateApiKey, hashApiKey, keyPrefixOf } from '../auth/api-keys.js'
import type { KnownOrg } from '../auth/directory.js'
import { ADMIN_ORG_ID, assertAdmin, assertOrgAccess, type Principal } from '../auth/principal.js'
import { DAY_MS, isoTimestamp, utcDate } from '../clock.js'
import type { AppContext } from '../context.js'
import { ApiError } from '../errors.js'
import { entitlementOf } from '../limits/entitlement.js'
import type { SubscriptionsTable } from '../db/schema.js'
import { paymentDetailsOf } from '../payments/provider.js'
import * as q from './queries.js'

export const KEY_WARNING = 'Store this API key now: it is shown only once and cannot be retrieved again.'

const trialEndsAt = (org: KnownOrg): string | null =>
  org.trialEndsAt === null ? null : isoTimestamp(org.trialEndsAt)

/** The organization, or 404 when it does not exist (the caller already passed the access check). */
async function organization(ctx: AppContext, orgId: string): Promise<KnownOrg> {
  const org = await ctx.directory.org(orgId)
  if (!org)
    throw new ApiError(
      'not_found',
      `No organization ${orgId}: create a key for it first (POST /console/billing/keys)`,
    )
  return org
}

/**
 * Creates an API key. The first key of a new organization creates the organization; the first key
 * created with `start_trial` starts the organization's one 14-day trial.
 */
export async function createKey(
  ctx: AppContext,
  principal: Principal,
  input: CreateKeyRequest,
): Promise<CreateKeyResponse> {
  const orgId = input.org_id ?? principal.orgId
  assertOrgAccess(principal, orgId)
  const now = ctx.clock.now()
  const apiKey = generateApiKey()
  const keyId = ctx.ids.next('key')
  const createdAt = isoTimestamp(now)

  await ctx.db.transaction().execute(async (trx) => {
    await q.ensureOrganization(trx, orgId, now)
    if (input.start_trial) {
      await trx
        .updateTable('organizations')
        .set({ trial_ends_at: isoTimestamp(now + FREE_TRIAL_DAYS * DAY_MS) })
        .where('org_id', '=', orgId)
        .where('trial_ends_at', 'is', null)
        .execute()
    }
    await trx
      .insertInto('api_keys')
      .values({
        key_id: keyId,
        org_id: orgId,
        key_hash: hashApiKey(apiKey),
        key_prefix: keyPrefixOf(apiKey),
        name: input.name,
        created_at: createdAt,
        last_used_at: null,
        revoked_at: null,
      })
      .execute()
  })
  ctx.directory.forgetOrg(orgId)
  const org = await organization(ctx, orgId)

  return {
    api_key: apiKey,
    key_id: keyId,
    key_prefix: keyPrefixOf(apiKey),
    org_id: orgId,
    tier: entitlementOf(org, now).tier,
    name: input.name,
    created_at: createdAt,
    trial_ends_at: trialEndsAt(org),
    warning: KEY_WARNING,
  }
}

/** The keys of an organization, newest first, masked to their prefix. */
export async function listKeys(
  ctx: AppContext,
  principal: Principal,
  orgId = principal.orgId,
): Promise<ListKeysResponse> {
  assertOrgAccess(principal, orgId)
  const org = await organization(ctx, orgId)
  await ctx.meter.flush()
  const tier = entitlementOf(org, ctx.clock.now()).tier
  const keys: ApiKeyRecord[] = (await q.listKeyRows(ctx.db, orgId)).map((row) => ({
    key_id: row.key_id,
    key_prefix: row.key_prefix,
    org_id: row.org_id,
    tier,
    name: row.name,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked: row.revoked_at !== null,
    trial_ends_at: trialEndsAt(org),
  }))
  return { keys, total: keys.length }
}

/** Revokes a key for good. Another organization's key is reported as unknown. */
export async function revokeKey(
  ctx: AppContext,
  principal: Principal,
  keyId: string,
): Promise<RevokeKeyResponse> {
  const now = ctx.clock.now()
  await ctx.db.transaction().execute(async (trx) => {
    const row = await q.findKeyRow(trx, keyId)
    if (!row || (!principal.isAdmin && row.org_id !== principal.orgId)) {
      throw new ApiError('not_found', `No API key with id ${keyId}`)
    }
    if (row.revoked_at !== null)
      throw new ApiError('conflict', `API key ${keyId} is already revoked; revocation is permanent`)
    if (row.org_id === ADMIN_ORG_ID && (await q.countActiveKeys(trx, ADMIN_ORG_ID)) <= 1) {
      throw new ApiError(
        'conflict',
        'This is the last active admin key; create another admin key before revoking it',
      )
    }
    await trx
      .updateTable('api_keys')
      .set({ revoked_at: isoTimestamp(now) })
      .where('key_id', '=', keyId)
      .execute()
  })
  ctx.directory.markRevoked(keyId)
  return { status: 'revoked', key_id: keyId }
}

/** The organization's subscription; free-tier defaults (and `subscription: null`) when it has none. */
export async function getSubscription(
  ctx: AppContext,
  principal: Principal,
  orgId: string,
): Promise<SubscriptionResponse> {
  assertOrgAccess(principal, orgId)
  const org = await organization(ctx, orgId)
  const entitlement = entitlementOf(org, ctx.clock.now())
  const row = await q.findSubscription(ctx.db, orgId)
  return {
    org_id: orgId,
    tier: entitlement.tier,
    status: (row?.status as SubscriptionResponse['status']) ?? 'active',
    limits: entitlement.limits,
    trial_ends_at: trialEndsAt(org),
    subscription: row && row.provider !== 'operator' ? paymentDetailsOf(row) : null,
  }
}

/** Fields a payment provider reports for a subscription, beyond the tier. */
export interface SubscriptionChange {
  tier: Tier
  status?: string
  provider: string
  payment_subscription_id?: string | null
  payment_customer_id?: string | null
  payment_price_id?: string | null
  current_period_start?: string | null
  current_period_end?: string | null
  cancel_at_period_end?: boolean
  provider_updated_at?: string | null
}

/** The payment-provider event behind a change: applied at most once, and never over a newer state. */
export interface ProviderEventRef {
  id: string
  type: string
  /** Why the change must not replace the stored subscription (e.g. it is older), or null to apply it. */
  reasonToSkip(current: SubscriptionsTable | undefined): string | null
}

/** What became of a change: applied, skipped (its event is recorded), or a redelivered event. */
export type ApplyOutcome =
  | { outcome: 'applied' }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'duplicate' }

/**
 * Records an organization's subscription and makes its limits take effect on the next request. The
 * admin endpoint and the payment provider's webhook both come here. With `event`, the event id is
 * recorded in processed_events in the same transaction as the change, so a redelivery is skipped.
 */
export async function applySubscription(
  ctx: AppContext,
  orgId: string,
  change: SubscriptionChange,
  event?: ProviderEventRef,
): Promise<ApplyOutcome> {
  const now = ctx.clock.now()
  await organization(ctx, orgId)
  const result = await ctx.db.transaction().execute(async (trx): Promise<ApplyOutcome> => {
    if (event) {
      const recorded = await trx
        .insertInto('processed_events')
        .values({
          event_id: event.id,
          provider: change.provider,
          type: event.type,
          processed_at: isoTimestamp(now),
        })
        .onConflict((oc) => oc.column('event_id').doNothing())
        .executeTakeFirst()
      if (Number(recorded.numInsertedOrUpdatedRows ?? 0) === 0) return { outcome: 'duplicate' }
      const reason = event.reasonToSkip(await q.findSubscription(trx, orgId))
      if (reason !== null) return { outcome: 'skipped', reason }
    }
    await q.upsertSubscription(
      trx,
      orgId,
      {
        tier: change.tier,
        status: change.status ?? 'active',
        provider: change.provider,
        payment_subscription_id: change.payment_subscription_id ?? null,
        payment_customer_id: change.payment_customer_id ?? null,
        payment_price_id: change.payment_price_id ?? null,
        current_period_start: change.current_period_start ?? null,
        current_period_end: change.current_period_end ?? null,
        cancel_at_period_end: change.cancel_at_period_end ? 1 : 0,
        provider_updated_at: change.provider_updated_at ?? null,
      },
      now,
    )
    return { outcome: 'applied' }
  })
  if (result.outcome === 'applied') ctx.directory.forgetOrg(orgId)
  return result
}

/**
 * Admin only. Sets the tier of an organization as the local payment provider: the billing period is
 * the month starting today.
 */
export async function updateSubscription(
  ctx: AppContext,
  principal: Principal,
  input: UpdateSubscriptionRequest,
): Promise<UpdateSubscriptionResponse> {
  assertAdmin(principal, 'Updating a subscription')
  const start = new Date(ctx.clock.now())
  const end = new Date(start)
  end.setUTCMonth(end.getUTCMonth() + 1)
  await applySubscription(ctx, input.org_id, {
    tier: input.tier,
    provider: 'local',
    payment_subscription_id: input.payment_subscription_id,
    payment_customer_id: input.payment_customer_id,
    payment_price_id: input.payment_price_id,
    current_period_start: utcDate(start.getTime()),
    current_period_end: utcDate(end.getTime()),
  })
  return { status: 'updated', org_id: input.org_id, tier: input.tier, limits: TIER_LIMITS[input.tier] }
}

/** Usage of the last `days` UTC days (today included): totals over the window and one row per day. */
export async function getUsage(
  ctx: AppContext,
  principal: Principal,
  orgId: string,
  days: number,
): Promise<UsageResponse> {
  assertOrgAccess(principal, orgId)
  const org = await organization(ctx, orgId)
  await ctx.meter.flush()
  const now = ctx.clock.now()
  const dates = Array.from({ length: days }, (_, i) => utcDate(now - (days - 1 - i) * DAY_MS))
  const stored = new Map((await q.usageRows(ctx.db, orgId, dates[0]!, dates.at(-1)!)).map((r) => [r.date, r]))
  const daily_usage = dates.map((date) => {
    const row = stored.get(date)
    return {
      date,
      request_count: row?.request_count ?? 0,
      dids_created: row?.dids_created ?? 0,
      skills_registered: row?.skills_registered ?? 0,
    }
  })
  const entitlement = entitlementOf(org, now)
  return {
    org_id: orgId,
    tier: entitlement.tier,
    limits: entitlement.limits,
    trial_ends_at: trialEndsAt(org),
    totals: {
      total_requests: daily_usage.reduce((n, d) => n + d.request_count, 0),
      total_dids_created: daily_usage.reduce((n, d) => n + d.dids_created, 0),
      total_skills_registered: daily_usage.reduce((n, d) => n + d.skills_registered, 0),
    },
    daily_usage,
  }
}

/** Admin only. Counts of keys, and of active keys by their organization's tier. */
export async function getStats(ctx: AppContext, principal: Principal): Promise<StatsResponse> {
  assertAdmin(principal, 'Billing stats')
  const now = ctx.clock.now()
  const by_tier: Record<Tier, number> = { free: 0, pro: 0, enterprise: 0 }
  let total_keys = 0
  let active_keys = 0
  for (const row of await q.keysWithSubscription(ctx.db)) {
    total_keys++
    if (row.revoked_at !== null) continue
    active_keys++
    const plan = {
      trialEndsAt: row.trial_ends_at === null ? null : Date.parse(row.trial_ends_at),
      subscription: row.tier && row.status ? { tier: row.tier as Tier, status: row.status } : null,
    }
    by_tier[entitlementOf(plan, now).tier]++
  }
  return { total_keys, active_keys, by_tier }
}
