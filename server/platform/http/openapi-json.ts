import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Env } from 'hono'
import { matchesEtag } from './etag.js'
import { OPENAPI_DOCUMENT } from './openapi.js'

/*
 * GET /openapi.json, built once per process (README.md, "The HTTP API"): generating the document takes tens
 * of milliseconds of CPU and it cannot change while the process runs, so the first request builds it (and
 * its gzip) and every later one is served from memory with a strong ETag; `If-None-Match` with that ETag
 * answers 304 with no body.
 */

interface Built {
  etag: string
  body: Uint8Array<ArrayBuffer>
  gzipped: Uint8Array<ArrayBuffer>
}

/** Registers GET /openapi.json on `app`, the document generated from the routes `app` has by then. */
export function registerOpenApiJson<E extends Env>(app: OpenAPIHono<E>): void {
  let built: Built | undefined
  const build = (): Built => {
    const json = Buffer.from(JSON.stringify(app.getOpenAPI31Document(OPENAPI_DOCUMENT)))
    const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`
    return { etag, body: new Uint8Array(json), gzipped: new Uint8Array(gzipSync(json)) }
  }
  app.get('/openapi.json', (c) => {
    built ??= build()
    const headers = { ETag: built.etag, 'Cache-Control': 'no-cache', Vary: 'Accept-Encoding' }
    if (matchesEtag(c.req.header('if-none-match'), built.etag)) return c.body(null, 304, headers)
    const gzip = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '')
    return c.body(gzip ? built.gzipped : built.body, 200, {
      ...headers,
      'Content-Type': 'application/json',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    })
  })
}
