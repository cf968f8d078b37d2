import type { Context, MiddlewareHandler } from 'hono'
import { API_KEY_PATTERN } from '../../../src/contract/billing.js'
import { type OperationSpec, rolesOf } from '../../../src/contract/operation.js'
import type { KnownKey } from '../../platform/caches/auth-cache.js'
import { isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../context.js'
import { ApiError } from '../../platform/errors.js'
import { noteLimitReached } from '../events/limit-reached.js'
import { setAnswerHeaders } from '../../platform/http/answer-headers.js'
import { sessionSecretOf } from '../../platform/http/session-cookie.js'
import { entitlementOf } from '../../platform/limits/entitlement.js'
import { chargeClient } from '../limits/public-limit.js'
import type { LimitDecision } from '../../platform/limits/rate-limiter.js'
import { hashApiKey } from './api-keys.js'
import { checkCsrf, liveSessionOf } from './console-session.js'
import { checkGovernance } from './require-governance.js'
import { type AppEnv, isAdminKey, type Principal } from './principal.js'
import { trialEndedUnchecked, trialExpiry } from './trial-expiry.js'

/**
 * Authenticates `X-API-Key`, applies the organization's limits and meters the request. On success the
 * route sees `c.get('principal')`; every response, refusals included, carries the RateLimit headers.
 * In the steady state this reads nothing from the database: keys, organizations, windows and counters
 * are all in the app context's stores (a console session is one row read, so that its end is exact).
 */
export function authenticate(
  ctx: AppContext,
  /** Where the key comes from: X-API-Key or a console session; signing in reads it from the body. */
  keyOf: (ctx: AppContext, c: Context) => Promise<KnownKey> = keyOfRequest,
): MiddlewareHandler<AppEnv> {
  return authenticator(ctx, keyOf)()
}

/**
 * What a route's access asks of the key once it is authenticated, counted and metered: one of the roles
 * its operation names (`rolesOf`), then a plan with governance. Checked in the same middleware as the key
 * rather than as middlewares of their own: each async layer costs every request a few µs
 * (docs/performance.md, "The request path, issue 41"); the refusals are the same, with the RateLimit headers.
 */
export interface AccessChecks {
  roles?: OperationSpec
  governance?: boolean
}

/**
 * `authenticate`'s middleware for each set of access checks, all sharing one state (the trial-expiry
 * backoff is per process).
 */
export function authenticator(
  ctx: AppContext,
  keyOf: (ctx: AppContext, c: Context) => Promise<KnownKey> = keyOfRequest,
): (checks?: AccessChecks) => MiddlewareHandler<AppEnv> {
  const settleEndedTrial = trialExpiry(ctx)
  return (checks = {}) => {
    const roles = checks.roles === undefined ? undefined : roleCheck(checks.roles)
    const governance = checks.governance === true
    return async function authenticateRequest(c, next) {
      // A key, organization and day the process already holds are answered without a promise each
      // (docs/performance.md, "The request path, issue 41"); anything else, and every refusal, as before.
      const key = (keyOf === keyOfRequest ? cachedKeyOfRequest(ctx, c) : undefined) ?? (await keyOf(ctx, c))

      const now = ctx.clock.now()
      let org = ctx.authCache.cachedOrg(key.orgId) ?? (await ctx.authCache.org(key.orgId))
      if (!org) {
        await chargeClient(ctx, c)
        throw new ApiError('key_unknown', 'Unknown API key')
      }
      if (trialEndedUnchecked(org, now)) org = await settleEndedTrial(org, now)
      const entitlement = entitlementOf(org, now)

      const decision =
        ctx.limits.takeNow?.(org.orgId, entitlement.limits, now) ??
        (await ctx.limits.take(org.orgId, entitlement.limits, now))
      if (!decision.allowed) {
        ctx.metrics.rateLimited(entitlement.limitsTier, decision.window)
        noteLimitReached(ctx, org.orgId, decision, entitlement.limitsTier)
        throw rateLimitRefusal(
          org.orgId,
          decision,
          `Rate limit of ${decision.limit} requests per ${decision.window} reached for organization ${org.orgId}; retry in ${decision.retryAfterSeconds} s or move to a higher tier`,
        )
      }
      ctx.meter.record(org.orgId, key.keyId, now)
      const principal: Principal = {
        keyId: key.keyId,
        orgId: org.orgId,
        roles: key.roles,
        isAdmin: isAdminKey(org.orgId, key.roles),
        entitlement,
      }
      c.set('principal', principal)
      // A write through a console session carries its CSRF token; refused, the request still counted.
      // Then the key's roles (a refusal the key can read whatever its plan), then the plan.
      const session = c.get('consoleSession')
      if (session !== undefined || roles !== undefined || (governance && !entitlement.governance)) {
        try {
          if (session !== undefined) checkCsrf(c, session)
          roles?.(principal)
          if (governance) await checkGovernance(ctx, principal)
        } catch (error) {
          setAnswerHeaders(c, rateLimitHeaders(decision))
          throw error
        }
      }

      await next()
      // A batch took more requests meanwhile (takeRequests): the headers speak of what is left after it.
      setAnswerHeaders(c, rateLimitHeaders(c.get('limitDecision') ?? decision))
    }
  }
}

declare module 'hono' {
  interface ContextVariableMap {
    /** The decision of the last requests the request took, when it took more than its own (a batch). */
    limitDecision: LimitDecision | undefined
  }
}

/** The 429 of a refused decision, with its RateLimit headers and `Retry-After`. */
function rateLimitRefusal(orgId: string, decision: LimitDecision, detail: string): ApiError {
  return new ApiError('rate_limited', detail, {
    context: {
      org_id: orgId,
      window: decision.window,
      limit: decision.limit,
      retry_after_seconds: decision.retryAfterSeconds,
    },
    headers: { ...rateLimitHeaders(decision), 'Retry-After': String(decision.retryAfterSeconds) },
  })
}

/**
 * Takes `count` more requests of the caller's organization against its limits, all or none, and meters
 * them: a batch's operations beyond the one its request counted
 * (docs/batches.md, "Roles, limits, idempotency, audit"). Refused, it is the 429 of a request, its detail
 * starting with `what`; admitted, the answer's RateLimit headers speak of what is left after them.
 */
export async function takeRequests(
  ctx: AppContext,
  c: Context<AppEnv>,
  principal: Principal,
  count: number,
  what: string,
): Promise<void> {
  if (count <= 0) return
  const { entitlement, orgId } = principal
  const now = ctx.clock.now()
  const decision = await ctx.limits.take(orgId, entitlement.limits, now, count)
  if (!decision.allowed) {
    ctx.metrics.rateLimited(entitlement.limitsTier, decision.window)
    const never = decision.window === 'minute' && count > entitlement.limits.requests_per_minute
    // A batch larger than the whole minute's limit reached nothing: it never fits.
    if (!never) noteLimitReached(ctx, orgId, decision, entitlement.limitsTier)
    throw rateLimitRefusal(
      orgId,
      decision,
      never
        ? `${what}: more than the limit of ${decision.limit} requests per minute of organization ${orgId}; send smaller batches, or move to a higher tier`
        : `${what}: more than is left of the limit of ${decision.limit} requests per ${decision.window} of organization ${orgId}; retry in ${decision.retryAfterSeconds} s, send a smaller batch, or move to a higher tier`,
    )
  }
  ctx.meter.record(orgId, principal.keyId, now, count)
  c.set('limitDecision', decision)
}

/**
 * The live key of the request's `X-API-Key` (or, without one, of its console session's cookie), or its
 * refusal. A request without a valid key counts
 * against its client address's bucket like one to a public route (README.md, "Configuration",
 * `--public-rate-limit`): a missing or malformed key was counted at the door, an unknown, revoked or expired
 * one is counted here, so guessing keys costs the server at most a lookup per token; over the budget the
 * answer is that 429, not the 401.
 */
function keyOfRequest(ctx: AppContext, c: Context): Promise<KnownKey> {
  const apiKey = c.req.header('x-api-key')
  const sessionSecret = apiKey === undefined ? sessionSecretOf(c.req.header('cookie')) : undefined
  return charged(ctx, c, () =>
    sessionSecret !== undefined ? keyOfSession(ctx, c, sessionSecret) : knownKeyOf(ctx, apiKey),
  )
}

/**
 * The key of the request's `X-API-Key` when the cache holds it and it works now, without a promise;
 * otherwise undefined, and `keyOfRequest` finds it or its refusal (each counted as before).
 */
function cachedKeyOfRequest(ctx: AppContext, c: Context): KnownKey | undefined {
  const apiKey = c.req.header('x-api-key')
  if (apiKey === undefined || !API_KEY_PATTERN.test(apiKey)) return undefined
  const key = ctx.authCache.cachedKey(hashApiKey(apiKey))
  return key !== undefined && refusalOf(key, ctx.clock.now()) === undefined ? key : undefined
}

/** `find`'s key; a 401 it throws is counted against the client's bucket first (see `keyOfRequest`). */
export async function charged(ctx: AppContext, c: Context, find: () => Promise<KnownKey>): Promise<KnownKey> {
  try {
    return await find()
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) await chargeClient(ctx, c)
    throw error
  }
}

