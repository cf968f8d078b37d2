import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import {
  Kysely,
  type MigrationProvider,
  Migrator,
  PostgresDialect,
  type SqliteDatabase,
  SqliteDialect,
} from 'kysely'
import pg from 'pg'
import { UnreachableError } from '../errors.js'
import { holdingDialect, readsDirectly } from './held-connection.js'
import { migrations } from './migrations/index.js'
import type { Database } from './schema.js'

export type Db = Kysely<Database>

/** Pages of WAL past which a commit copies them back into the database file (see `openDatabase`). */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000

/**
 * Bytes of the database file SQLite reads through a memory map (see `openDatabase`): the most this build
 * of SQLite maps (its SQLITE_MAX_MMAP_SIZE, 0x7fff0000; a larger size is cut to it).
 */
export const SQLITE_MMAP_BYTES = 2_147_418_112

export interface DatabaseOptions {
  /** Told of every statement that fails (for the database error metric); must not throw. */
  onQueryError?: (error: unknown) => void
}

/**
 * Opens (or creates) the SQLite database at `path` in WAL mode and brings its schema up to date.
 * `:memory:` is accepted for throwaway databases.
 */
export async function openDatabase(path: string, options: DatabaseOptions = {}): Promise<Db> {
  let sqlite: SQLite.Database | undefined
  if (path !== ':memory:') {
    // A typo in --db must not look like data loss (a new, empty database and a new admin key): the
    // directory has to exist already.
    const directory = dirname(path)
    if (!existsSync(directory) || !statSync(directory).isDirectory()) {
      throw new DatabaseDirectoryMissingError(path, directory)
    }
  }
  try {
    if (path !== ':memory:') ownerOnly(path)
    sqlite = new SQLite(path)
    sqlite.pragma('journal_mode = WAL')
    // NORMAL is durable across application crashes in WAL mode; only a power loss can drop the last commits.
    sqlite.pragma('synchronous = NORMAL')
    sqlite.pragma('foreign_keys = ON')
    sqlite.pragma('busy_timeout = 5000')
    // The database's first 2 GiB read through a memory map instead of a read() per page into SQLite's
    // 2 MB page cache: a page in the OS cache costs no system call nor copy. At 1 GiB, a file that
    // outgrew it (the bench's do, during their batches) read its newest pages, the ends of its tables
    // and indexes that every write touches, a system call each (docs/performance.md, "Twelfth pass:
    // the batch's garbage"). An inclusion proof reads
    // about ten of the log's nodes, each on its own page once the log outgrows the page cache (125 MB
    // of nodes at a million entries): mapped, such a proof cost 5-13 % less CPU (same runs; see
    // docs/performance.md). Writes still go through the WAL, which is never mapped. The price: an I/O
    // error on a mapped page ends the process (SIGBUS) instead of failing one statement. A larger
    // cache_size (64 MB) did not help measurably: a proof's pages are spread over the whole table.
    sqlite.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`)
    // SQLite copies the WAL back into the database once it passes this many pages (40 MiB at 4 KiB),
    // not at its default 1,000: a checkpoint copies every page the WAL holds, read back with a system
    // call each, then syncs twice, and the pages a write changes are mostly the same few (the ends of
    // the tables and their indexes), copied once per checkpoint however often they changed. At 1,000 a
    // single POST paid a checkpoint every ~50 writes: 9 reads and 9 writes of a page per POST, against 3
    // and 3 now (docs/performance.md, "Ninth pass: fewer checkpoints"). The WAL file keeps its largest
    // size (up to ~40 MiB) for reuse; the last connection to close checkpoints and removes it.
    sqlite.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`)
  } catch (error) {
    sqlite?.close()
    throw new DatabaseOpenError(path, error)
  }
  const statements = withStatementCache(sqlite)
  const db = new Kysely<Database>({
    dialect: holdingDialect(
      new SqliteDialect({ database: statements }),
      options.onQueryError,
      statements.prepare,
      sqlite,
    ),
  })
  // A hot read compiled once runs on the connection without kysely's executor when nothing else holds
  // it in a transaction (server/platform/db/held-connection.ts, `directRows`).
  readsDirectly(db, { sqlite, prepare: statements.prepare, onQueryError: options.onQueryError })
  try {
    await migrate(db)
  } catch (error) {
    await db.destroy()
    throw new DatabaseOpenError(path, error)
  }
  // Savepoints journal in memory. A savepoint keeps the original of every page first changed inside it
  // in a sub-journal, which SQLite writes to a temporary file once it passes 64 KiB: every operation of
  // a batch (and a POST's service) runs in a savepoint of its write, and a transfer's pages passed that,
  // so each one cost some 40 pwrite() of 4 KiB (105,488 in 2,000 transfers, 23,822 without). In memory
  // they are a copy each. Set after the migrations: with temporary storage in memory SQLite's sorter
  // never spills either, and a migration building an index over a large table must be free to.
  sqlite.pragma('temp_store = MEMORY')
  return db
}

