import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './principal.js'
import { isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../context.js'
import { ApiError } from '../../platform/errors.js'

/**
 * Governance needs an organization on Pro or Enterprise, or in its active trial. Runs after `auth`,
 * before validation; the refusal says which way to access is still open to the organization.
 */
export function requireGovernance(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async function requireGovernancePlan(c, next) {
    const { entitlement, orgId } = c.get('principal')
    if (!entitlement.governance) {
      const org = await ctx.authCache.org(orgId)
      const trial =
        org?.trialEndsAt == null
          ? 'start its 14-day trial (POST /console/billing/keys with start_trial: true) or subscribe'
          : `its trial ended at ${isoTimestamp(org.trialEndsAt)}; subscribe`
      throw new ApiError(
        'plan_required',
        `Governance endpoints need the Pro or Enterprise tier or an active trial; organization ${orgId} is on the free tier. To get access, ${trial} to Pro or Enterprise (see GET /console/billing/pricing)`,
        {
          context: {
            org_id: orgId,
            trial_ends_at: org?.trialEndsAt == null ? null : isoTimestamp(org.trialEndsAt),
          },
        },
      )
    }
    await next()
  }
}
