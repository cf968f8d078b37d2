import { createServer, type Server, type Socket, connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import SQLite from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../../server/app.js'
import { ensureAdminKey } from '../../../server/bootstrap.js'
import { AGGREGATES } from '../../../server/aggregates.js'
import { createAppContext } from '../../../server/pipeline/context.js'
import { MasterKey } from '../../../server/platform/signing/master-key.js'
import { openPostgres } from '../../../server/platform/db/database.js'
import { jsonLogger } from '../../../server/platform/logging/logger.js'
import { problemSchema } from '../../../src/contract/errors.js'
import { createTestDatabase, TEST_DIALECT } from '../../support/backends.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * A database the server cannot reach is the server's trouble, not a bug: every request that needs it
 * answers 503 `unavailable` (`database_unavailable`) with Retry-After, never 500 `internal` (README.md,
 * "Errors"). PostgreSQL is lost for real, behind a TCP proxy the test closes; SQLite is "lost" as it can be,
 * held locked by another process past the busy timeout.
 */

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A TCP proxy to `target` that `cut()` closes, every open connection included. */
async function cuttableProxy(target: URL): Promise<{ port: number; cut(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => {})
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const s of sockets) s.destroy()
      await closed
    },
  }
}

const expectUnavailable = (res: Response, text: string) => {
  expect(res.status, text).toBe(503)
  expect(res.headers.get('retry-after')).toBe('5')
  expect(res.headers.get('content-type')).toBe('application/problem+json')
  const problem = problemSchema.parse(JSON.parse(text))
  expect(problem).toMatchObject({ code: 'unavailable', reason: 'database_unavailable', status: 503 })
  expect(text).not.toMatch(/ECONNREFUSED|terminated|SQLITE|select|insert/i)
}

describe.runIf(TEST_DIALECT === 'postgres')('PostgreSQL lost while the server runs', () => {
  it('answers 503 database_unavailable with Retry-After on keyed reads, writes and public routes; /readyz says so too', async () => {
    const database = await createTestDatabase()
    cleanups.push(() => database.drop())
    const proxy = await cuttableProxy(new URL(database.url))
    const viaProxy = new URL(database.url)
    viaProxy.port = String(proxy.port)
    viaProxy.hostname = '127.0.0.1'
    const db = await openPostgres(viaProxy.toString(), { poolSize: 2, onError: () => {} })
    cleanups.push(() => db.destroy())
    const logged: unknown[] = []
    const ctx = createAppContext({
      db,
      aggregates: AGGREGATES,
      masterKey: MasterKey.generate(),
      logger: jsonLogger({ level: 'error', destination: { write: () => {} } }),
      logError: (_message, error) => logged.push(error),
    })
    cleanups.push(() => ctx.meter.stop().catch(() => {}))
    const app = createApp(ctx)
    const adminKey = (await ensureAdminKey(ctx)).printable!
    const auth = { 'X-API-Key': adminKey }
    expect((await app.request('/console/billing/stats', { headers: auth })).status).toBe(200)

    await proxy.cut()
    const requests: Array<[string, RequestInit]> = [
      ['/console/billing/stats', { headers: auth }],
      [
        '/console/billing/keys',
        { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{"name":"x"}' },
      ],
      // A key no cache knows: authentication itself needs the database.
      ['/console/billing/keys', { headers: { 'X-API-Key': `rwa_live_${'A'.repeat(43)}` } }],
      ['/console/rwa/status/sl_x', {}],
    ]
    for (const [path, init] of requests) {
      const res = await app.request(path, init)
      expectUnavailable(res, await res.text())
    }
    expect((await app.request('/readyz')).status).toBe(503)
    expect((await app.request('/healthz')).status).toBe(200)
    expect(logged.length).toBeGreaterThan(0)
  })
})

describe.runIf(TEST_DIALECT === 'sqlite')('SQLite held locked past the busy timeout', () => {
  let h: Harness
  it('answers a write 503 database_unavailable with Retry-After, and the same write succeeds once the lock is gone', async () => {
    h = await createHarness()
    cleanups.push(() => h.close())
    const other = new SQLite(h.dbPath!)
    cleanups.push(async () => void other.close())
    other.exec('BEGIN EXCLUSIVE')
    const res = await h.app.request('/console/billing/keys', {
      method: 'POST',
      headers: { 'X-API-Key': h.adminKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ org_id: 'acme', name: 'during-the-lock' }),
    })
    expectUnavailable(res, await res.text())
    other.exec('ROLLBACK')
    const retried = await h.post('/console/billing/keys', { org_id: 'acme', name: 'during-the-lock' })
    expect(retried.status).toBe(201)
    expect(h.loggedErrors.length).toBeGreaterThan(0)
  }, 20_000)
})
