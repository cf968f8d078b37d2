import type { IncomingMessage } from 'node:http'
import type { Context, MiddlewareHandler } from 'hono'
import type { AppContext } from '../context.js'
import { ApiError } from '../errors.js'
import { clientBucketKey } from './public-bucket.js'

/** The bucket key of a request whose address is unknown (handed to the app in process, no socket). */
const UNKNOWN_CLIENT = 'unknown'

/**
 * The address a request came from: the socket's peer, or with `trustProxyHops` = n (`--trust-proxy`,
 * n proxies of the operator's own in front of the server) the address n hops back along
 * `X-Forwarded-For`: each proxy appends the address it received the request from, so the last n entries
 * are written by trusted proxies and everything before them is whatever the client sent. Counting from
 * the right is what keeps a client from choosing its own bucket by sending the header itself.
 */
export function clientAddressOf(c: Context, trustProxyHops: number): string | undefined {
  const socketAddress = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress
  if (trustProxyHops === 0 || socketAddress === undefined) return socketAddress
  const forwarded = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '')
  const chain = [...forwarded, socketAddress]
  // Fewer hops than proxies: the request came past them some other way; the leftmost is all there is.
  return chain[Math.max(0, chain.length - 1 - trustProxyHops)]
}

/**
 * The per-client token bucket of a route reachable without an API key (DESIGN §15): over its budget a
 * client gets 429 `public_rate_limited` with `Retry-After` in whole seconds, before the route does any
 * work. Shared by the instances through Redis (ctx.limits), in memory on SQLite. Nothing when
 * `--public-rate-limit off`.
 */
export function publicRateLimit(ctx: AppContext): MiddlewareHandler {
  const { rate, trustProxyHops } = ctx.publicLimit
  return async function limitPublicRequest(c, next) {
    if (rate === null) return next()
    const address = clientAddressOf(c, trustProxyHops)
    const client = address === undefined ? UNKNOWN_CLIENT : clientBucketKey(address)
    const decision = await ctx.limits.takePublic(client, rate, ctx.clock.now())
    if (!decision.allowed) {
      throw new ApiError(
        'public_rate_limited',
        `Too many requests from ${address ?? 'this client'} without an API key (${rate.perSecond}/s, bursts of ${rate.burst}); retry in ${decision.retryAfterSeconds} s`,
        {
          context: {
            per_second: rate.perSecond,
            burst: rate.burst,
            retry_after_seconds: decision.retryAfterSeconds,
          },
          headers: { 'Retry-After': String(decision.retryAfterSeconds) },
        },
      )
    }
    return next()
  }
}
