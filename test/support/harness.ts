import { appendFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../../server/app.js'
import { ensureAdminKey } from '../../server/bootstrap.js'
import { SHARED_CACHE_TTL_MS } from '../../server/platform/caches/auth-cache.js'
import { ManualClock } from './clock.js'
import { AGGREGATES } from '../../server/aggregates.js'
import { type AppContext, type AppContextOptions, createAppContext } from '../../server/pipeline/context.js'
import { type Db, openDatabase, openPostgres } from '../../server/platform/db/database.js'
import type { RedisStateListener } from '../../server/platform/redis/connection.js'
import { jsonLogger } from '../../server/platform/logging/logger.js'
import { ServerMetrics } from '../../server/platform/metrics/metrics.js'
import { connectSharedState, type SharedState } from '../../server/platform/redis/shared-state.js'
import { openKeyCustody } from '../../server/custody.js'
import { MasterKey } from '../../server/platform/signing/master-key.js'
import type { Tier } from '../../src/contract/limits.js'
import {
  assertDialectOfProject,
  createRedisPrefix,
  createTestDatabase,
  TEST_DIALECT,
  TEST_REDIS_URL,
  type TestDialect,
} from './backends.js'
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

/** Calls the API with the admin key unless the options say otherwise. */
export interface ApiCaller {
  adminKey: string
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>
  get<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>
  post<T = any>(path: string, body?: unknown, options?: RequestOptions): Promise<TestResponse<T>>
}

/** One app and its context: the harness's own, or another instance over the same storage. */
export interface TestInstance extends ApiCaller {
  ctx: AppContext
  app: ReturnType<typeof createApp>
  /** Errors this instance logged: a test that expects none can assert this stays empty. */
  loggedErrors: unknown[]
}

export interface Harness extends TestInstance {
  clock: ManualClock
  /** The storage under test: SQLite, or PostgreSQL with Redis (RWA_TEST_DIALECT). */
  dialect: TestDialect
  /** The SQLite file (SQLite only). */
  dbPath: string | undefined
  /** The master key the storage's signing keys are sealed under (every instance's, unless told otherwise). */
  masterKey: MasterKey
  /** Every line the app's logger wrote (JSON), in order (every instance's). */
  logLines: string[]
  /** `logLines` parsed. */
  logRecords(): Record<string, any>[]
  /** Creates an organization through the API and returns its first key. */
  createOrg(
    orgId: string,
    options?: { trial?: boolean; tier?: Tier },
  ): Promise<{ orgId: string; key: string; keyId: string }>
  /**
   * Another instance over the same storage, as a second server process would be: its own context and
   * caches (and, on PostgreSQL, its own connections to the database and Redis), the same clock.
   */
  newInstance(options?: Partial<AppContextOptions>): Promise<TestInstance>
  /** Closes every instance and deletes the storage; throws if any log line holds a key, a signature or a body. */
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

/** Checks one in-process response against /openapi.json; throws naming what does not match. */
async function checkConformance(
  app: ReturnType<typeof createApp>,
  method: string,
  path: string,
  res: Response,
  text: string,
): Promise<void> {
  const verdict = (await conformanceOf(app)).check({
    method,
    path,
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

/** What one instance runs on, and how to close it. */
interface Storage {
  db: Db
  context: Pick<AppContextOptions, 'limits' | 'bus' | 'cacheTtlMs'>
  close(): Promise<void>
}

/**
 * A fresh app over fresh storage with a manual clock and an admin key: each test says only what is
 * particular to it. Requests go through `app.request`, in process, no port. The storage is a new SQLite
 * file, or (in the `postgres` project) a new PostgreSQL database with a Redis key prefix of its own,
 * both removed by `close()`. `backends` points the PostgreSQL half at another Redis (a test's own
 * redis-server, to stop it) and listens to the Redis pieces' outage reports.
 */
export async function createHarness(
  options: Partial<AppContextOptions> = {},
  backends: { redisUrl?: string; onRedisState?: RedisStateListener } = {},
): Promise<Harness> {
  assertDialectOfProject()
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock()
  // One master key per storage, as a deployment has: every instance over it is given the same.
  const masterKey = options.masterKey ?? MasterKey.generate()
  const metrics = new ServerMetrics()
  const onQueryError = (error: unknown) => metrics.databaseError(error)
  // The real logger, writing into memory: every test's log lines are checked for secrets at close().
  const logLines: string[] = []
  const logger = jsonLogger({
    level: 'debug',
    destination: { write: (line) => logLines.push(line.trimEnd()) },
  })
  const sentBodies: string[] = []
  const cleanups: Array<() => Promise<void>> = []
  let dbPath: string | undefined
  let openStorage: () => Promise<Storage>

  if (TEST_DIALECT === 'postgres') {
    const database = await createTestDatabase()
    const redis = createRedisPrefix()
    cleanups.push(
      () => redis.clean(),
      () => database.drop(),
    )
    openStorage = async () => {
      const db = await openPostgres(database.url, { poolSize: 5, onQueryError })
      let shared: SharedState
      try {
        shared = await connectSharedState(backends.redisUrl ?? TEST_REDIS_URL, db, {
          prefix: redis.prefix,
          onState: backends.onRedisState,
        })
      } catch (error) {
        await db.destroy()
        throw error
      }
      return {
        db,
        context: { limits: shared.limits, bus: shared.bus, cacheTtlMs: SHARED_CACHE_TTL_MS },
        async close() {
          await shared.close()
          await db.destroy()
        },
      }
    }
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'rwa-test-'))
    dbPath = join(dir, 'rwa.db')
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
    // Instances in one process share the one SQLite connection, as the embedded server would.
    const db = await openDatabase(dbPath, { onQueryError })
    cleanups.unshift(() => db.destroy())
    openStorage = async () => ({ db, context: {}, close: async () => {} })
  }

  // Closed in reverse order of opening: instances first, then what they ran on.
  const instances: Array<{ ctx: AppContext; storage: Storage }> = []
  const openInstance = async (extra: Partial<AppContextOptions>): Promise<TestInstance> => {
    const storage = await openStorage()
    const loggedErrors: unknown[] = []
    const ctx = createAppContext({
      aggregates: AGGREGATES,
      metrics,
      ...storage.context,
      ...extra,
      masterKey: extra.masterKey ?? masterKey,
      db: storage.db,
      clock,
      logger,
      logError: (message, error) => {
        loggedErrors.push(error ?? message)
        logger.error(error === undefined ? {} : { err: error }, message)
      },
    })
    instances.push({ ctx, storage })
    return instanceOf(ctx, createApp(ctx), loggedErrors, () => adminKey, sentBodies)
  }

  let adminKey = ''
  const first = await openInstance(options)
  // As a start does, before any key is made: the check value that a later start's master key must open.
  await openKeyCustody(first.ctx.db, masterKey, clock, { where: 'the test storage', source: 'the test key' })
  adminKey = (await ensureAdminKey(first.ctx)).printable!
  await first.ctx.signingKeys.ensureServiceKeys()

  const harness: Harness = {
    ...first,
    clock,
    dialect: TEST_DIALECT,
    dbPath,
    masterKey,
    adminKey,
    logLines,
    logRecords: () => logLines.map((line) => JSON.parse(line)),
    newInstance: (extra = {}) => openInstance({ ...options, ...extra }),
    async createOrg(orgId, { trial = false, tier } = {}) {
      const res = await first.request('POST', '/console/billing/keys', {
        body: { org_id: orgId, name: `${orgId}-key`, start_trial: trial },
      })
      if (res.status !== 201) throw new Error(`createOrg ${orgId} failed: ${res.status} ${res.text}`)
      if (tier) {
        const sub = await first.request('POST', '/console/billing/subscription', {
          body: { org_id: orgId, tier },
        })
        if (sub.status !== 200)
          throw new Error(`set tier ${tier} for ${orgId} failed: ${sub.status} ${sub.text}`)
      }
      return { orgId, key: res.body.api_key, keyId: res.body.key_id }
    },
    async close() {
      flushTally()
      for (const { ctx, storage } of instances.reverse()) {
        ctx.publicGate.close()
        await ctx.meter.stop()
        await storage.close()
      }
      for (const cleanup of cleanups) await cleanup()
      assertNoSecretsInLog(logLines, { bodies: sentBodies })
    },
  }
  return harness
}

/** Requests to `app` in process, with the admin key unless the options say otherwise. */
function instanceOf(
  ctx: AppContext,
  app: ReturnType<typeof createApp>,
  loggedErrors: unknown[],
  adminKey: () => string,
  sentBodies: string[],
): TestInstance {
  const caller = apiCaller(
    async (path, init) => {
      if (typeof init.body === 'string') sentBodies.push(init.body)
      return app.request(path, init)
    },
    adminKey,
    (method, path, res, text) => checkConformance(app, method, path, res, text),
  )
  return {
    ctx,
    app,
    loggedErrors,
    get adminKey() {
      return adminKey()
    },
    request: caller.request,
    get: caller.get,
    post: caller.post,
  }
}

/**
 * A response's body as text; of an event stream (which does not end), its opening frame only, the
 * stream then cancelled. A test that reads events opens the stream itself (test/support/event-stream.ts).
 */
async function bodyText(res: Response): Promise<string> {
  if (!res.headers.get('content-type')?.startsWith('text/event-stream') || !res.body) return res.text()
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (!text.includes('\n\n')) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
  }
  await reader.cancel()
  return text
}

/**
 * Requests through `send` (an app in process, or fetch to a real server), with `adminKey()` unless
 * the options name another key (or `key: null` for none); the body is parsed when it is JSON.
 */
export function apiCaller(
  send: (pathAndQuery: string, init: RequestInit) => Promise<Response>,
  adminKey: () => string,
  inspect?: (method: string, path: string, res: Response, text: string) => Promise<void>,
): ApiCaller {
  const request = async (method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> => {
    const url = new URL(path, 'http://rwa.test')
    for (const [name, value] of Object.entries(opts.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value))
    }
    const headers: Record<string, string> = { ...opts.headers }
    const key = opts.key === undefined ? adminKey() : opts.key
    if (key !== null) headers['X-API-Key'] = key
    let body: string | undefined = opts.rawBody
    if (opts.body !== undefined) body = JSON.stringify(opts.body)
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = 'application/json'
    }
    const res = await send(url.pathname + url.search, { method, headers, body })
    const text = await bodyText(res)
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {}
    await inspect?.(method, url.pathname, res, text)
    return { status: res.status, headers: res.headers, body: parsed, text }
  }
  return {
    get adminKey() {
      return adminKey()
    },
    request,
    get: (path, opts) => request('GET', path, opts),
    post: (path, body, opts) => request('POST', path, { ...opts, body }),
  }
}

/** Every row of every table of the harness's database, as JSON text (what the storage holds). */
export async function everyStoredRow(h: Harness): Promise<string> {
  const tables = await h.ctx.db.introspection.getTables()
  const rows: unknown[] = []
  for (const table of tables) {
    rows.push(await (h.ctx.db as any).selectFrom(table.name).selectAll().execute())
  }
  return JSON.stringify(rows)
}
