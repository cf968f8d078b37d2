import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { compiledInsert, compiledOnce } from '../../../server/platform/db/compiled-query.js'
import { type Db, openDatabase, openPostgres } from '../../../server/platform/db/database.js'
import { holdingConnection } from '../../../server/platform/db/held-connection.js'
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../../support/backends.js'

/*
 * A read compiled once (`compiledOnce`) by the root database runs on SQLite's connection without
 * kysely's executor when no transaction is open on it (server/platform/db/held-connection.ts,
 * `directRows`). What a read sees must not change: inside a write, the write's rows; outside it, only
 * committed rows; on PostgreSQL, a connection of the pool as before.
 */

const orgOf = compiledOnce((db, orgId: string) =>
  db.selectFrom('organizations').select(['org_id', 'created_at']).where('org_id', '=', orgId),
)
const insertOrg = compiledInsert<{ org_id: string; created_at: string }>('organizations', [
  'org_id',
  'created_at',
])
const missing = compiledOnce((db, id: string) =>
  // A table the schema lacks, to make the statement fail.
  (db as any).selectFrom('no_such_table').selectAll().where('id', '=', id),
)

/** `promise`, or a rejection after `ms`: no test waits forever on a read that is queued. */
const within = <T>(promise: Promise<T>, ms = 2000) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not settled in ${ms} ms`)), ms)),
  ])

/** A promise and its resolver: a transaction kept open until the test lets it end. */
function gate() {
  let open!: () => void
  const closed = new Promise<void>((resolve) => {
    open = resolve
  })
  return { closed, open }
}

describe(`compiled reads on ${TEST_DIALECT}`, () => {
  let db: Db
  let dir: string | undefined
  let database: TestDatabase | undefined
  const failures: unknown[] = []

  beforeEach(async () => {
    failures.length = 0
    const onQueryError = (error: unknown) => failures.push(error)
    if (TEST_DIALECT === 'postgres') {
      database = await createTestDatabase()
      db = await openPostgres(database.url, { poolSize: 3, onQueryError })
    } else {
      dir = mkdtempSync(join(tmpdir(), 'rwa-direct-reads-'))
      db = await openDatabase(join(dir, 'rwa.db'), { onQueryError })
    }
    await insertOrg(db, { org_id: 'org_a', created_at: '2026-01-01T00:00:00.000Z' })
  })

  afterEach(async () => {
    await db.destroy()
    await database?.drop()
    if (dir) rmSync(dir, { recursive: true, force: true })
    database = undefined
    dir = undefined
  })

  it('inside a write sees the write’s rows; another flow meanwhile sees only what is committed', async () => {
    const inWrite = gate()
    const written = gate()
    const write = holdingConnection(() =>
      db.transaction().execute(async () => {
        await insertOrg(db, { org_id: 'org_b', created_at: '2026-01-02T00:00:00.000Z' })
        // The write's own flow reads its uncommitted row, by the root database as services do.
        expect(await orgOf(db, 'org_b')).toEqual([
          { org_id: 'org_b', created_at: '2026-01-02T00:00:00.000Z' },
        ])
        written.open()
        await inWrite.closed
      }),
    )
    await within(written.closed)
    // Another flow: on SQLite queued behind the write's transaction, on PostgreSQL its snapshot.
    const outside = orgOf(db, 'org_b')
    const settled = await Promise.race([
      outside.then(() => true),
      new Promise((r) => setTimeout(r, 50, false)),
    ])
    if (TEST_DIALECT === 'sqlite') expect(settled).toBe(false)
    else expect(await outside).toEqual([])
    inWrite.open()
    await within(write)
    if (TEST_DIALECT === 'sqlite') {
      // Read once the write committed: its row, never a view of it before the commit.
      expect(await within(outside)).toEqual([{ org_id: 'org_b', created_at: '2026-01-02T00:00:00.000Z' }])
    }
    expect(await orgOf(db, 'org_b')).toHaveLength(1)
  })

  it('never sees the rows of a write that rolls back', async () => {
    const inWrite = gate()
    const written = gate()
    const write = holdingConnection(() =>
      db.transaction().execute(async () => {
        await insertOrg(db, { org_id: 'org_c', created_at: '2026-01-03T00:00:00.000Z' })
        written.open()
        await inWrite.closed
        throw new Error('refused')
      }),
    )
    await within(written.closed)
    const outside = orgOf(db, 'org_c')
    inWrite.open()
    await expect(within(write)).rejects.toThrow('refused')
    expect(await within(outside)).toEqual([])
    expect(await orgOf(db, 'org_c')).toEqual([])
  })

  it('reports a failed read to the database error metric and rejects', async () => {
    await expect(missing(db, 'x')).rejects.toThrow(/no_such_table/)
    expect(failures).toHaveLength(1)
  })

  it('reads through the executor exactly where kysely must run the statement', async () => {
    const executor = db.getExecutor()
    const provide = vi.spyOn(executor, 'provideConnection')
    expect(await orgOf(db, 'org_a')).toHaveLength(1)
    // SQLite: straight on its connection. PostgreSQL: a connection of the pool, as before.
    expect(provide).toHaveBeenCalledTimes(TEST_DIALECT === 'sqlite' ? 0 : 1)
    provide.mockClear()
    // A write compiled once, outside a transaction, is never run beside kysely.
    await insertOrg(db, { org_id: 'org_d', created_at: '2026-01-04T00:00:00.000Z' })
    expect(provide).toHaveBeenCalledTimes(1)
    provide.mockRestore()
  })

  it.runIf(TEST_DIALECT === 'sqlite')(
    'on SQLite, a read while the connection is taken without a transaction runs at once',
    async () => {
      // kysely's mutex is taken by this scope, no transaction is open: nothing the read could see
      // half-done. Through kysely's executor this read would wait for the scope, which waits for it.
      const rows = await within(db.connection().execute((connection) => orgOf(connection as Db, 'org_a')))
      expect(rows).toHaveLength(1)
      const inScope = await within(db.connection().execute(() => orgOf(db, 'org_a')))
      expect(inScope).toEqual(rows)
    },
  )
})
