import type { IncomingMessage } from 'node:http'
import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit'

export interface BodyLimitOptions {
  /** Largest body accepted, in bytes. */
  maxSize: number
  /** Answers (or throws) when a body is too large. */
  onError: (c: Context) => Response | Promise<Response>
}

/**
 * Refuses request bodies over `maxSize` bytes, like hono's `bodyLimit`, without its cost on the hot
 * path. hono's version starts by reading `c.req.raw.body`, which makes @hono/node-server build a full
 * WHATWG Request (an AbortController, undici's header conversion) for every request, bodiless GETs
 * included: the benchmark measured that at about two thirds of the server's CPU per request on
 * `GET /console/billing/pricing`. Behind @hono/node-server this judges a request by the headers Node
 * already parsed: no Content-Length and no Transfer-Encoding means no body (HTTP/1.1), a declared
 * length is compared with the limit (Node's parser then reads exactly that many bytes). A chunked body,
 * or a request that did not come through @hono/node-server (`app.request` in tests), is counted as it
 * streams by hono's own bodyLimit.
 */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  const streaming = streamingBodyLimit(options)
  return async function limitBody(c, next) {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
    if (!incoming?.headers || incoming.headers['transfer-encoding'] !== undefined) return streaming(c, next)
    const length = incoming.headers['content-length']
    if (length === undefined) return next()
    if (Number(length) > options.maxSize) return options.onError(c)
    return next()
  }
}
