import type { Context, MiddlewareHandler } from 'hono'

/*
 * The headers every answer of a request carries (`X-Request-Id`, and after authentication the
 * RateLimit headers) are gathered in a plain object, and `c.json` / `c.body` build the answer with
 * plain headers. Hono would otherwise hold them in a WHATWG `Headers` (undici: each `set` validated
 * and converted, the list sorted on every read) and @hono/node-server would copy that into an object
 * for Node: about 4–9 µs a request in the benchmark's profile and a micro-benchmark, a sixth of
 * `GET /console/billing/pricing`. The bytes on the wire are the same: names in lower case, sorted as
 * `Headers` sorts them, then `Content-Length`, as before.
 */

/** Hono's default type of a body given without one (as @hono/node-server sends it). */
const TEXT_PLAIN = 'text/plain; charset=UTF-8'

type HeaderRecord = Record<string, string>

/** Responses built here, which already carry the request's answer headers. */
const built = new WeakSet<Response>()

/** The answer headers of this request (lower-case names); empty before `answerHeaders()` ran. */
export function answerHeadersOf(c: Context): HeaderRecord {
  return (c.get('answerHeaders') as HeaderRecord | undefined) ?? {}
}

/** Adds headers every answer of this request carries from now on, refusals included. */
export function addAnswerHeaders(c: Context, headers: HeaderRecord): void {
  const bag = c.get('answerHeaders') as HeaderRecord | undefined
  if (bag === undefined) return
  for (const name in headers) bag[name.toLowerCase()] = headers[name] as string
}

/** A response with `body`, `status` and these headers (names lower-cased, sorted), plus Content-Length. */
function plainResponse(body: string | null, status: number, headers: HeaderRecord): Response {
  if (body !== null) headers['content-type'] ??= TEXT_PLAIN
  const sorted: Record<string, string | number> = {}
  for (const name of Object.keys(headers).sort()) sorted[name] = headers[name] as string
  if (body !== null) sorted['Content-Length'] = Buffer.byteLength(body)
  const response = new Response(body, { status, headers: sorted as HeaderRecord })
  built.add(response)
  return response
}

/** Whether a call of `c.body(data, arg, headers)` is one the plain path answers as Hono would. */
function plain(data: unknown, arg: unknown, headers: unknown, c: Context): boolean {
  if (c.finalized || (data !== null && typeof data !== 'string')) return false
  if (arg !== undefined && typeof arg !== 'number') return false
  if (headers === undefined) return true
  if (headers === null || typeof headers !== 'object') return false
  for (const name in headers) if (typeof (headers as HeaderRecord)[name] !== 'string') return false
  return true
}

/**
 * The first middleware: gives the request its plain answer headers and makes `c.json` and `c.body`
 * answer with them (any other call — a stream, a `ResponseInit`, a list of values — goes to Hono's
 * own). `finish()` adds them to a response built some other way (`c.html`, a Response returned as is).
 */
export function answerHeaders(): MiddlewareHandler {
  return async function plainAnswers(c, next) {
    const bag: HeaderRecord = {}
    c.set('answerHeaders', bag)
    const honoBody = c.body
    const honoJson = c.json
    const body = (data: string | null, arg?: number, headers?: HeaderRecord): Response => {
      if (!plain(data, arg, headers, c)) return honoBody(data as never, arg as never, headers as never)
      const merged = { ...bag }
      if (headers !== undefined)
        for (const name in headers) merged[name.toLowerCase()] = headers[name] as string
      return plainResponse(data, arg ?? 200, merged)
    }
    c.body = body as typeof c.body
    c.json = ((object: unknown, arg?: number, headers?: HeaderRecord) => {
      if (!plain(null, arg, headers, c)) return honoJson(object as never, arg as never, headers as never)
      return body(JSON.stringify(object), arg, { 'Content-Type': 'application/json', ...headers })
    }) as typeof c.json
    await next()
    if (!built.has(c.res)) for (const name in bag) c.res.headers.set(name, bag[name] as string)
  }
}
