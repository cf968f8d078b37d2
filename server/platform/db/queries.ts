import type { Insertable, Selectable, SelectQueryBuilder, Transaction } from 'kysely'
import { compiledOnce } from './compiled-query.js'
import type { Db } from './database.js'
import { dialectOf } from './dialect.js'
import type { Database } from './schema.js'

/*
 * The query shapes every area repeats: an organization's record by its id, the count of a filter, and
 * one page of a filtered list. Each area's queries module builds on these.
 */

/** The database, or a transaction on it: every query takes either. */
export type Executor = Db | Transaction<Database>

/** One page of rows: up to `limit`, the count of every match, and the cursor of the next page. */
export interface Page<T> {
  rows: T[]
  total: number
  next_cursor: string | null
}

/** Paging of a list: how many rows, and the id below which the page starts (the last id of the previous). */
export interface PageQuery {
  limit: number
  cursor?: string | undefined
}

/**
 * A row lock held until the transaction ends, for a check-then-write that another instance could
 * interleave: `update` for a row the transaction decides on and changes (a token's holdings, an
 * organization's quota), `key share` for a row it only refers to and which must not be deleted
 * meanwhile (a jurisdiction a credential is issued in).
 */
export type RowLock = 'update' | 'key share'

/**
 * Adds the row lock to a select on PostgreSQL. SQLite needs none: its one connection runs one
 * transaction at a time (and it has no `FOR UPDATE`).
 */
// biome-ignore lint/suspicious/noExplicitAny: any select of the schema.
export function withLock<QB extends SelectQueryBuilder<any, any, any>>(
  db: Executor,
  query: QB,
  lock: RowLock | undefined,
): QB {
  if (lock === undefined || dialectOf(db) !== 'postgres') return query
  return (lock === 'update' ? query.forUpdate() : query.forKeyShare()) as QB
}

/** Tables whose rows belong to an organization (an `org_id` column). */
type OwnedTable = {
  [T in keyof Database]: Database[T] extends { org_id: string } ? T : never
}[keyof Database]

/**
 * A lookup of an organization's record by its id: another organization's row is never read, so its id
 * looks exactly like an unknown one. With `lock`, the row stays locked until the transaction ends.
 * Compiled once per dialect and lock (`compiledOnce`): every read by id runs this.
 */
export function ownedRecord<T extends OwnedTable>(table: T, idColumn: keyof Database[T] & string) {
  type Row = Selectable<Database[T]>
  const lookup = (lock: RowLock | undefined) =>
    compiledOnce((db: Executor, orgId: string, id: string) =>
      withLock(
        db,
        // biome-ignore lint/suspicious/noExplicitAny: kysely cannot type a table chosen by a type parameter.
        (db as any).selectFrom(table).selectAll().where('org_id', '=', orgId).where(idColumn, '=', id),
        lock,
      ),
    )
  const lookups = { none: lookup(undefined), update: lookup('update'), 'key share': lookup('key share') }
  return async (db: Executor, orgId: string, id: string, lock?: RowLock): Promise<Row | undefined> => {
    const rows = await lookups[lock ?? 'none'](db, orgId, id)
    return rows[0] as Row | undefined
  }
}

/** The number of rows a filtered query matches. */
// biome-ignore lint/suspicious/noExplicitAny: any table or join of the schema.
export async function countOf(base: SelectQueryBuilder<any, any, object>): Promise<number> {
  const row = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number((row as { n: number | bigint }).n)
}

/**
 * Runs a filtered list: the count of every match, and one page of whole rows ordered by `idColumn`
 * descending (ids are time-sortable, so newest first), below `query.cursor`.
 */
export async function pageOf<TB extends keyof Database>(
  base: SelectQueryBuilder<Database, TB, object>,
  idColumn: keyof Database[TB] & string,
  query: PageQuery,
): Promise<Page<Selectable<Database[TB]>>> {
  // biome-ignore lint/suspicious/noExplicitAny: the id column is one of TB's columns, named by the caller.
  const id = idColumn as any
  const total = await countOf(base)
  let rows = base.selectAll()
  if (query.cursor !== undefined) rows = rows.where(id, '<', query.cursor)
  const found = (await rows
    .orderBy(id, 'desc')
    .limit(query.limit + 1)
    .execute()) as unknown as Selectable<Database[TB]>[]
  const more = found.length > query.limit
  const pageRows = more ? found.slice(0, query.limit) : found
  return {
    rows: pageRows,
    total,
    next_cursor: more ? String((pageRows.at(-1) as Record<string, unknown>)[idColumn]) : null,
  }
}

