import { type Kysely, PostgresAdapter } from 'kysely'

/** The two storage engines: the embedded SQLite file, or PostgreSQL shared by several instances. */
export type DialectName = 'sqlite' | 'postgres'

/**
 * Which dialect a database (or a transaction on it) speaks. The few places where the dialects must
 * differ ask this, and say why: row locks (SQLite runs one transaction at a time, so it needs none and
 * has no `FOR UPDATE`), and the expression index of one active trust relation per pair.
 */
// biome-ignore lint/suspicious/noExplicitAny: any schema; only the adapter is read.
export function dialectOf(db: Kysely<any>): DialectName {
  // getExecutor() is marked internal in kysely's typings but is the documented way plugins reach the adapter.
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}
