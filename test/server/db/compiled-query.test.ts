import SQLite from 'better-sqlite3'
import { type CompiledQuery, Kysely, SqliteDialect } from 'kysely'
import { describe, expect, it } from 'vitest'
import { compiledInsert, compiledOnce } from '../../../server/platform/db/compiled-query.js'
import { holdingConnection, holdingDialect } from '../../../server/platform/db/held-connection.js'
import type { Database } from '../../../server/platform/db/schema.js'

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

  it('binds arguments used out of order or twice, around constants; each call its own parameters', async () => {
    const db = await database()
    const seen: Array<{ sql: string; parameters: readonly unknown[] }> = []
    const execute = db.executeQuery.bind(db)
    // The queries compiledOnce hands to kysely (a plain Kysely: no held connection, no direct reads).
    db.executeQuery = ((query: CompiledQuery) => {
      seen.push(query)
      return execute(query)
    }) as typeof db.executeQuery
    // Compiled as id, 'active', org_id, id: not the arguments in their order.
    const find = compiledOnce((trx, orgId: string, id: string) =>
      (trx as unknown as Kysely<Schema>)
        .selectFrom('t')
        .select('v')
        .where('id', '=', id)
        .where('status', '=', 'active')
        .where('org_id', '=', orgId)
        .where('id', '>=', id),
    )
    // Compiled as org_id, id: the arguments in their order.
    const inOrder = compiledOnce((trx, orgId: string, id: string) =>
      (trx as unknown as Kysely<Schema>)
        .selectFrom('t')
        .select('v')
        .where('org_id', '=', orgId)
        .where('id', '=', id),
    )
    // Compiled as id, org_id: the arguments reversed, no constant.
    const reversed = compiledOnce((trx, orgId: string, id: string) =>
      (trx as unknown as Kysely<Schema>)
        .selectFrom('t')
        .select('v')
        .where('id', '=', id)
        .where('org_id', '=', orgId),
    )
    const as = db as unknown as Kysely<Database>
    expect(await find(as, 'a', '1')).toEqual([{ v: 1 }])
    expect(await find(as, 'b', '1')).toEqual([{ v: 3 }])
    expect(await find(as, 'a', '2')).toEqual([])
    expect(await reversed(as, 'b', '1')).toEqual([{ v: 3 }])
    expect(await inOrder(as, 'a', '2')).toEqual([{ v: 2 }])
    expect(await inOrder(as, 'b', '1')).toEqual([{ v: 3 }])
    // What each call ran, read after the later calls: no call's parameters became another's.
    expect(seen.map((query) => query.parameters)).toEqual([
      ['1', 'active', 'a', '1'],
      ['1', 'active', 'b', '1'],
      ['2', 'active', 'a', '2'],
      ['1', 'b'],
      ['a', '2'],
      ['b', '1'],
    ])
    expect(seen[4]?.sql).toBe(seen[5]?.sql)
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

  it('takes a list argument as its values, compiled once per length, an empty list shaping the query', async () => {
    const db = await database()
    const built: number[] = []
    const find = compiledOnce((trx, orgId: string, ids: string[]) => {
      built.push(ids.length)
      const q = (trx as unknown as Kysely<Schema>).selectFrom('t').select('v').where('org_id', '=', orgId)
      return ids.length === 0 ? q : q.where('id', 'in', ids)
    })
    const as = db as unknown as Kysely<Database>
    const values = async (orgId: string, ids: string[]) => (await find(as, orgId, ids)).map((r) => r.v).sort()
    expect(await values('a', ['1', '2'])).toEqual([1, 2])
    expect(await values('a', ['2', '9'])).toEqual([2])
    expect(await values('b', ['1'])).toEqual([3])
    expect(await values('a', ['1'])).toEqual([1])
    expect(await values('a', [])).toEqual([1, 2])
    expect(await values('b', [])).toEqual([3])
    // One compilation per length: 2, 1, 0.
    expect(built).toEqual([2, 1, 0])
    await db.destroy()
  })

  it('refuses a list whose values shape the query', async () => {
    const db = await database()
    const shaped = compiledOnce((trx, ids: string[]) =>
      (trx as unknown as Kysely<Schema>)
        .selectFrom('t')
        .select('v')
        .where('id', '=', ids[0] as string),
    )
    await expect(shaped(db as unknown as Kysely<Database>, ['1', '2'])).rejects.toThrow(/every argument/)
    await db.destroy()
  })
})