/** Narrows a list to rows whose columns equal the given values; an absent value filters nothing. */
export function whereEqual<TB extends keyof Database, O>(
  base: SelectQueryBuilder<Database, TB, O>,
  filters: Partial<Record<keyof Database[TB] & string, string | undefined>>,
): SelectQueryBuilder<Database, TB, O> {
  let narrowed = base
  for (const [column, value] of Object.entries(filters)) {
    // biome-ignore lint/suspicious/noExplicitAny: the column is one of TB's, as the filters' type says.
    if (value) narrowed = narrowed.where(column as any, '=', value)
  }
  return narrowed
}

/**
 * The most bound parameters one statement may carry on both databases: SQLite's limit (32,766 by
 * default since 3.32), which is under PostgreSQL's protocol limit of 65,535.
 */
export const MAX_STATEMENT_PARAMETERS = 32_766

/**
 * Inserts `rows` into `table` in as few statements as the parameter limit allows (rows × columns of
 * each under MAX_STATEMENT_PARAMETERS): one write may record any number of rows (a batch of a thousand
 * governance writes, each with its audit event, events and deliveries), and a single multi-row INSERT
 * past the limit fails the whole write ("too many SQL variables", or PostgreSQL's bind error).
 */
export async function insertRows<TB extends keyof Database & string>(
  db: Executor,
  table: TB,
  rows: readonly Insertable<Database[TB]>[],
): Promise<void> {
  if (rows.length === 0) return
  let start = 0
  if (rows.length <= COMPILED_ROWS) {
    if (await insertCompiled(db, table, rows)) return
  } else {
    // More rows (a batch's audit events, events, the log nodes an append completes): compiled statements of 64, 32, ... rows,
    // a handful of shapes per table, instead of one statement of all the rows built by kysely per call
    // (docs/performance.md, "Fifth pass: the batch"). Rows unlike the first (other columns, a value
    // kysely must write) stop it there, and kysely inserts them and the rest.
    const perChunk = Math.max(1, Math.floor(MAX_STATEMENT_PARAMETERS / Object.keys(rows[0]!).length))
    while (start < rows.length) {
      const count = Math.min(COMPILED_CHUNK, perChunk, 2 ** Math.floor(Math.log2(rows.length - start)))
      if (!(await insertCompiled(db, table, rows.slice(start, start + count)))) break
      start += count
    }
    if (start === rows.length) return
  }
  const columns = new Set(rows.flatMap((row) => Object.keys(row as object))).size
  const perStatement = Math.max(1, Math.floor(MAX_STATEMENT_PARAMETERS / Math.max(1, columns)))
  for (; start < rows.length; start += perStatement) {
    await db
      .insertInto(table)
      .values(rows.slice(start, start + perStatement) as never)
      .execute()
  }
}

/** The most rows of one compiled statement of a larger insert (`insertRows`). */
const COMPILED_CHUNK = 64

/** Up to this many rows, an insert of rows of the same columns is compiled once (`insertCompiled`). */
const COMPILED_ROWS = 4

/** The compiled inserts of `insertCompiled`, by table, columns and count of rows. */
const compiledInserts = new Map<string, (db: Executor, ...values: unknown[]) => Promise<unknown[]>>()

/**
 * Inserts a write's few rows (a transfer's log nodes and event: one or two rows each) with a statement
 * compiled once per table, columns and count of rows (`compiledOnce`) instead of built by kysely each
 * time. Only rows of the same columns in the same order, each value a plain one (not `undefined`,
 * which kysely leaves to the column's default, nor an expression, which it writes into the SQL):
 * false, and nothing written, for any other rows, which kysely builds.
 */
async function insertCompiled(db: Executor, table: string, rows: readonly object[]): Promise<boolean> {
  const columns = Object.keys(rows[0]!)
  const values: unknown[] = []
  for (const row of rows) {
    const keys = Object.keys(row)
    if (keys.length !== columns.length) return false
    for (let i = 0; i < keys.length; i++) {
      const value = (row as Record<string, unknown>)[keys[i]!]
      if (keys[i] !== columns[i] || !isPlainValue(value)) return false
      values.push(value)
    }
  }
  const key = `${table}|${rows.length}|${columns.join(',')}`
  let insert = compiledInserts.get(key)
  if (!insert) {
    const count = rows.length
    insert = compiledOnce(
      (db: Executor, ...values: unknown[]) =>
        // biome-ignore lint/suspicious/noExplicitAny: kysely cannot type a table chosen by a parameter.
        (db as any)
          .insertInto(table)
          .values(
            Array.from({ length: count }, (_, r) =>
              Object.fromEntries(columns.map((c, i) => [c, values[r * columns.length + i]])),
            ),
          ),
      count * columns.length,
    )
    compiledInserts.set(key, insert)
  }
  await insert(db, ...values)
  return true
}

/** A value kysely passes to the driver as a parameter as it is. */
const isPlainValue = (value: unknown): boolean =>
  value === null ||
  typeof value === 'string' ||
  typeof value === 'number' ||
  typeof value === 'boolean' ||
  typeof value === 'bigint' ||
  value instanceof Uint8Array
