import type { ServerResponse } from 'node:http'
import type { Context } from 'hono'

/** A caller's request id that is kept (as hono's request-id middleware with a 128-character limit). */
export const REQUEST_ID = /^[\w\-=]{1,128}$/

/**
 * Headers every answer of a request carries whatever the route answers, errors included (the request
 * id, the RateLimit headers). Behind @hono/node-server they go on Node's response itself, which merges
 * them into the status line's headers when the answer is written. Setting them through hono instead
 * (`c.header`, `c.res.headers`) gives the answer an undici `Headers` that @hono/node-server converts
 * back into an object: per request a `Headers`, its validated `set`s and a sorted iteration, which the
 * bench measured at ~20 µs of `GET /console/billing/pricing` (docs/performance.md, "The read path").
 * Without Node's response (`app.request` in-process), hono's headers carry them as before.
 */
export function setAnswerHeaders(c: Context, headers: Readonly<Record<string, string>>): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing
  if (outgoing?.setHeader !== undefined) {
    for (const name in headers) outgoing.setHeader(name, headers[name] as string)
  } else if (c.finalized) {
    for (const name in headers) c.res.headers.set(name, headers[name] as string)
  } else {
    for (const name in headers) c.header(name, headers[name])
  }
}