describe('compiledInsert', () => {
  it('inserts rows of exactly its columns, and leaves a row with a column missing or extra to kysely', async () => {
    const db = await database()
    await db.schema
      .alterTable('t')
      .addColumn('note', 'text', (c) => c.defaultTo('default'))
      .execute()
    const insert = compiledInsert<{ org_id: string; id: string; status: string; v: number }>('t', [
      'org_id',
      'id',
      'status',
      'v',
    ])
    const as = db as unknown as Kysely<Database>
    await insert(as, { org_id: 'c', id: '1', status: 'active', v: 4 })
    await insert(as, { org_id: 'c', id: '2', status: 'active', v: 5 })
    // The missing column is left out, as kysely does (its default), not bound as null.
    await insert(as, { org_id: 'c', id: '3', status: 'active', v: undefined as unknown as number })
    // A column the compiled statement lacks is still written.
    await insert(as, { org_id: 'c', id: '4', status: 'active', v: 6, note: 'kept' } as never)
    const rows = await db.selectFrom('t').selectAll().where('org_id', '=', 'c').orderBy('id').execute()
    expect(rows).toEqual([
      { org_id: 'c', id: '1', status: 'active', v: 4, note: 'default' },
      { org_id: 'c', id: '2', status: 'active', v: 5, note: 'default' },
      { org_id: 'c', id: '3', status: 'active', v: null, note: 'default' },
      { org_id: 'c', id: '4', status: 'active', v: 6, note: 'kept' },
    ])
    await db.destroy()
  })
})

describe('a compiled query in a flow that holds a connection', () => {
  it('runs on the held connection (seeing the write so far), a failure still reported; a read of its own waits for the commit', async () => {
    const errors: unknown[] = []
    const db = new Kysely<Schema>({
      dialect: holdingDialect(new SqliteDialect({ database: new SQLite(':memory:') }), (error) =>
        errors.push(error),
      ),
    })
    await db.schema
      .createTable('t')
      .addColumn('org_id', 'text')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('status', 'text')
      .addColumn('v', 'integer')
      .execute()
    const as = db as unknown as Kysely<Database>
    const count = compiledOnce((trx, orgId: string) =>
      (trx as unknown as Kysely<Schema>)
        .selectFrom('t')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', orgId),
    )
    const insert = compiledInsert<{ org_id: string; id: string; status: string; v: number }>('t', [
      'org_id',
      'id',
      'status',
      'v',
    ])
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let inWrite!: () => void
    const written = new Promise<void>((resolve) => {
      inWrite = resolve
    })
    const write = holdingConnection(() =>
      as.transaction().execute(async (trx) => {
        await insert(trx, { org_id: 'a', id: '1', status: 'active', v: 1 })
        // Through the root database too: the flow's connection, so its own uncommitted row.
        expect(await count(as, 'a')).toEqual([{ n: 1 }])
        await expect(insert(as, { org_id: 'a', id: '1', status: 'active', v: 2 })).rejects.toThrow(/UNIQUE/)
        inWrite()
        await held
      }),
    )
    await written
    expect(errors).toHaveLength(1)
    // Outside the flow, the read waits for SQLite's one connection: it sees the row once committed.
    let read: unknown
    const outside = count(as, 'a').then((rows) => {
      read = rows
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(read).toBeUndefined()
    release()
    await write
    await outside
    expect(read).toEqual([{ n: 1 }])
    await db.destroy()
  })
})
