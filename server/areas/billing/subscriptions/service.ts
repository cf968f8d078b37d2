import type {
  SubscriptionResponse,
  UpdateSubscriptionRequest,
  UpdateSubscriptionResponse,
} from '../../../../src/contract/billing.js'
import { orgIdSchema } from '../../../../src/contract/common.js'
import { TIER_LIMITS } from '../../../../src/contract/limits.js'
import { ADMIN_ORG_ID, assertOrgAccess, type Principal } from '../../../pipeline/auth/principal.js'
import type { KnownOrg } from '../../../platform/caches/auth-cache.js'
import { isoTimestamp, utcDate } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import { ApiError } from '../../../platform/errors.js'
import { entitlementOf } from '../../../platform/limits/entitlement.js'
import {
  ensureOrganization,
  findSubscription,
  lockOrganization,
  orgOfPayment,
  orgOfSubscription,
  upsertSubscription,
} from '../../../platform/organizations/queries.js'
import {
  type PaymentWebhook,
  type ProviderEventRef,
  paymentDetailsOf,
  type SubscriptionChange,
} from '../../../platform/payments/provider.js'
import { isEventProcessed, recordProcessedEvent } from '../../../platform/payments/queries.js'
import { runWrite } from '../../../pipeline/writes/run-write.js'

/*
 * An organization's subscription: what it reads, and the one way it changes. The admin endpoint and
 * the payment provider's webhook both change it through `applySubscription`.
 */

export const trialEndsAtOf = (org: KnownOrg): string | null =>
  org.trialEndsAt === null ? null : isoTimestamp(org.trialEndsAt)

/**
 * An organization as billing reads it. Organizations are implicit (README.md, "Billing endpoints"): one that
 * nothing has named yet (no key, no subscription) is on the free tier with no trial, and its record appears
 * with whatever first names it.
 */
export async function organizationOf(ctx: AppContext, orgId: string): Promise<KnownOrg> {
  return (
    (await ctx.authCache.org(orgId)) ?? { orgId, trialEndsAt: null, trialChecked: false, subscription: null }
  )
}

/** The organization, or 404 when it has no record (the caller already passed the access check). */
export async function organizationOr404(ctx: AppContext, orgId: string): Promise<KnownOrg> {
  const org = await ctx.authCache.org(orgId)
  if (!org)
    throw new ApiError(
      'organization_not_found',
      `No organization ${orgId}: create a key for it first (POST /console/billing/keys)`,
      { context: { org_id: orgId } },
    )
  return org
}

/**
 * The organization's subscription; free-tier defaults (and `subscription: null`) when it has none,
 * including an organization nothing has named yet.
 */
export async function getSubscription(
  ctx: AppContext,
  principal: Principal,
  orgId: string,
): Promise<SubscriptionResponse> {
  assertOrgAccess(principal, orgId)
  return subscriptionOf(ctx, orgId)
}

/** An organization's subscription as the API answers it (`GET /console/billing/subscription`). */
export async function subscriptionOf(ctx: AppContext, orgId: string): Promise<SubscriptionResponse> {
  const org = await organizationOf(ctx, orgId)
  const entitlement = entitlementOf(org, ctx.clock.now())
  const row = await findSubscription(ctx.db, orgId)
  return {
    org_id: orgId,
    tier: entitlement.tier,
    status: (row?.status as SubscriptionResponse['status']) ?? 'active',
    limits: entitlement.limits,
    trial_ends_at: trialEndsAtOf(org),
    subscription: row && row.provider !== 'operator' ? paymentDetailsOf(row) : null,
  }
}

/** What became of a change: applied, skipped (its event is recorded), or a redelivered event. */
export type ApplyOutcome =
  | { outcome: 'applied' }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'duplicate' }

/**
 * Records an organization's subscription and makes its limits take effect on the next request, on
 * every instance; an organization with no record gets one (a payment is never dropped). With `event`,
 * the event id is recorded in processed_events in the same transaction as the change, so a redelivery
 * is skipped, and a change older than the stored state is skipped. The operator organization is never
 * billed: callers refuse it before.
 */
