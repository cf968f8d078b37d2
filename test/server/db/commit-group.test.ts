import type SQLite from 'better-sqlite3'
import type { Kysely } from 'kysely'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { holdingConnection } from '../../../server/platform/db/held-connection.js'
import { recordedSqlite } from '../../support/recorded-sqlite.js'

/*
 * SQLite's writes commit in groups (server/platform/db/commit-group.ts; docs/performance.md, "Eighth pass:
 * the group commit"): a write that finds the transaction of other writes still open joins it in a
 * savepoint, and one commit makes them all durable. What must hold: a write's commit resolves only after
 * the group's; a failed write rolls back alone; a failed commit fails every write of the group and keeps
 * none; nothing outside a write reads what a group has not committed.
 */

type Schema = { t: { id: string } }

function database() {
  const made = recordedSqlite<Schema>({ groups: true, setup: 'create table t (id text primary key)' })
  return { db: made.db, sqlite: made.sqlite, statements: made.viaKysely }
}

/** A write as the server runs one: its own flow holding the connection, one transaction. */
const write = (db: Kysely<Schema>, work: (trx: Kysely<Schema>) => Promise<void>) =>
  holdingConnection(() => db.transaction().execute(work))

const insert = (id: string) => (trx: Kysely<Schema>) =>
  trx
    .insertInto('t')
    .values({ id })
    .execute()
    .then(() => undefined)

const ids = async (db: Kysely<Schema>) =>
  (await db.selectFrom('t').select('id').orderBy('id').execute()).map((r) => r.id)

/** SQLite's next `commit` fails, as it would on an I/O error. */
function failNextCommit(sqlite: SQLite.Database) {
  const statement = Object.getPrototypeOf(sqlite.prepare('select 1')) as { run: (...a: unknown[]) => unknown }
  const run = statement.run
  let failures = 1
  vi.spyOn(statement, 'run').mockImplementation(function (this: { source: string }, ...args: unknown[]) {
    if (this.source === 'commit' && failures-- > 0) throw new Error('disk I/O error')
    return run.apply(this, args)
  })
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("SQLite's group commit", () => {
  it('commits the writes that waited for the connection together, each durable when it resolves', async () => {
    const { db, sqlite, statements } = database()
    const committed: string[] = []
    const writes = ['a', 'b', 'c', 'd', 'e'].map((id) =>
      write(db, insert(id)).then(() => {
        // Resolved: the change is committed, not only written into an open transaction.
        expect(sqlite.inTransaction).toBe(false)
        expect(sqlite.prepare('select id from t where id = ?').get(id)).toEqual({ id })
        committed.push(id)
      }),
    )
    await Promise.all(writes)
    expect(committed.sort()).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(statements.filter((s) => s === 'begin')).toHaveLength(1)
    expect(statements.filter((s) => s === 'commit')).toHaveLength(1)
    expect(statements.filter((s) => s === 'savepoint rwa_grouped')).toHaveLength(4)
    // A write alone begins and commits as before, with no savepoint.
    statements.length = 0
    await write(db, insert('f'))
    expect(statements.filter((s) => /^(begin|commit|savepoint|release)/.test(s))).toEqual(['begin', 'commit'])
    await db.destroy()
  })

  it('rolls back a failed write alone, the first or a later one', async () => {
    const { db } = database()
    const failing = (id: string) => async (trx: Kysely<Schema>) => {
      await insert(id)(trx)
      throw new Error(`refused ${id}`)
    }
    const results = await Promise.allSettled([
      write(db, failing('first')),
      write(db, insert('b')),
      write(db, failing('c')),
      write(db, insert('d')),
    ])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled'])
    expect(await ids(db)).toEqual(['b', 'd'])
    // A unique violation inside a joined write: the statement fails, the write with it, the group not.
    const again = await Promise.allSettled([
      write(db, insert('e')),
      write(db, insert('b')),
      write(db, insert('f')),
    ])
    expect(again.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(await ids(db)).toEqual(['b', 'd', 'e', 'f'])
    await db.destroy()
  })

  it('fails every write of a group whose commit fails, keeps none, and goes on', async () => {
    const { db, sqlite } = database()
    failNextCommit(sqlite)
    const results = await Promise.allSettled(['a', 'b', 'c'].map((id) => write(db, insert(id))))
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('disk I/O error')
    expect(sqlite.inTransaction).toBe(false)
    expect(await ids(db)).toEqual([])
    await write(db, insert('d'))
    expect(await ids(db)).toEqual(['d'])
    await db.destroy()
  })

  it('lets nothing outside a write read what the open group has not committed', async () => {
    const { db, sqlite } = database()
    failNextCommit(sqlite)
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const first = write(db, insert('a'))
    // The second write joins and holds the connection, the first's row written but not committed.
    const second = write(db, async (trx) => {
      await insert('b')(trx)
      await held
    })
    // Queued for the connection behind both writes, before the group's commit is.
    const read = ids(db)
    // A job's transaction waits for the group too.
    const job = db.transaction().execute((trx) => ids(trx as unknown as Kysely<Schema>))
    await new Promise((resolve) => setTimeout(resolve, 20))
    release()
    const settled = await Promise.allSettled([first, second])
    expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    // Had the read run inside the open group, it would have seen a and b, which were never committed.
    expect(await read).toEqual([])
    expect(await job).toEqual([])
    await db.destroy()
  })
  it("gives the connection back for a query a write left running past its commit", async () => {
    const { db } = database()
    let go!: () => void
    const gate = new Promise<void>((resolve) => {
      go = resolve
    })
    let late!: Promise<string[]>
    // Work the first write starts and does not wait for: it runs in the write's flow, after its commit.
    await write(db, async (trx) => {
      await insert('a')(trx)
      late = gate.then(() => ids(db))
    })
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    // The next write holds the connection in a group of its own when the late query asks for it.
    const second = write(db, async (trx) => {
      await insert('b')(trx)
      await held
    })
    await new Promise((resolve) => setTimeout(resolve, 5))
    go()
    await new Promise((resolve) => setTimeout(resolve, 5))
    release()
    await second
    // A stale flow's query that kept the connection would leave every later write waiting forever.
    const third = write(db, insert('c'))
    const timedOut = Symbol('timed out')
    const outcome = await Promise.race([
      third.then(() => 'committed'),
      new Promise((resolve) => setTimeout(() => resolve(timedOut), 2_000)),
    ])
    expect(outcome).toBe('committed')
    expect(await late).toEqual(['a', 'b'])
    expect(await ids(db)).toEqual(['a', 'b', 'c'])
    await db.destroy()
  })
})
