import type { IncomingMessage } from 'node:http'
import type { Context, MiddlewareHandler } from 'hono'
import { PROBE_PATHS } from '../../../src/contract/operation.js'
import type { AppContext } from '../context.js'
import { ApiError } from '../../platform/errors.js'
import { problemResponse } from '../../platform/http/error-handler.js'
import { clientBucketKey } from '../../platform/limits/public-bucket.js'
import {
  clientAddress,
  countedAtTheDoor,
  publicRefusal,
  UNKNOWN_CLIENT,
} from '../../platform/limits/public-gate.js'

/** The address a request came from (see `clientAddress`): the socket's peer, or `--trust-proxy` hops back. */
export function clientAddressOf(c: Context, trustProxyHops: number): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  return clientAddress(incoming?.socket?.remoteAddress, c.req.header('x-forwarded-for'), trustProxyHops)
}

/**
 * Counts a request without a valid API key against its client's bucket (README.md, "Configuration",
 * `--public-rate-limit`), unless the gate in front of the app (server/platform/limits/public-gate.ts) already did:
 * over its budget, it throws 429 `public_rate_limited` with `Retry-After` in whole seconds. Nothing when
 * `--public-rate-limit off`.
 */
export async function chargeClient(ctx: AppContext, c: Context): Promise<void> {
  const { rate, trustProxyHops } = ctx.publicLimit
  if (rate === null) return
  c.set('clientCharged', true)
  if (countedAtTheDoor((c.env as { incoming?: IncomingMessage } | undefined)?.incoming)) return
  const address = clientAddressOf(c, trustProxyHops)
  const client = address === undefined ? UNKNOWN_CLIENT : clientBucketKey(address)
  const decision = await ctx.publicGate.take(client, address, ctx.clock.now())
  if (!decision.allowed) throw publicRefusal(address, rate, decision.retryAfterSeconds)
}

declare module 'hono' {
  interface ContextVariableMap {
    /** The request has been counted against its client's bucket in the app (`chargeClient`). */
    clientCharged: boolean | undefined
  }
}

/**
 * For a refusal made before any route authenticates the request (no route for its path or method, a
 * body too large): every request that does not authenticate counts against its client's bucket
 * (README, `--public-rate-limit`), and the door lets a request carrying a well-formed key pass
 * for its route to look up. Returns the bucket's 429 when the client is over its budget (the refusal
 * to send instead), else undefined. The probes stay exempt; a request already counted is not again.
 */
export async function chargeUnauthenticated(ctx: AppContext, c: Context): Promise<Response | undefined> {
  if (c.get('clientCharged') === true || PROBE_PATHS.has(c.req.path)) return undefined
  try {
    await chargeClient(ctx, c)
    return undefined
  } catch (error) {
    if (error instanceof ApiError) return problemResponse(c, error)
    throw error
  }
}

/**
 * The per-client token bucket of a route reachable without an API key (README.md, "Configuration",
 * `--public-rate-limit`), before the route does any work. Served by the Node server, the gate has counted
 * (and refused) the request before the app saw it; this counts the requests handed to the app in process.
 * Shared by the instances through Redis (ctx.limits), in memory on SQLite.
 */
export function publicRateLimit(ctx: AppContext): MiddlewareHandler {
  return async function limitPublicRequest(c, next) {
    await chargeClient(ctx, c)
    return next()
  }
}
