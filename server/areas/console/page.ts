import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import type { Env, Hono } from 'hono'
import { CONSOLE_BASE, isConsolePage } from '../../../src/contract/console-constants.js'
import type { AppContext } from '../../pipeline/context.js'
import { sessionSecretOf } from '../../platform/http/session-cookie.js'
import { publicRateLimit } from '../../pipeline/limits/public-limit.js'

/*
 * The console's page (docs/console.md): one HTML shell for every page URL, and the files `npm run build`
 * made into dist/console (rolldown.config.mjs), named by their content's hash and so cached for good.
 * Nothing is fetched from elsewhere: the Content-Security-Policy allows this server only, with no inline
 * script or style at all.
 */

/** Only this server, and nothing inline: the page's script and style are files of the build. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** Headers of the shell: the policy, no caching of it (its asset names change with each build). */
const PAGE_HEADERS = {
  'Content-Security-Policy': CONSOLE_CSP,
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
}

/** What the build wrote beside its files: the hashed names of the page's script and style. */
interface ConsoleManifest {
  script: string
  style: string
}

interface Asset {
  type: string
  body: Uint8Array<ArrayBuffer>
  gzipped: Uint8Array<ArrayBuffer>
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}

/** dist/console of this package, found from this file whether it runs from server/ or dist/server/. */
function consoleDistDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  return join(dir, 'dist', 'console')
}

/**
 * The shell. `data-session` says whether the request carried a session cookie at all: without one the
 * page draws the sign-in form at once instead of asking the server first (whether a cookie is still
 * good, only the server can say, so the page asks then).
 */
const shell = (manifest: ConsoleManifest, cookie: boolean) => `<!doctype html>
<html lang="en" data-session="${cookie ? 'cookie' : 'none'}">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>rwa console</title>
    <link rel="stylesheet" href="${CONSOLE_BASE}/assets/${manifest.style}">
    <script type="module" src="${CONSOLE_BASE}/assets/${manifest.script}"></script>
  </head>
  <body>
    <div id="app"></div>
    <noscript><p>The rwa console needs JavaScript; the API and the rwa CLI work without it.</p></noscript>
  </body>
</html>
`

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rwa console</title></head>
<body><main><h1>The console is not built</h1>
<p>Its files are made by <code>npm run build</code> (run by <code>npm install</code>) into dist/console.</p>
</main></body></html>
`

const bytes = (buffer: Buffer | string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(buffer))

/**
 * Registers the console's shell at `/console/ui/` and each of its pages' URLs, and its files at
 * `/console/ui/assets/`. They are public (the page signs in itself), behind the same per-client bucket
 * as /docs. An unknown page's URL answers the shell with 404, which shows "Page not found".
 */
export function registerConsolePage<E extends Env>(app: Hono<E>, ctx: AppContext): void {
  const dir = consoleDistDir()
  let manifest: ConsoleManifest | undefined
  const assets = new Map<string, Asset>()
  /** The build's manifest, read once it exists (a server started before the build reads it later). */
  const manifestOf = (): ConsoleManifest | undefined => {
    if (manifest) return manifest
    const file = join(dir, 'manifest.json')
    if (!existsSync(file)) return undefined
    manifest = JSON.parse(readFileSync(file, 'utf8')) as ConsoleManifest
    return manifest
  }
  const assetOf = (name: string): Asset | undefined => {
    const known = manifestOf()
    // Only the files the build names: nothing else of the directory (nor beyond it) is served.
    if (!known || (name !== known.script && name !== known.style)) return undefined
    let asset = assets.get(name)
    if (!asset) {
      const body = readFileSync(join(dir, name))
      const type = TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream'
      asset = { type, body: bytes(body), gzipped: bytes(gzipSync(body, { level: 9 })) }
      assets.set(name, asset)
    }
    return asset
  }

  const publicLimit = publicRateLimit(ctx)
  app.use(`${CONSOLE_BASE}`, publicLimit)
  app.use(`${CONSOLE_BASE}/assets/*`, publicLimit)

  app.get(`${CONSOLE_BASE}/assets/:file`, (c) => {
    const asset = assetOf(c.req.param('file'))
    if (!asset) return c.notFound()
    const gzip = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '')
    return c.body(gzip ? asset.gzipped : asset.body, 200, {
      'Content-Type': asset.type,
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    })
  })

  app.get(CONSOLE_BASE, (c) => c.redirect(`${CONSOLE_BASE}/`, 301))
  app.get(`${CONSOLE_BASE}/*`, publicLimit, (c) => {
    const known = manifestOf()
    if (!known) return c.html(NOT_BUILT, 503, PAGE_HEADERS)
    const path = c.req.path.slice(CONSOLE_BASE.length + 1)
    const cookie = sessionSecretOf(c.req.header('cookie')) !== undefined
    return c.html(shell(known, cookie), isConsolePage(path) ? 200 : 404, PAGE_HEADERS)
  })
}
