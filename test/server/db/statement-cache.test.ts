import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { describe, expect, it } from 'vitest'
import { withStatementCache } from '../../../server/platform/db/database.js'
import {
  holdingConnection,
  holdingDialect,
  ownTransaction,
  serviceTransaction,
  withoutSavepoints,
} from '../../../server/platform/db/held-connection.js'

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

  it('keeps a write of a thousand savepoints to a handful of statements, each savepoint still its own', async () => {
    const sqlite = new SQLite(':memory:')
    const texts = new Set<string>()
    const prepare = sqlite.prepare.bind(sqlite)
    sqlite.prepare = ((sql: string) => {
      texts.add(sql)
      return prepare(sql)
    }) as typeof sqlite.prepare
    const db = new Kysely<{ t: { id: string } }>({
      dialect: holdingDialect(new SqliteDialect({ database: withStatementCache(sqlite) })),
    })
    await db.schema
      .createTable('t')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .execute()
    // A batch's shape: one write, a savepoint per operation, some nested, every third one failing.
    await holdingConnection(() =>
      db.transaction().execute(async () => {
        for (let i = 0; i < 1000; i++) {
          await db
            .transaction()
            .execute(async () => {
              await db
                .insertInto('t')
                .values({ id: `op${i}` })
                .execute()
              await db.transaction().execute(async () => {
                await db
                  .insertInto('t')
                  .values({ id: `op${i}-nested` })
                  .execute()
              })
              if (i % 3 === 0) throw new Error('refused')
            })
            .catch(() => {})
        }
      }),
    )
    const kept = await db.selectFrom('t').select('id').execute()
    // Each failed operation rolled back alone, its nested savepoint with it.
    expect(kept).toHaveLength(2 * (1000 - 334))
    expect(kept.map((r) => r.id)).not.toContain('op3')
    expect(kept.map((r) => r.id)).toContain('op4-nested')
    // Savepoints named by depth: savepoint, release and rollback at two depths, not one text per savepoint.
    expect([...texts].filter((sql) => sql.includes('savepoint')).length).toBeLessThanOrEqual(6)
    await db.destroy()
  })
})

