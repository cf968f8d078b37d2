import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { Context } from 'hono'
import { setAnswerHeaders } from './answer-headers.js'
import { matchesEtag } from './etag.js'

/**
 * An answer whose bytes do not change between the writes that change its data (the price list, the
 * JWKS): serialized once into bytes, with a strong ETag of those bytes. Answered, it costs no
 * serialization and no encoding (docs/performance.md, "Prepared answers").
 */
export interface PreparedAnswer {
  readonly body: Uint8Array<ArrayBuffer>
  /** A strong ETag: the first 162 bits of the SHA-256 of `body`, base64url, quoted. */
  readonly etag: string
  readonly contentType: string
  /** What its 200 and its 304 both carry: the ETag, and `Cache-Control: no-cache`. */
  readonly headers: Readonly<Record<string, string>>
}

/** `value` as JSON bytes, with their ETag. */
export function prepareJson(value: unknown): PreparedAnswer {
  const bytes = Buffer.from(JSON.stringify(value))
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`
  return {
    body: new Uint8Array(bytes),
    etag,
    contentType: 'application/json',
    // A client may keep the bytes and must ask again before using them, so a change shows on its next request.
    headers: Object.freeze({ ETag: etag, 'Cache-Control': 'no-cache' }),
  }
}

/** The status of a prepared answer: 304 when the request's `If-None-Match` names its ETag (or is `*`). */
export function preparedStatus(prepared: PreparedAnswer, ifNoneMatch: string | undefined): 200 | 304 {
  return matchesEtag(ifNoneMatch, prepared.etag) ? 304 : 200
}

/**
 * The 200 of a prepared answer, or a 304 with no body when the request's `If-None-Match` names its
 * ETag (or is `*`). Both carry the ETag and `Cache-Control: no-cache`.
 */
export function answerPrepared(c: Context, prepared: PreparedAnswer): Response {
  // On Node's response, as the request id is (server/platform/http/answer-headers.ts): an answer given
  // more than one header of its own would be built with an undici `Headers`.
  setAnswerHeaders(c, prepared.headers)
  if (preparedStatus(prepared, c.req.header('if-none-match')) === 304) return c.body(null, 304)
  return c.body(prepared.body, 200, { 'Content-Type': prepared.contentType })
}

/**
 * The same answer written on Node's response directly (a prepared answer given at the door, before the
 * app: server/areas/operations/answer-at-the-door.ts), with the same bytes as @hono/node-server writes
 * `answerPrepared`'s: the headers in the same order, `Content-Length` by Node from the body.
 */
export function writePrepared(res: ServerResponse, prepared: PreparedAnswer, status: 200 | 304): void {
  for (const name in prepared.headers) res.setHeader(name, prepared.headers[name] as string)
  res.statusCode = status
  if (status === 304) {
    res.end()
    return
  }
  res.setHeader('Content-Type', prepared.contentType)
  res.end(prepared.body)
}
