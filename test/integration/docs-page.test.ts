import { existsSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROUTES } from '../../src/contract/routes.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'

/*
 * GET /docs in a real browser: Debian's Chromium, headless, driven by playwright-core, against the real
 * server process, with every request that leaves loopback refused. It must render every operation of
 * /openapi.json from the server's own copy of Swagger UI. Without Chromium the test is skipped (saying
 * how to install it), except in CI (CI=true), where a missing browser is a failure.
 */

const CHROMIUM = process.env.RWA_CHROMIUM ?? '/usr/bin/chromium'
const HAVE_CHROMIUM = existsSync(CHROMIUM)
const IN_CI = process.env.CI === 'true'
if (!HAVE_CHROMIUM && !IN_CI) {
  process.stderr.write(
    `test/integration/docs-page.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set RWA_CHROMIUM)\n`,
  )
}

/** The flags DEPENDENCIES.md gives for Debian's Chromium, and no name resolution but loopback. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
]

const isLoopback = (url: string) => ['127.0.0.1', '[::1]', 'localhost'].includes(new URL(url).hostname)

describe.skipIf(!HAVE_CHROMIUM && !IN_CI)(
  'GET /docs in Chromium (skipped without it: apt-get install chromium)',
  // Swagger UI draws every operation (~20 s alone on the 2-core machine, more beside other test files).
  { timeout: 120_000 },
  () => {
    let server: ServerProcess
    let browser: Browser
    beforeAll(async () => {
      if (!HAVE_CHROMIUM) throw new Error(`CI=true but no Chromium at ${CHROMIUM}: apt-get install chromium`)
      server = await startServerProcess()
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
    })
    afterAll(async () => {
      await browser?.close()
      await server?.cleanup()
    })

    it('renders every operation of /openapi.json offline, with nothing fetched from outside', async () => {
      const context = await browser.newContext()
      const refused: string[] = []
      await context.route('**/*', (route) => {
        const url = route.request().url()
        if (isLoopback(url) || url.startsWith('data:')) return route.continue()
        refused.push(url)
        return route.abort('blockedbyclient')
      })
      const page = await context.newPage()
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console error: ${message.text()}`)
      })
      const failed: string[] = []
      page.on('requestfailed', (request) => failed.push(request.url()))

      const res = await page.goto(`${server.url}/docs`)
      expect(res?.status()).toBe(200)
      expect(res?.headers()['content-security-policy']).toContain("default-src 'none'")
      await page.waitForSelector('.opblock', { timeout: 60_000 })

      const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { operationId: string }>>
      }
      const documented = Object.entries(doc.paths)
        .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
        .sort()
      const rendered = (
        await page
          .locator('.opblock-summary')
          .evaluateAll((summaries) =>
            summaries.map(
              (s) =>
                `${s.querySelector('.opblock-summary-method')?.textContent} ${s.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
            ),
          )
      ).sort()
      expect(rendered).toEqual(documented)
      // Every operation of the route table, not only some of them (an empty page would equal an empty list).
      expect(rendered).toHaveLength(Object.keys(ROUTES).length)
      await expect(page.locator('.info .title').innerText()).resolves.toContain('rwa')

      // An operation opens on its example request body, taken from the contract's examples.
      await page.locator('#operations-billing-createKey .opblock-summary').click()
      await expect(
        page.locator('#operations-billing-createKey .body-param__example').innerText(),
      ).resolves.toContain('"start_trial": true')

      expect(refused).toEqual([])
      expect(failed).toEqual([])
      expect(problems).toEqual([])
      await context.close()
    })

    it('renders behind a reverse proxy that serves the API under a path prefix (/rwa/docs)', async () => {
      // The proxy passes /rwa/... on as /...; anything else never reached the server through it.
      const upstream = new URL(server.url)
      const outside: string[] = []
      const proxy: Server = createServer((incoming, answer) => {
        const url = incoming.url ?? '/'
        if (!url.startsWith('/rwa/')) {
          outside.push(url)
          answer.writeHead(404).end()
          return
        }
        const forward = request(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: incoming.method,
            path: url.slice('/rwa'.length),
            headers: incoming.headers,
          },
          (response) => {
            answer.writeHead(response.statusCode ?? 502, response.headers)
            response.pipe(answer)
          },
        )
        incoming.pipe(forward)
      })
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
      try {
        const context = await browser.newContext()
        const page = await context.newPage()
        const failed: string[] = []
        page.on('requestfailed', (r) => failed.push(r.url()))
        page.on('response', (r) => {
          if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`)
        })
        const res = await page.goto(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/rwa/docs`)
        expect(res?.status()).toBe(200)
        await page.waitForSelector('.opblock', { timeout: 60_000 })
        expect(await page.locator('.opblock-summary').count()).toBe(Object.keys(ROUTES).length)
        expect(outside).toEqual([])
        expect(failed).toEqual([])
        await context.close()
      } finally {
        await new Promise((resolve) => proxy.close(resolve))
      }
    })

    it('serves Swagger UI from the installed package, compressed and cacheable', async () => {
      const html = await (await fetch(`${server.url}/docs`)).text()
      const script = /src="(docs\/swagger-ui\/[^"]+\/swagger-ui-bundle\.js)"/.exec(html)?.[1]
      expect(script).toBeDefined()
      const res = await fetch(`${server.url}/${script}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-encoding')).toBe('gzip')
      expect(res.headers.get('cache-control')).toContain('immutable')
      expect((await res.text()).length).toBeGreaterThan(1_000_000)
      // Only Swagger UI's own files are served from its directory.
      const base = script!.replace(/\/swagger-ui-bundle\.js$/, '')
      for (const other of ['package.json', 'index.html', '..%2F..%2Fpackage.json']) {
        expect((await fetch(`${server.url}/${base}/${other}`)).status, other).toBe(404)
      }
    })
  },
)