/**
 * The key a console session acts as (docs/console.md, "Security model"), once the session, then its key
 * (revoked, expired: the key's own refusals) hold. A write's CSRF token is checked once the request is
 * counted (`authenticate`).
 */
async function keyOfSession(ctx: AppContext, c: Context, secret: string): Promise<KnownKey> {
  const { session, keyHash } = await liveSessionOf(ctx, secret)
  const key = liveKey(ctx, await ctx.authCache.keyByHash(keyHash))
  c.set('consoleSession', session)
  return key
}

/**
 * The live key an `X-API-Key` header value names, or the 401 that refuses it: unknown, revoked, past the
 * overlap of its reroll (revoked, reason `rerolled`), or past its `expires_at`.
 */
export async function knownKeyOf(ctx: AppContext, apiKey: string | undefined): Promise<KnownKey> {
  if (!apiKey) throw new ApiError('key_missing', 'Missing X-API-Key header: pass an API key (rwa_live_...)')
  if (!API_KEY_PATTERN.test(apiKey)) {
    throw new ApiError('key_malformed', 'Malformed API key: expected rwa_live_ followed by 43 characters')
  }
  return liveKey(ctx, await ctx.authCache.keyByHash(hashApiKey(apiKey)))
}

/** The key if it works now, or the 401 that refuses it. */
function liveKey(ctx: AppContext, key: KnownKey | undefined): KnownKey {
  if (!key) throw new ApiError('key_unknown', 'Unknown API key')
  const refusal = refusalOf(key, ctx.clock.now())
  if (refusal !== undefined) throw refusal
  return key
}

/** The 401 that refuses a known key at `now` (revoked, past its reroll's overlap, expired), if any. */
function refusalOf(key: KnownKey, now: number): ApiError | undefined {
  if (key.revoked) {
    return new ApiError('key_revoked', 'This API key has been revoked; create a new one', {
      context: { key_id: key.keyId, revoked_reason: 'revoked' },
    })
  }
  if (key.retiresAt !== null && now >= key.retiresAt) {
    return new ApiError(
      'key_revoked',
      'This API key was rerolled and its overlap has ended; use the key that replaced it',
      { context: { key_id: key.keyId, revoked_reason: 'rerolled' } },
    )
  }
  if (key.expiresAt !== null && now >= key.expiresAt) {
    return new ApiError(
      'key_expired',
      `This API key expired at ${isoTimestamp(key.expiresAt)}; ask an owner of the organization for a new one`,
      { context: { key_id: key.keyId, expired_at: isoTimestamp(key.expiresAt) } },
    )
  }
  return undefined
}

/**
 * Admits the admin key only, for operators' tools (a metrics scraper): no limits, no metering, so a
 * scrape every few seconds neither uses the operator organization's quota nor shows in its usage.
 */
export function adminKeyOnly(ctx: AppContext, what: string): MiddlewareHandler<AppEnv> {
  return async function requireAdminKey(c, next) {
    const key = await keyOfRequest(ctx, c)
    if (!isAdminKey(key.orgId, key.roles))
      throw new ApiError('admin_key_required', `${what} requires the admin API key`)
    await next()
  }
}

/** Admits the admin key alone, after `authenticate` (so limited and metered like any key). */
export function requireAdminKey(what: string): MiddlewareHandler<AppEnv> {
  return async function requireAdmin(c, next) {
    if (!c.get('principal').isAdmin) {
      throw new ApiError('admin_key_required', `${what} requires the admin API key`)
    }
    await next()
  }
}

function rateLimitHeaders(decision: LimitDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  }
}

/**
 * The check that a key holds one of the roles an operation's declaration names (`rolesOf`); the refusal
 * names the roles that would do. The admin key is an owner.
 */
function roleCheck(operation: OperationSpec): (principal: Principal) => void {
  const allowed = rolesOf(operation)
  const what = `${operation.method.toUpperCase()} ${operation.path}`
  return ({ roles }) => {
    if (!roles.some((role) => allowed.includes(role))) {
      throw new ApiError(
        'role_required',
        `${what} needs a key with the role ${allowed.join(' or ')}; this key has ${roles.join(', ') || 'no role'}`,
        { context: { roles: allowed, key_roles: roles } },
      )
    }
  }
}
