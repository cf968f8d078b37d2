import type { KnownOrg } from '../../platform/caches/auth-cache.js'
import { activeSubscriptionCached } from '../../platform/caches/payment-answers.js'
import { isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../context.js'
import {
  lockOrganization,
  markTrialChecked,
  upsertSubscription,
} from '../../platform/organizations/queries.js'
import type { ProviderSubscription } from '../../platform/payments/provider.js'
import { runWrite } from '../writes/run-write.js'

const TRIAL_CHECK_RETRY_MS = 60_000

/** Whether `org`'s trial has ended and the payment provider was not asked yet (`trialExpiry` settles it). */
export const trialEndedUnchecked = (org: KnownOrg, now: number): boolean =>
  !org.trialChecked && org.trialEndsAt !== null && now >= org.trialEndsAt

/**
 * The spec's trial expiry: once an organization's trial has ended, the payment provider is asked, once,
 * whether an active subscription keeps its tier; otherwise it is on `free`. A provider outage never
 * locks anyone out: the stored state is kept and the provider asked again a minute later (a per-process
 * backoff, so every instance asks at most once a minute).
 */
export function trialExpiry(ctx: AppContext): (org: KnownOrg, now: number) => Promise<KnownOrg> {
  const retryAt = new Map<string, number>()
  return async function settleEndedTrial(org, now) {
    if (!trialEndedUnchecked(org, now)) return org
    if ((retryAt.get(org.orgId) ?? 0) > now) return org
    try {
      const active = await activeSubscriptionCached(ctx.payments, ctx.paymentAnswers, org.orgId)
      await recordTrialCheck(ctx, org.orgId, now, active)
      ctx.invalidate({ kind: 'org', orgId: org.orgId })
      return (await ctx.authCache.org(org.orgId)) ?? org
    } catch (error) {
      retryAt.set(org.orgId, now + TRIAL_CHECK_RETRY_MS)
      ctx.logError(`payment provider check for ${org.orgId} failed; keeping the stored subscription`, error)
      return org
    }
  }
}

/**
 * Records that the payment provider was asked about an organization whose trial ended, and stores the
 * active subscription it reported, when it is one the local database does not hold yet.
 */
async function recordTrialCheck(
  ctx: AppContext,
  orgId: string,
  now: number,
  active: ProviderSubscription | null,
): Promise<void> {
  const origin = { actor: { system: 'trial_expiry' as const }, requestId: null }
  await runWrite(ctx, origin, () =>
    ctx.db.transaction().execute(async (trx) => {
      await lockOrganization(trx, orgId)
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
      await markTrialChecked(trx, orgId, isoTimestamp(now))
      ctx.record({
        orgId,
        action: 'trial.ended',
        target: { type: 'organization', id: orgId },
        after: { subscription: active && ctx.payments.name !== 'local' ? active.tier : null },
      })
    }),
  )
}
