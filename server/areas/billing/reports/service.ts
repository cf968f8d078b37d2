import type { StatsResponse, UsageResponse } from '../../../../src/contract/billing.js'
import type { Tier } from '../../../../src/contract/limits.js'
import { assertOrgAccess, type Principal } from '../../../pipeline/auth/principal.js'
import { DAY_MS, utcDate } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import { entitlementOf } from '../../../platform/limits/entitlement.js'
import { usageRows } from '../../../platform/metering/queries.js'
import { keyStateAt } from '../keys/key-rules.js'
import { keysWithSubscription } from '../keys/queries.js'
import { organizationOf, trialEndsAtOf } from '../subscriptions/service.js'

/**
 * Usage of the last `days` UTC days (today included): totals over the window and one row per day.
 * An organization nothing has named yet has used nothing: zeros, on the free tier.
 */
export async function getUsage(
  ctx: AppContext,
  principal: Principal,
  orgId: string,
  days: number,
): Promise<UsageResponse> {
  assertOrgAccess(principal, orgId)
  const org = await organizationOf(ctx, orgId)
  await ctx.meter.flush()
  const now = ctx.clock.now()
  const dates = Array.from({ length: days }, (_, i) => utcDate(now - (days - 1 - i) * DAY_MS))
  const stored = new Map((await usageRows(ctx.db, orgId, dates[0]!, dates.at(-1)!)).map((r) => [r.date, r]))
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
    trial_ends_at: trialEndsAtOf(org),
    totals: {
      total_requests: daily_usage.reduce((n, d) => n + d.request_count, 0),
      total_dids_created: daily_usage.reduce((n, d) => n + d.dids_created, 0),
      total_skills_registered: daily_usage.reduce((n, d) => n + d.skills_registered, 0),
    },
    daily_usage,
  }
}

/** Counts of keys, and of active keys by their organization's tier (the admin key's view). */
export async function getStats(ctx: AppContext): Promise<StatsResponse> {
  const now = ctx.clock.now()
  const by_tier: Record<Tier, number> = { free: 0, pro: 0, enterprise: 0 }
  let total_keys = 0
  let active_keys = 0
  for (const row of await keysWithSubscription(ctx.db)) {
    total_keys++
    if (keyStateAt(row, now).revoked) continue
    active_keys++
    const plan = {
      trialEndsAt: row.trial_ends_at === null ? null : Date.parse(row.trial_ends_at),
      subscription: row.tier && row.status ? { tier: row.tier as Tier, status: row.status } : null,
    }
    by_tier[entitlementOf(plan, now).tier]++
  }
  return { total_keys, active_keys, by_tier }
}
