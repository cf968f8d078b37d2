import { describe, expect, it } from 'vitest'
import { compiledInsert, compiledOnce } from '../../../server/platform/db/compiled-query.js'
import { holdingConnection } from '../../../server/platform/db/held-connection.js'
import { recordedSqlite } from '../../support/recorded-sqlite.js'

/*
 * Inside a write on SQLite, a statement compiled once runs straight on the connection the write holds
 * (server/platform/db/held-connection.ts, `heldRows`), not through kysely's connection and the promises
 * around it. Each statement is prepared through one of two doors to the same statement cache: kysely's
 * driver's, or the direct one given to `holdingDialect`, so the test sees which path ran it.
 */

type Schema = { t: { id: string; v: number } }

function database(direct: boolean) {
  const failures: unknown[] = []
  return { ...recordedSqlite<Schema>({ direct, onQueryError: (error) => failures.push(error) }), failures }
}

const valueOfRow = compiledOnce((db: any, id: string) => db.selectFrom('t').select('v').where('id', '=', id))
const insertT = compiledInsert<{ id: string; v: number }>('t', ['id', 'v'])

async function withTable(direct: boolean) {
  const made = database(direct)
  await made.db.schema
    .createTable('t')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('v', 'integer')
    .execute()
  made.viaKysely.length = 0
  return made
}

describe('compiled statements inside a write on SQLite', () => {
  it("run on the held connection directly, see the write's rows, and commit with it", async () => {
    const { db, viaKysely, viaHeld } = await withTable(true)
    const seen = await holdingConnection(() =>
      db.transaction().execute(async () => {
        await insertT(db as any, { id: 'a', v: 1 })
        return valueOfRow(db as any, 'a')
      }),
    )
    expect(seen).toEqual([{ v: 1 }])
    expect(viaHeld).toEqual([
      'insert into "t" ("id", "v") values (?, ?)',
      'select "v" from "t" where "id" = ?',
    ])
    // kysely still begins and commits the write.
    expect(viaKysely).toEqual(['begin', 'commit'])
    expect(await valueOfRow(db as any, 'a')).toEqual([{ v: 1 }])
    await db.destroy()
  })

  it('report a failed statement and reject; the write rolls back as before', async () => {
    const { sqlite, db, viaHeld, failures } = await withTable(true)
    const write = holdingConnection(() =>
      db.transaction().execute(async () => {
        await insertT(db as any, { id: 'b', v: 2 })
        await insertT(db as any, { id: 'b', v: 3 })
      }),
    )
    await expect(write).rejects.toThrow(/UNIQUE constraint failed/)
    expect(viaHeld).toHaveLength(2)
    expect(failures).toHaveLength(1)
    expect(sqlite.inTransaction).toBe(false)
    expect(sqlite.prepare('select count(*) as n from t').get()).toEqual({ n: 0 })
    await db.destroy()
  })

  it('go through kysely without the direct statements (PostgreSQL), and outside a write', async () => {
    const { db, viaKysely, viaHeld } = await withTable(false)
    await holdingConnection(() => db.transaction().execute(async () => insertT(db as any, { id: 'c', v: 4 })))
    expect(viaKysely).toEqual(['begin', 'insert into "t" ("id", "v") values (?, ?)', 'commit'])
    expect(viaHeld).toEqual([])
    const direct = await withTable(true)
    await insertT(direct.db as any, { id: 'd', v: 5 })
    expect(direct.viaHeld).toEqual([])
    expect(direct.viaKysely).toEqual(['insert into "t" ("id", "v") values (?, ?)'])
    await db.destroy()
    await direct.db.destroy()
  })
})
