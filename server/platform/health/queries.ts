import { DEFAULT_MIGRATION_TABLE, sql } from 'kysely'
import type { Db } from '../db/database.js'

/** The cheapest statement the database must answer. */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db)
}

/** Names of the migrations applied to the database (read from kysely's own migration table). */
export async function appliedMigrations(db: Db): Promise<string[]> {
  const { rows } = await sql<{
    name: string
  }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db)
  return rows.map((row) => row.name)
}