export async function applySubscription(
  ctx: AppContext,
  orgId: string,
  change: SubscriptionChange,
  event?: ProviderEventRef,
): Promise<ApplyOutcome> {
  if (orgId === ADMIN_ORG_ID) throw new Error('the operator organization is not billed')
  const now = ctx.clock.now()
  // The admin endpoint's write is already open (its key is the actor); a webhook's event opens its own.
  const origin = { actor: { system: 'payment_provider' as const }, requestId: null }
  const result = await runWrite(ctx, origin, () =>
    ctx.db.transaction().execute(async (trx): Promise<ApplyOutcome> => {
      // Changes of one organization apply one at a time, so an older event cannot overwrite a newer one
      // (the row exists first, so there is a row to lock).
      await ensureOrganization(trx, orgId, now)
      await lockOrganization(trx, orgId)
      if (event) {
        const first = await recordProcessedEvent(trx, {
          event_id: event.id,
          provider: change.provider,
          type: event.type,
          processed_at: isoTimestamp(now),
        })
        if (!first) return { outcome: 'duplicate' }
        const reason = event.reasonToSkip(await findSubscription(trx, orgId))
        if (reason !== null) return { outcome: 'skipped', reason }
      }
      const before = await findSubscription(trx, orgId)
      await upsertSubscription(
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
      ctx.record({
        orgId,
        action: 'subscription.updated',
        target: { type: 'subscription', id: orgId },
        before: before ? { tier: before.tier, status: before.status, provider: before.provider } : null,
        after: { tier: change.tier, status: change.status ?? 'active', provider: change.provider },
      })
      return { outcome: 'applied' }
    }),
  )
  if (result.outcome === 'applied') ctx.invalidate({ kind: 'org', orgId })
  return result
}

/**
 * Admin only. Sets the tier of an organization as the local payment provider: the billing period is
 * the month starting today. An organization nothing has named yet is created; the operator
 * organization is not billed (422).
 */
export async function updateSubscription(
  ctx: AppContext,
  _principal: Principal,
  input: UpdateSubscriptionRequest,
): Promise<UpdateSubscriptionResponse> {
  if (input.org_id === ADMIN_ORG_ID) {
    throw new ApiError(
      'admin_not_billed',
      'The operator organization admin is not billed: its enterprise tier is fixed',
      { context: { org_id: input.org_id } },
    )
  }
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

/** What the webhook did with a verified event (every outcome is acknowledged with 200). */
export interface PaymentEventOutcome {
  outcome: 'applied' | 'skipped' | 'duplicate' | 'ignored'
  org_id: string | null
  detail: string | null
}

/**
 * Applies a verified payment-provider event: the provider says what it means for which organization,
 * and `applySubscription` records it once, creating the organization if nothing named it before (a
 * customer may pay before creating a key). The operator organization is never billed, and an event
 * naming something that is not an organization id is ignored (acknowledged, logged, nothing stored).
 */
export async function receivePaymentEvent(
  ctx: AppContext,
  webhook: PaymentWebhook,
  event: { id: string; type: string },
): Promise<PaymentEventOutcome> {
  const verdict = await webhook.interpret(event, {
    isProcessed: (eventId) => isEventProcessed(ctx.db, eventId),
    orgOfSubscription: (subscriptionId) => orgOfSubscription(ctx.db, ctx.payments.name, subscriptionId),
    orgOfPayment: (subscriptionId, customerId) =>
      orgOfPayment(ctx.db, ctx.payments.name, subscriptionId, customerId),
    refusal: async (orgId) => {
      if (orgId === ADMIN_ORG_ID) return 'the operator organization is not billed'
      return orgIdSchema.safeParse(orgId).success
        ? null
        : `${JSON.stringify(orgId)} is not an organization id`
    },
    logError: ctx.logError,
  })
  if (verdict.kind !== 'change')
    return { outcome: verdict.kind, org_id: verdict.orgId, detail: verdict.detail }
  const applied = await applySubscription(ctx, verdict.orgId, verdict.change, verdict.event)
  return {
    outcome: applied.outcome,
    org_id: verdict.orgId,
    detail: applied.outcome === 'skipped' ? applied.reason : null,
  }
}