describe('withoutSavepoints', () => {
  it('makes the transactions begun inside it part of the enclosing one, and refuses a caller that goes on after one failed', async () => {
    const sqlite = new SQLite(':memory:')
    const sent: string[] = []
    const prepare = sqlite.prepare.bind(sqlite)
    sqlite.prepare = ((sql: string) => {
      sent.push(sql)
      return prepare(sql)
    }) as typeof sqlite.prepare
    const db = new Kysely<{ t: { id: string } }>({
      dialect: holdingDialect(new SqliteDialect({ database: sqlite })),
    })
    await db.schema
      .createTable('t')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .execute()
    const insert = (id: string) => db.insertInto('t').values({ id }).execute()
    const failing = (id: string) =>
      db
        .transaction()
        .execute(async () => {
          await insert(id)
          throw new Error('refused')
        })
        .catch(() => {})
    sent.length = 0
    await holdingConnection(() =>
      db.transaction().execute(async () => {
        await withoutSavepoints(() => db.transaction().execute(() => insert('flat')))
        // Outside it, a transaction is a savepoint again, rolled back alone.
        await failing('savepoint-failed')
      }),
    )
    const kept = await db.selectFrom('t').select('id').orderBy('id').execute()
    expect(kept.map((r) => r.id)).toEqual(['flat'])
    expect(sent.filter((sql) => sql.includes('savepoint'))).toEqual([
      'savepoint rwa_nested_1',
      'rollback to savepoint rwa_nested_1',
      'release savepoint rwa_nested_1',
    ])

    // A failed transaction inside it keeps its writes; a caller that catches that and goes on would
    // commit them, so withoutSavepoints refuses, and the enclosing write rolls back whole.
    const wentOn = holdingConnection(() =>
      db.transaction().execute(async () => {
        await withoutSavepoints(async () => {
          await db.transaction().execute(() => insert('before'))
          await failing('flat-failed')
        })
      }),
    )
    await expect(wentOn).rejects.toThrow('its caller went on')
    expect((await db.selectFrom('t').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual(['flat'])
    // One whose failure fails it too is what it is for: the failure is the caller's to answer.
    const failed = holdingConnection(() =>
      db.transaction().execute(() =>
        withoutSavepoints(() =>
          db.transaction().execute(async () => {
            await insert('refused')
            throw new Error('operation refused')
          }),
        ),
      ),
    )
    await expect(failed).rejects.toThrow('operation refused')
    await expect(withoutSavepoints(async () => {})).rejects.toThrow('outside a held transaction')
    await db.destroy()
  })

  it('runs a service transaction inside it on the held connection, with no transaction of its own, its failure counted', async () => {
    const sqlite = new SQLite(':memory:')
    const sent: string[] = []
    const prepare = sqlite.prepare.bind(sqlite)
    sqlite.prepare = ((sql: string) => {
      sent.push(sql)
      return prepare(sql)
    }) as typeof sqlite.prepare
    const db = new Kysely<{ t: { id: string } }>({
      dialect: holdingDialect(new SqliteDialect({ database: sqlite })),
    })
    await db.schema
      .createTable('t')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .execute()
    const insert = (trx: Kysely<{ t: { id: string } }>, id: string) =>
      trx.insertInto('t').values({ id }).execute()
    const ids = async () => (await db.selectFrom('t').select('id').orderBy('id').execute()).map((r) => r.id)

    // Outside any held flow: a transaction of its own.
    sent.length = 0
    await serviceTransaction(db, (trx) => insert(trx, 'alone'))
    expect(sent.filter((sql) => /^(begin|commit|savepoint|release)/.test(sql))).toEqual(['begin', 'commit'])

    // In a held flow but outside withoutSavepoints: a savepoint, rolled back alone when it fails.
    sent.length = 0
    await holdingConnection(() =>
      db.transaction().execute(async () => {
        await serviceTransaction(db, (trx) => insert(trx, 'savepoint'))
        await serviceTransaction(db, async (trx) => {
          await insert(trx, 'savepoint-failed')
          throw new Error('refused')
        }).catch(() => {})
      }),
    )
    expect(sent.filter((sql) => sql.includes('savepoint')).length).toBe(5)
    expect(await ids()).toEqual(['alone', 'savepoint'])

    // Inside withoutSavepoints: no begin, no savepoint, the write's connection; nested ones too.
    sent.length = 0
    const answer = await holdingConnection(() =>
      db.transaction().execute(() =>
        withoutSavepoints(() =>
          serviceTransaction(db, async (trx) => {
            await insert(trx, 'flat')
            return serviceTransaction(trx, async (inner) => {
              await insert(inner, 'flat-nested')
              return 'answered'
            })
          }),
        ),
      ),
    )
    expect(answer).toBe('answered')
    expect(sent.filter((sql) => /^(begin|commit|savepoint|release)/.test(sql))).toEqual(['begin', 'commit'])
    expect(await ids()).toEqual(['alone', 'flat', 'flat-nested', 'savepoint'])

    // A failure inside it that a caller catches and goes on after is refused, as a transaction's is,
    // and the enclosing write rolls back whole.
    const wentOn = holdingConnection(() =>
      db.transaction().execute(() =>
        withoutSavepoints(async () => {
          await serviceTransaction(db, (trx) => insert(trx, 'kept-before'))
          await serviceTransaction(db, async (trx) => {
            await insert(trx, 'flat-failed')
            throw new Error('refused')
          }).catch(() => {})
        }),
      ),
    )
    await expect(wentOn).rejects.toThrow('its caller went on')
    // One that fails it is the caller's to answer, the write rolled back.
    const failed = holdingConnection(() =>
      db.transaction().execute(() =>
        withoutSavepoints(() =>
          serviceTransaction(db, async (trx) => {
            await insert(trx, 'refused')
            throw new Error('operation refused')
          }),
        ),
      ),
    )
    await expect(failed).rejects.toThrow('operation refused')
    expect(await ids()).toEqual(['alone', 'flat', 'flat-nested', 'savepoint'])
    await db.destroy()
  })

  it("counts a failed ownTransaction run on the write's own transaction, so a caller that goes on is refused", async () => {
    const sqlite = new SQLite(':memory:')
    const db = new Kysely<{ t: { id: string } }>({
      dialect: holdingDialect(new SqliteDialect({ database: sqlite })),
    })
    await db.schema
      .createTable('t')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .execute()
    // ownTransaction is typed for the app's schema; this table is the test's own.
    const own = ownTransaction as unknown as <T>(
      db: Kysely<{ t: { id: string } }>,
      fn: (trx: Kysely<{ t: { id: string } }>) => Promise<T>,
    ) => Promise<T>
    const wentOn = holdingConnection(() =>
      db.transaction().execute(() =>
        withoutSavepoints(async () => {
          await own(db, async (trx) => {
            await trx.insertInto('t').values({ id: 'half-written' }).execute()
            throw new Error('refused')
          }).catch(() => {})
        }),
      ),
    )
    await expect(wentOn).rejects.toThrow('its caller went on')
    expect(await db.selectFrom('t').select('id').execute()).toEqual([])
    await db.destroy()
  })
})
