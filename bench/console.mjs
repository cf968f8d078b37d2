#!/usr/bin/env node
// `node bench/console.mjs [--runs 15]`: what the console costs a browser (docs/console.md, "The stack"):
// the size of its script and stylesheet as served (gzip), and, in Debian's Chromium against
// `rwa sandbox --demo`, the time from navigation to the first page's heading, with an empty cache (a new
// browser profile each run) and with the files cached. Medians over the runs; `npm run build` first.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' } } })
const RUNS = Number(values.runs)
const CHROMIUM = process.env.RWA_CHROMIUM ?? '/usr/bin/chromium'
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const dir = mkdtempSync(join(tmpdir(), 'rwa-console-bench-'))
const urlFile = join(dir, 'url')
const sandbox = spawn(
  process.execPath,
  [join(ROOT, 'bin/rwa'), 'sandbox', '--demo', '--port', '0', '--json', '--url-file', urlFile],
  {
    stdio: ['ignore', 'pipe', 'ignore'],
  },
)
let stdout = ''
sandbox.stdout.on('data', (chunk) => (stdout += chunk))
try {
  for (let waited = 0; !existsSync(urlFile); waited += 100) {
    if (waited > 60_000) throw new Error('the sandbox did not start in 60 s')
    await new Promise((r) => setTimeout(r, 100))
  }
  while (!stdout.trim().endsWith('}')) await new Promise((r) => setTimeout(r, 50))
  const info = JSON.parse(stdout)
  const url = info.url

  const manifest = JSON.parse(readFileSync(join(ROOT, 'dist/console/manifest.json'), 'utf8'))
  const size = (file) => {
    const body = readFileSync(join(ROOT, 'dist/console', file))
    return { bytes: body.length, gzip: gzipSync(body, { level: 9 }).length }
  }
  const preact = ['preact/dist/preact.mjs', 'preact/hooks/dist/hooks.mjs']
    .map((f) => gzipSync(readFileSync(join(ROOT, 'node_modules', f)), { level: 9 }).length)
    .reduce((a, b) => a + b, 0)

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--no-first-run',
    ],
  })
  const heading = (page, name) => page.getByRole('heading', { name, level: 1 }).waitFor()
  // When the page's first heading entered the document (ms since navigation), recorded in the page
  // itself rather than by polling it from here.
  const since = (page) => page.evaluate(() => window.__rwaHeadingAt)
  const watchHeading = () => {
    const seen = () => {
      if (window.__rwaHeadingAt === undefined && document.querySelector('h1'))
        window.__rwaHeadingAt = performance.now()
    }
    new MutationObserver(seen).observe(document, { subtree: true, childList: true })
  }
  const cold = { signIn: [], overview: [], firstPaint: [] }
  const warm = { overview: [], transfers: [] }
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    await context.addInitScript(watchHeading)
    const page = await context.newPage()
    await page.goto(`${url}/console/ui/`)
    await heading(page, 'Sign in')
    cold.signIn.push(await since(page))
    cold.firstPaint.push(
      await page.evaluate(
        () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
      ),
    )
    await page.getByLabel('API key').fill(info.admin_key)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await heading(page, 'Overview')
    // Signed in, a reload: the page, its files (cached), the session and the key read back.
    await page.goto(`${url}/console/ui/`)
    await heading(page, 'Overview')
    warm.overview.push(await since(page))
    await page.goto(`${url}/console/ui/transfers`)
    await heading(page, 'Transfers')
    warm.transfers.push(await since(page))
    await context.close()
  }
  await browser.close()
  const ms = (xs) => Math.round(median(xs))
  const report = {
    script: size(manifest.script),
    style: size(manifest.style),
    preact_gzip: preact,
    runs: RUNS,
    median_ms: {
      sign_in_first_contentful_paint_empty_cache: ms(cold.firstPaint),
      sign_in_heading_empty_cache: ms(cold.signIn),
      overview_heading_signed_in: ms(warm.overview),
      transfers_heading_signed_in: ms(warm.transfers),
    },
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
} finally {
  sandbox.kill('SIGTERM')
  rmSync(dir, { recursive: true, force: true })
}
