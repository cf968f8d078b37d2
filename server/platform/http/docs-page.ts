import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Env, Hono } from 'hono'

/*
 * GET /docs: the API reference for people, rendered in the browser by Swagger UI from /openapi.json.
 * Swagger UI's files come from the installed swagger-ui-dist package and are served by this server
 * (no CDN), so the page works with no internet; its Content-Security-Policy keeps it from loading
 * anything from elsewhere.
 */

const require = createRequire(import.meta.url)
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'))
const SWAGGER_UI_VERSION: string = require('swagger-ui-dist/package.json').version

/** Where Swagger UI's files are served; the version in the path lets browsers cache them for good. */
const ASSET_BASE = `/docs/swagger-ui/${SWAGGER_UI_VERSION}`

/*
 * The page names its files relative to itself (`docs/...` from `/docs`), and the document relative
 * to it (`openapi.json`), never from the root: behind a reverse proxy that serves the API under a
 * path prefix (`https://example.com/rwa/docs`), they resolve under that prefix too.
 */
const ASSETS_FROM_PAGE = ASSET_BASE.slice(1)

const ASSET_TYPES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>rwa API reference</title>
    <link rel="stylesheet" href="${ASSETS_FROM_PAGE}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${ASSETS_FROM_PAGE}/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${ASSETS_FROM_PAGE}/swagger-ui-bundle.js"></script>
    <script src="docs/init.js"></script>
  </body>
</html>
`

// validatorUrl: null keeps Swagger UI from sending the document to validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  validatorUrl: null,
})
`

/** Only this server: scripts and styles from here, the API calls of "Try it out" to here. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

interface Asset {
  type: string
  body: Uint8Array<ArrayBuffer>
  gzipped: Uint8Array<ArrayBuffer>
}

/** A copy with its own ArrayBuffer (Node's Buffers may share a pool), as a Response body wants it. */
const bytes = (buffer: Buffer): Uint8Array<ArrayBuffer> => new Uint8Array(buffer)

/** Registers GET /docs, its initializer and Swagger UI's files (read and compressed on first use). */
export function registerDocsPage<E extends Env>(app: Hono<E>): void {
  const assets = new Map<string, Asset>()
  const assetOf = (file: string): Asset | undefined => {
    const type = ASSET_TYPES[file]
    if (!type) return undefined
    let asset = assets.get(file)
    if (!asset) {
      const body = readFileSync(join(SWAGGER_UI_DIR, file))
      asset = { type, body: bytes(body), gzipped: bytes(gzipSync(body)) }
      assets.set(file, asset)
    }
    return asset
  }

  app.get('/docs', (c) =>
    c.html(PAGE, 200, { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'Cache-Control': 'no-cache' }),
  )
  app.get('/docs/init.js', (c) =>
    c.body(INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }),
  )
  app.get(`${ASSET_BASE}/:file`, (c) => {
    const asset = assetOf(c.req.param('file'))
    if (!asset) return c.notFound()
    const gzip = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '')
    return c.body(gzip ? asset.gzipped : asset.body, 200, {
      'Content-Type': asset.type,
      'Cache-Control': 'public, max-age=31536000, immutable',
      Vary: 'Accept-Encoding',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    })
  })
}
