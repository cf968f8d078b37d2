import type { MiddlewareHandler } from 'hono'
import { API_KEY_PATTERN } from '../../src/contract/billing.js'
import { recordTrialCheck, requestCountOn } from '../billing/queries.js'
import type { AppContext } from '../context.js'
import { ApiError } from '../errors.js'
import { entitlementOf } from '../limits/entitlement.js'
import type { LimitDecision } from '../limits/rate-limiter.js'
import { utcDay } from '../limits/utc-day.js'
import { hashApiKey } from './api-keys.js'
import type { KnownOrg } from './directory.js'
import { ADMIN_ORG_ID, type AppEnv } from './principal.js'

const TRIAL_CHECK_RETRY_MS = 60_000

/**
 * Authenticates `X-API-Key`, applies the organization's limits and meters the request. On success the
 * route sees `c.get('principal')`; every response, refusals included, carries the RateLimit headers.
 * In the steady state this reads nothing from the database: keys, organizations, windows and counters
 * are all in memory.
 */
export function authenticate(ctx: AppContext): MiddlewareHandler<AppEnv> {
  const trialCheckRetryAt = new Map<string, number>()

  /** When a trial has ended, asks the payment provider once whether a subscription keeps the org's tier. */
  async function settleEndedTrial(org: KnownOrg, now: number): Promise<KnownOrg> {
    if (org.trialChecked || org.trialEndsAt === null || now < org.trialEndsAt) return org
    if ((trialCheckRetryAt.get(org.orgId) ?? 0) > now) return org
    try {
      const active = await ctx.payments.activeSubscription(org.orgId)
      await recordTrialCheck(ctx, org.orgId, now, active)
      ctx.directory.forgetOrg(org.orgId)
      return (await ctx.directory.org(org.orgId)) ?? org
    } catch (error) {
      // A provider outage must not lock anyone out: keep the stored state and ask again later.
      trialCheckRetryAt.set(org.orgId, now + TRIAL_CHECK_RETRY_MS)
      ctx.logError(`payment provider check for ${org.orgId} failed; keeping the stored subscription`, error)
      return org
    }
  }

  return async function authenticateRequest(c, next) {
    const apiKey = c.req.header('x-api-key')
    if (!apiKey)
      throw new ApiError('unauthenticated', 'Missing X-API-Key header: pass an API key (rwa_live_...)')
    if (!API_KEY_PATTERN.test(apiKey)) {
      throw new ApiError('unauthenticated', 'Malformed API key: expected rwa_live_ followed by 43 characters')
    }
    const key = await ctx.directory.keyByHash(hashApiKey(apiKey))
    if (!key) throw new ApiError('unauthenticated', 'Unknown API key')
    if (key.revoked) throw new ApiError('unauthenticated', 'This API key has been revoked; create a new one')

    const now = ctx.clock.now()
    let org = await ctx.directory.org(key.orgId)
    if (!org) throw new ApiError('unauthenticated', 'Unknown API key')
    org = await settleEndedTrial(org, now)
    const entitlement = entitlementOf(org, now)

    const today = utcDay(now)
    if (ctx.limiter.needsDaySeed(org.orgId, today)) {
      const stored = await requestCountOn(ctx.db, org.orgId, today)
      if (ctx.limiter.needsDaySeed(org.orgId, today)) {
        ctx.limiter.seedDay(org.orgId, today, stored, entitlement.limits.requests_per_minute)
      }
    }
    const decision = ctx.limiter.take(org.orgId, entitlement.limits, now)
    if (!decision.allowed) {
      throw new ApiError(
        'rate_limited',
        `Rate limit of ${decision.limit} requests per ${decision.window} reached for organization ${org.orgId}; retry in ${decision.retryAfterSeconds} s or move to a higher tier`,
        { headers: { ...rateLimitHeaders(decision), 'Retry-After': String(decision.retryAfterSeconds) } },
      )
    }
    ctx.meter.record(org.orgId, key.keyId, now)
    c.set('principal', {
      keyId: key.keyId,
      orgId: org.orgId,
      isAdmin: org.orgId === ADMIN_ORG_ID,
      entitlement,
    })

    await next()
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.res.headers.set(name, value)
  }
}

function rateLimitHeaders(decision: LimitDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  }
}
