import type { IncomingMessage } from 'node:http'
import type { Context, MiddlewareHandler } from 'hono'
import type { AppContext } from '../context.js'
import { clientBucketKey } from './public-bucket.js'
import { clientAddress, countedAtTheDoor, publicRefusal, UNKNOWN_CLIENT } from './public-gate.js'

/** The address a request came from (see `clientAddress`): the socket's peer, or `--trust-proxy` hops back. */
export function clientAddressOf(c: Context, trustProxyHops: number): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  return clientAddress(incoming?.socket?.remoteAddress, c.req.header('x-forwarded-for'), trustProxyHops)
}

/**
 * Counts a request without a valid API key against its client's bucket (README.md, "Configuration",
 * `--public-rate-limit`), unless the gate in front of the app (server/limits/public-gate.ts) already did:
 * over its budget, it throws 429 `public_rate_limited` with `Retry-After` in whole seconds. Nothing when
 * `--public-rate-limit off`.
 */
export async function chargeClient(ctx: AppContext, c: Context): Promise<void> {
  const { rate, trustProxyHops } = ctx.publicLimit
  if (rate === null) return
  if (countedAtTheDoor((c.env as { incoming?: IncomingMessage } | undefined)?.incoming)) return
  const address = clientAddressOf(c, trustProxyHops)
  const client = address === undefined ? UNKNOWN_CLIENT : clientBucketKey(address)
  const decision = await ctx.publicGate.take(client, address, ctx.clock.now())
  if (!decision.allowed) throw publicRefusal(address, rate, decision.retryAfterSeconds)
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
