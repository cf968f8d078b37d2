import { mkdtempSync, rmSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { Kysely, Migrator, SqliteDialect } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createApp } from '../../../server/app.js'
import { AGGREGATES } from '../../../server/aggregates.js'
import { createAppContext } from '../../../server/pipeline/context.js'
import { type Db, migrate } from '../../../server/platform/db/database.js'
import { billing } from '../../../server/platform/db/migrations/0001-billing.js'
import { migrations } from '../../../server/platform/db/migrations/index.js'
import type { Database } from '../../../server/platform/db/schema.js'
import { databaseCheck, type ReadinessCheck } from '../../../server/platform/health/readiness.js'
import { type Harness, createHarness } from '../../support/harness.js'
import { TEST_DIALECT } from '../../support/backends.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

/** A second app over `db`, logging into the harness's log (so its lines are checked too). */
async function readyzOf(db: Db, readinessChecks?: ReadinessCheck[]) {
  const app = createApp(
    createAppContext({
      db,
      aggregates: AGGREGATES,
      masterKey: h.masterKey,
      clock: h.clock,
      logger: h.ctx.logger,
      readinessChecks,
    }),
  )
  const res = await app.request('/readyz')
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any }
}

describe('GET /healthz', () => {
  it('answers 200 without a key, with a request id and no caching', async () => {
    const res = await h.get('/healthz', { key: null })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'ok' })
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(res.headers.get('cache-control')).toBe('no-store')
  })

  it('still answers 200 while the server drains', async () => {
    h.ctx.readiness.drain()
    expect((await h.get('/healthz', { key: null })).status).toBe(200)
  })
})

describe('GET /readyz', () => {
  it('is ready over a migrated database, naming each check', async () => {
    const res = await h.get('/readyz', { key: null })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      status: 'ready',
      checks: [
        { name: 'database', ready: true },
        { name: 'migrations', ready: true },
      ],
    })
  })

  it('is not rate limited: an organization past its limit still gets its probe answered', async () => {
    const org = await h.createOrg('probe-free')
    for (let i = 0; i < 60; i++) await h.get('/console/billing/usage/probe-free', { key: org.key })
    expect((await h.get('/console/billing/usage/probe-free', { key: org.key })).status).toBe(429)
    const probe = await h.get('/readyz', { key: org.key })
    expect(probe.status).toBe(200)
    expect(probe.headers.get('ratelimit-remaining')).toBeNull()
  })

  it('answers 503 problem details naming pending migrations, then 200 once they ran', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rwa-ready-'))
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new SQLite(join(dir, 'old.db')) }),
    })
    try {
      const onlyFirst = { getMigrations: async () => ({ '0001-billing': billing }) }
      expect((await new Migrator({ db, provider: onlyFirst }).migrateToLatest()).error).toBeUndefined()

      const pending = `pending: ${Object.keys(migrations).slice(1).join(', ')}`
      expect(pending).toMatch(/^pending: 0002-governance, /)
      const before = await readyzOf(db)
      expect(before.status).toBe(503)
      expect(before.type).toBe('application/problem+json')
      expect(before.body).toMatchObject({
        status: 503,
        code: 'unavailable',
        detail: `Not ready: migrations (${pending})`,
        checks: [
          { name: 'database', ready: true },
          { name: 'migrations', ready: false, detail: pending },
        ],
      })
      expect(before.body.request_id).toEqual(expect.any(String))

      await migrate(db)
      expect((await readyzOf(db)).status).toBe(200)
    } finally {
      await db.destroy()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('answers 503 naming the database when its connection fails, without the error in the answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rwa-ready-'))
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new SQLite(join(dir, 'x.db')) }),
    })
    await migrate(db)
    await db.destroy() // every statement now fails: the database no longer answers
    try {
      const res = await readyzOf(db)
      expect(res.status).toBe(503)
      expect(res.body.checks).toEqual([
        { name: 'database', ready: false, detail: 'did not answer' },
        { name: 'migrations', ready: false, detail: 'did not answer' },
      ])
      expect(res.body.detail).toBe('Not ready: database (did not answer); migrations (did not answer)')
      // The reason is in the log, for the operator.
      const warnings = h.logRecords().filter((r) => r.level === 'warn' && r.check === 'database')
      expect(warnings).toHaveLength(1)
      expect(warnings[0]!.err.message).toMatch(/destroyed|closed|not open/i)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.runIf(TEST_DIALECT === 'sqlite')(
    'answers 503 when the SQLite file it opened was deleted under it',
    async () => {
      const check = databaseCheck(h.ctx.db, h.dbPath)
      expect((await readyzOf(h.ctx.db, [check])).status).toBe(200)
      for (const suffix of ['', '-wal', '-shm']) unlinkSync(`${h.dbPath}${suffix}`)
      // SQLite still answers from the open handle; the file check is what notices.
      const res = await readyzOf(h.ctx.db, [check])
      expect(res.status).toBe(503)
      expect(res.body.checks).toEqual([
        { name: 'database', ready: false, detail: 'the database file is gone' },
      ])
    },
  )

  it('takes extra checks: a failing one is named, its details only logged', async () => {
    const upstream: ReadinessCheck = {
      name: 'upstream',
      check: () => Promise.reject(new Error('connect ECONNREFUSED 10.9.8.7:6379')),
    }
    const res = await readyzOf(h.ctx.db, [databaseCheck(h.ctx.db), upstream])
    expect(res.status).toBe(503)
    expect(res.body.detail).toBe('Not ready: upstream (did not answer)')
    expect(JSON.stringify(res.body)).not.toContain('10.9.8.7')
    expect(h.logLines.some((line) => line.includes('10.9.8.7'))).toBe(true)
  })

  it('answers 503 `shutdown` once the server drains, without running the checks', async () => {
    h.ctx.readiness.drain()
    const res = await h.get('/readyz', { key: null })
    expect(res.status).toBe(503)
    expect(res.body).toMatchObject({
      code: 'unavailable',
      detail: 'Not ready: shutdown (the server is shutting down)',
      checks: [{ name: 'shutdown', ready: false, detail: 'the server is shutting down' }],
      request_id: res.headers.get('x-request-id'),
    })
    // Everything else is still served while the balancer drains the instance.
    expect((await h.get('/console/billing/pricing', { key: null })).status).toBe(200)
  })

  it('is in the OpenAPI document with its 503 problem details', async () => {
    const doc = (await h.get('/openapi.json', { key: null })).body
    // 400: a probe takes no query parameter, like every operation that declares none.
    expect(Object.keys(doc.paths['/healthz'].get.responses)).toEqual(['200', '400'])
    expect(Object.keys(doc.paths['/readyz'].get.responses)).toEqual(['200', '400', '503'])
    expect(doc.paths['/readyz'].get.security).toEqual([])
    expect(doc.paths['/readyz'].get.responses['503'].content).toHaveProperty(['application/problem+json'])
  })
})