/**
 * The database file, and the `-wal` and `-shm` files SQLite makes beside it, readable by their owner
 * alone (0600): they hold every signing key. A new file is created 0600 before SQLite opens it (SQLite
 * gives its -wal and -shm the database file's mode); existing ones are narrowed to 0600.
 */
function ownerOnly(path: string): void {
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600))
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
  }
}

/** `--db` names a file in a directory that does not exist; the message names both. */
export class DatabaseDirectoryMissingError extends Error {
  constructor(
    readonly path: string,
    readonly directory: string,
  ) {
    super(`the directory ${directory} of the database ${path} does not exist; nothing was created`)
    this.name = 'DatabaseDirectoryMissingError'
  }
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

export interface PostgresOptions {
  /** Connections this instance keeps at most (pg's pool). */
  poolSize?: number
  /** A schema to work in instead of the URL's default (`public`): tests give each one its own. */
  schema?: string
  /** Errors of idle pooled connections (PostgreSQL restarted, network cut): the pool replaces them. */
  onError?: (error: Error) => void
  /** Told of every statement that fails (for the database error metric); must not throw. */
  onQueryError?: (error: unknown) => void
}

/** Connections per instance by default: enough to keep 2 cores busy while others wait on row locks. */
const DEFAULT_POOL_SIZE = 10

/**
 * Connects to the PostgreSQL database at `url` (it must exist) and brings its schema up to date under
 * the migrator's advisory lock, so instances started together converge on one schema. Fails with an
 * UnreachableError naming the URL (without its password) when no connection can be made.
 */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: 10_000,
    types: PG_TYPES,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  })
  // Without a listener, an idle connection's error (a PostgreSQL restart) would end the process.
  pool.on('error', (error) => (options.onError ?? (() => {}))(error))
  // The pool listens only to idle connections: one lost while checked out (a statement running, a
  // transaction open) emits its error with no listener, which would end the process too. The statement
  // itself fails, and the request answers 503.
  pool.on('connect', (client) => client.on('error', (error) => (options.onError ?? (() => {}))(error)))
  try {
    const client = await pool.connect()
    client.release()
  } catch (error) {
    await pool.end()
    throw new UnreachableError(
      `PostgreSQL at ${redactUrl(url)} cannot be reached: ${(error as Error).message}`,
      { cause: error },
    )
  }
  const db = new Kysely<Database>({
    dialect: holdingDialect(new PostgresDialect({ pool }), options.onQueryError),
  })
  try {
    await migrate(db, options.schema)
  } catch (error) {
    await db.destroy()
    throw error
  }
  return db
}

const INT8_OID = 20

/**
 * pg returns bigint (int8) columns as strings, since they may exceed JavaScript's safe integers. The
 * contract bounds every amount and supply to 2^53-1 (and counts stay far below it), so they are read
 * as numbers; a value past that bound would be a bug and fails loudly instead of losing precision.
 */
function typeParser(oid: number, format?: 'text' | 'binary') {
  if (oid === INT8_OID && format !== 'binary') {
    return (value: string) => {
      const n = Number(value)
      if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${value} exceeds 2^53-1`)
      return n
    }
  }
  // biome-ignore lint/suspicious/noExplicitAny: pg-types' overloads differ only in the format literal.
  return pg.types.getTypeParser(oid, format as any)
}

/** The pool's type parsers (int8 as a number): for any pool that reads rows the way the server does. */
export const PG_TYPES = { getTypeParser: typeParser }

/** A connection URL as it may be logged: the password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(an unparsable URL)'
  }
}

/** Distinct SQL texts kept prepared; past this the cache starts over (queries are a small fixed set). */
const STATEMENT_CACHE_SIZE = 500

/**
 * Kysely prepares every query anew, and preparing costs about as much as running a point lookup; the
 * set of distinct SQL texts the app issues is small and fixed, so each is prepared once and reused.
 * Safe because kysely runs one query at a time on this connection, the reads run beside it
 * (server/platform/db/held-connection.ts, `directRows`) are synchronous, and the app streams no results
 * (`.stream()` would hold a statement busy while another query reused it). Returned with its `prepare`
 * for those reads.
 */
export function withStatementCache(
  sqlite: SQLite.Database,
): SqliteDatabase & { prepare(sql: string): SQLite.Statement } {
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

/**
 * Applies every pending migration; throws if one fails. On PostgreSQL kysely's migrator holds an
 * advisory lock and runs the pending migrations in one transaction, so instances migrating the same
 * database at once apply each migration exactly once; SQLite's single connection serializes them.
 */
export async function migrate(db: Db, schema?: string): Promise<void> {
  // With a schema of its own, the migrator's bookkeeping tables live in it too (kysely would otherwise
  // take another schema's for its own).
  const migrator = new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`database migration ${failed} failed: ${String(error)}`, { cause: error })
  }
}
