import { type Kysely, PostgresAdapter } from 'kysely'

/*
 * Which engine a migration runs on, for the migrations that must differ: a copy of what
 * server/platform/db/dialect.ts said when they were written, kept here because a migration imports nothing of
 * the live code (docs/architecture.md, "Migrations are frozen in time").
 */

// biome-ignore lint/suspicious/noExplicitAny: any schema; only the adapter is read.
export const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter
