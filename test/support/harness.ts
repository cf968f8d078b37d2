import { appendFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Tier } from '../../src/contract/limits.js'
import { createApp } from '../../server/app.js'
import { ensureAdminKey } from '../../server/bootstrap.js'
import { ManualClock } from '../../server/clock.js'
import { type AppContext, type AppContextOptions, createAppContext } from '../../server/context.js'
import { openDatabase } from '../../server/db/database.js'
import { jsonLogger } from '../../server/logging/logger.js'
import { ServerMetrics } from '../../server/metrics/metrics.js'
import { assertNoSecretsInLog } from './log-check.js'
import { OpenApiConformance } from './openapi-conformance.js'

export interface TestResponse<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface RequestOptions {
  key?: string | null
  body?: unknown
  /** Sent as is, with no JSON encoding (for malformed-body tests). */
  rawBody?: string
  query?: Record<string, string | number | boolean | undefined>
  headers?: Record<string, string>
}

export interface Harness {
  ctx: AppContext
  app: ReturnType<typeof createApp>
  clock: ManualClock
  dbPath: string
  adminKey: string
  /** Errors the app logged: a test that expects none can assert this stays empty. */
  loggedErrors: unknown[]
  /** Every line the app's logger wrote (JSON), in order. */
  logLines: string[]
  /** `logLines` parsed. */
  logRecords(): Record<string, any>[]
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>
  get<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>
  post<T = any>(path: string, body?: unknown, options?: RequestOptions): Promise<TestResponse<T>>
  /** Creates an organization through the API and returns its first key. */
  createOrg(
    orgId: string,
    options?: { trial?: boolean; tier?: Tier },
  ): Promise<{ orgId: string; key: string; keyId: string }>
  /** Closes the app and deletes its database; throws if any log line holds a key, a signature or a body. */
  close(): Promise<void>
}

/*
 * Every response the HTTP suite receives is checked against the served OpenAPI document (status
 * declared, content type, body schema, required headers): a response the document does not describe
 * fails the test that received it. What was checked is tallied for test/support/global-setup.ts.
 */
let conformance: Promise<OpenApiConformance> | undefined
const tally = { checked: 0, skipped: 0, answers: new Set<string>() }

function conformanceOf(app: ReturnType<typeof createApp>): Promise<OpenApiConformance> {
  conformance ??= (async () => new OpenApiConformance(await (await app.request('/openapi.json')).json()))()
  return conformance
}

/** Adds this process's tally to the directory global-setup.ts reads at the end of the run. */
function flushTally(): void {
  const dir = process.env.RWA_TEST_CONFORMANCE_DIR
  if (!dir || tally.checked + tally.skipped === 0) return
  const line = { checked: tally.checked, skipped: tally.skipped, answers: [...tally.answers] }
  appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`)
  tally.checked = 0
  tally.skipped = 0
  tally.answers.clear()
}

/**
 * A fresh app over a fresh SQLite file with a manual clock and an admin key: each test says only what
 * is particular to it. Requests go through `app.request`, in process, no port.
 */
export async function createHarness(options: Partial<AppContextOptions> = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'rwa-test-'))
  const dbPath = join(dir, 'rwa.db')
  const metrics = new ServerMetrics()
  const db = await openDatabase(dbPath, { onQueryError: (error) => metrics.databaseError(error) })
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock()
  const loggedErrors: unknown[] = []
  // The real logger, writing into memory: every test's log lines are checked for secrets at close().
  const logLines: string[] = []
  const logger = jsonLogger({
    level: 'debug',
    destination: { write: (line) => logLines.push(line.trimEnd()) },
  })
  const sentBodies: string[] = []
  const ctx = createAppContext({
    metrics,
    ...options,
    db,
    clock,
    logger,
    logError: (message, error) => {
      loggedErrors.push(error ?? message)
      logger.error(error === undefined ? {} : { err: error }, message)
    },
  })
  const admin = await ensureAdminKey(ctx)
  const adminKey = admin.printable!
  const app = createApp(ctx)

  const request = async (method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> => {
    const url = new URL(path, 'http://rwa.test')
    for (const [name, value] of Object.entries(opts.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value))
    }
    const headers: Record<string, string> = { ...opts.headers }
    const key = opts.key === undefined ? adminKey : opts.key
    if (key !== null) headers['X-API-Key'] = key
    let body: string | undefined = opts.rawBody
    if (opts.body !== undefined) body = JSON.stringify(opts.body)
    if (body !== undefined) sentBodies.push(body)
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = 'application/json'
    }
    const res = await app.request(url.pathname + url.search, { method, headers, body })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {}
    const verdict = (await conformanceOf(app)).check({
      method,
      path: url.pathname,
      status: res.status,
      headers: res.headers,
      text,
    })
    if (verdict.kind === 'skipped') tally.skipped++
    else {
      tally.checked++
      tally.answers.add(verdict.operation)
      if (verdict.problems.length > 0) {
        throw new Error(
          `${verdict.operation} does not match /openapi.json: ${verdict.problems.join('; ')}\n${text.slice(0, 500)}`,
        )
      }
    }
    return { status: res.status, headers: res.headers, body: parsed, text }
  }

  const harness: Harness = {
    ctx,
    app,
    clock,
    dbPath,
    adminKey,
    loggedErrors,
    logLines,
    logRecords: () => logLines.map((line) => JSON.parse(line)),
    request,
    get: (path, opts) => request('GET', path, opts),
    post: (path, body, opts) => request('POST', path, { ...opts, body }),
    async createOrg(orgId, { trial = false, tier } = {}) {
      const res = await request('POST', '/console/billing/keys', {
        body: { org_id: orgId, name: `${orgId}-key`, start_trial: trial },
      })
      if (res.status !== 201) throw new Error(`createOrg ${orgId} failed: ${res.status} ${res.text}`)
      if (tier) {
        const sub = await request('POST', '/console/billing/subscription', { body: { org_id: orgId, tier } })
        if (sub.status !== 200)
          throw new Error(`set tier ${tier} for ${orgId} failed: ${sub.status} ${sub.text}`)
      }
      return { orgId, key: res.body.api_key, keyId: res.body.key_id }
    },
    async close() {
      flushTally()
      await ctx.meter.stop()
      await db.destroy()
      rmSync(dir, { recursive: true, force: true })
      assertNoSecretsInLog(logLines, { bodies: sentBodies })
    },
  }
  return harness
}
