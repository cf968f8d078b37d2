import SQLite from 'better-sqlite3'
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely'
import pg from 'pg'
import { afterEach } from 'vitest'
import { PG_TYPES } from '../../server/platform/db/database.js'
import type { Database } from '../../server/platform/db/schema.js'
import { createTestDatabase, TEST_DIALECT } from './backends.js'

/**
 * A database with no schema at all, for migration tests that write rows as an older migration left
 * them: a new PostgreSQL database (the `postgres` project) or an in-memory SQLite one. `close()`
 * destroys the connection and drops the database.
 */
export async function openEmptyDatabase(): Promise<{ db: Kysely<Database>; close(): Promise<void> }> {
  if (TEST_DIALECT === 'sqlite') {
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) })
    return { db, close: () => db.destroy() }
  }
  const database = await createTestDatabase({ empty: true })
  // Rows are read as the server reads them (int8 as a number).
  const pool = new pg.Pool({ connectionString: database.url, max: 2, types: PG_TYPES })
  // The drop ends the connections still open on the database (57P01); a pool without a listener
  // would make that an unhandled error of the test run.
  pool.on('error', () => {})
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    db,
    async close() {
      await db.destroy()
      await database.drop()
    },
  }
}

/**
 * For a test file: a function that opens an empty database for the running test, closed and dropped
 * after it (registers the `afterEach`).
 */
export function emptyDatabasePerTest(): () => Promise<Kysely<Database>> {
  let opened: Awaited<ReturnType<typeof openEmptyDatabase>> | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })
  return async () => {
    opened = await openEmptyDatabase()
    return opened.db
  }
}
