import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { describe, expect, it } from 'vitest'
import { compiledOnce } from '../../../server/db/compiled-query.js'
import type { Database } from '../../../server/db/schema.js'

type Schema = { t: { org_id: string; id: string; status: string; v: number } }

async function database(): Promise<Kysely<Schema>> {
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) })
  await db.schema
    .createTable('t')
    .addColumn('org_id', 'text')
    .addColumn('id', 'text')
    .addColumn('status', 'text')
    .addColumn('v', 'integer')
    .execute()
  await db
    .insertInto('t')
    .values([
      { org_id: 'a', id: '1', status: 'active', v: 1 },
      { org_id: 'a', id: '2', status: 'revoked', v: 2 },
      { org_id: 'b', id: '1', status: 'active', v: 3 },
    ])
    .execute()
  return db
}

describe('compiledOnce', () => {
  it('runs the query compiled once with each call’s values, constants kept in place', async () => {
    const db = await database()
    let builds = 0
    const find = compiledOnce((trx, orgId: string, id: string) => {
      builds++
      const q = trx as unknown as Kysely<Schema>
      return q
        .selectFrom('t')
        .select('v')
        .where('org_id', '=', orgId)
        .where('status', '=', 'active')
        .where('id', '=', id)
    })
    const as = db as unknown as Kysely<Database>
    expect(await find(as, 'a', '1')).toEqual([{ v: 1 }])
    expect(await find(as, 'b', '1')).toEqual([{ v: 3 }])
    // '2' is revoked: the constant stays a condition of the query.
    expect(await find(as, 'a', '2')).toEqual([])
    await db.transaction().execute(async (trx) => {
      expect(await find(trx as unknown as Kysely<Database>, 'b', '1')).toEqual([{ v: 3 }])
    })
    expect(builds).toBe(1)
    await db.destroy()
  })

  it('refuses a query whose shape depends on an argument', async () => {
    const db = await database()
    const shaped = compiledOnce((trx, column: string) =>
      (trx as unknown as Kysely<Schema>).selectFrom('t').select(column as 'v'),
    )
    await expect(shaped(db as unknown as Kysely<Database>, 'v')).rejects.toThrow(/every argument/)
    await db.destroy()
  })
})
