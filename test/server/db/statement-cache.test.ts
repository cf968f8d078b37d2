import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { describe, expect, it } from 'vitest'
import { withStatementCache } from '../../../server/db/database.js'

describe('withStatementCache', () => {
  it('prepares each SQL text once and still returns fresh results', async () => {
    const sqlite = new SQLite(':memory:')
    let prepared = 0
    const prepare = sqlite.prepare.bind(sqlite)
    sqlite.prepare = ((sql: string) => {
      prepared++
      return prepare(sql)
    }) as typeof sqlite.prepare
    const db = new Kysely<{ t: { id: string; v: number } }>({
      dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    })
    await db.schema
      .createTable('t')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('v', 'integer')
      .execute()
    for (let i = 0; i < 10; i++)
      await db
        .insertInto('t')
        .values({ id: `k${i}`, v: i })
        .execute()
    for (let i = 0; i < 10; i++) {
      const row = await db.selectFrom('t').select('v').where('id', '=', `k${i}`).executeTakeFirst()
      expect(row?.v).toBe(i)
    }
    // One create, one insert, one select.
    expect(prepared).toBe(3)
    await db.destroy()
  })
})
