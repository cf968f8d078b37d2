import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import {
  Kysely,
  type LogEvent,
  type MigrationProvider,
  Migrator,
  type SqliteDatabase,
  SqliteDialect,
} from 'kysely'
import { migrations } from './migrations/index.js'
import type { Database } from './schema.js'

export type Db = Kysely<Database>

export interface DatabaseOptions {
  /** Told of every statement that fails (for the database error metric); must not throw. */
  onQueryError?: (error: unknown) => void
}

/**
 * Kysely's `log` option reporting only failed statements to `onQueryError` (any dialect): the hook
 * behind `rwa_database_errors_total`.
 */
export const queryErrorLog =
  (onQueryError: ((error: unknown) => void) | undefined) =>
  (event: LogEvent): void => {
    if (event.level === 'error') onQueryError?.(event.error)
  }

/**
 * Opens (or creates) the SQLite database at `path` in WAL mode and brings its schema up to date.
 * `:memory:` is accepted for throwaway databases.
 */
export async function openDatabase(path: string, options: DatabaseOptions = {}): Promise<Db> {
  let sqlite: SQLite.Database | undefined
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    sqlite = new SQLite(path)
    sqlite.pragma('journal_mode = WAL')
    // NORMAL is durable across application crashes in WAL mode; only a power loss can drop the last commits.
    sqlite.pragma('synchronous = NORMAL')
    sqlite.pragma('foreign_keys = ON')
    sqlite.pragma('busy_timeout = 5000')
  } catch (error) {
    sqlite?.close()
    throw new DatabaseOpenError(path, error)
  }
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    ...(options.onQueryError ? { log: queryErrorLog(options.onQueryError) } : {}),
  })
  try {
    await migrate(db)
  } catch (error) {
    await db.destroy()
    throw new DatabaseOpenError(path, error)
  }
  return db
}

/** The database at `path` could not be opened or migrated; the message names the path. */
export class DatabaseOpenError extends Error {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`cannot open the database ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    })
    this.name = 'DatabaseOpenError'
  }
}

/** Distinct SQL texts kept prepared; past this the cache starts over (queries are a small fixed set). */
const STATEMENT_CACHE_SIZE = 500

/**
 * Kysely prepares every query anew, and preparing costs about as much as running a point lookup; the
 * set of distinct SQL texts the app issues is small and fixed, so each is prepared once and reused.
 * Safe because kysely runs one query at a time on this connection and the app streams no results
 * (`.stream()` would hold a statement busy while another query reused it).
 */
export function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>()
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql)
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear()
        statement = sqlite.prepare(sql)
        statements.set(sql, statement)
      }
      return statement
    },
  }
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

/** Applies every pending migration, each in its own transaction; throws if one fails. */
export async function migrate(db: Db): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`database migration ${failed} failed: ${String(error)}`, { cause: error })
  }
}
