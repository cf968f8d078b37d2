import { createHash } from 'node:crypto'
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
}

/** `value` as JSON bytes, with their ETag. */
export function prepareJson(value: unknown): PreparedAnswer {
  const bytes = Buffer.from(JSON.stringify(value))
  return {
    body: new Uint8Array(bytes),
    etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
    contentType: 'application/json',
  }
}

/**
 * The 200 of a prepared answer, or a 304 with no body when the request's `If-None-Match` names its
 * ETag (or is `*`). Both carry the ETag and `Cache-Control: no-cache`: a client may keep the bytes and
 * must ask again before using them, so a change shows on its next request.
 */
export function answerPrepared(c: Context, prepared: PreparedAnswer): Response {
  // On Node's response, as the request id is (server/platform/http/answer-headers.ts): an answer given
  // more than one header of its own would be built with an undici `Headers`.
  setAnswerHeaders(c, { ETag: prepared.etag, 'Cache-Control': 'no-cache' })
  const ifNoneMatch = c.req.header('if-none-match')
  if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, prepared.etag)) return c.body(null, 304)
  return c.body(prepared.body, 200, { 'Content-Type': prepared.contentType })
}
