import type { Compilable, CompiledQuery, Kysely, Transaction } from 'kysely'
import { type DialectName, dialectOf } from './dialect.js'
import { executeCompiled } from './held-connection.js'
import type { Database } from './schema.js'

type Executor = Kysely<Database> | Transaction<Database>

/** Stands for the argument at its index while the query is compiled; never a real value. */
const SENTINEL = '\u0000rwa-argument-'

/** A query compiled for one dialect: its SQL, and where each parameter's value comes from. */
interface Compiled {
  query: CompiledQuery
  /**
   * Per parameter: the index of the argument that gives its value (and, for a list argument, the
   * index of the element), or the constant the query holds.
   */
  slots: ({ argument: number; element?: number } | { constant: unknown })[]
  /** Whether the parameters are the arguments themselves, in order: no list, no constant. */
  argumentsInOrder: boolean
}

/**
 * A query built by kysely once per dialect and then run with new values: kysely builds a query's
 * operation tree and compiles it to SQL on every call, which the benchmark's profile of an
 * authenticated read put at about a fifth of the request's CPU. `build` is called once per dialect with
 * stand-ins for its arguments; every argument must reach the query only as a value (a parameter of the
 * SQL), never choose its shape — which is checked when it is compiled. An array argument is a list
 * of values (`where('id', 'in', ids)`): the query is compiled once per dialect and length of each list,
 * and `build` may shape the query by a list's length (an empty list leaving its condition out), never
 * by its values. The SQL stays written with kysely in the area's queries module, and works on every
 * dialect like any other query there.
 *
 * @example
 * const findToken = compiledOnce((db, orgId: string, id: string) =>
 *   db.selectFrom('tokens').selectAll().where('org_id', '=', orgId).where('token_id', '=', id))
 * const rows = await findToken(db, orgId, id)
 */
export function compiledOnce<Args extends unknown[], Row>(
  build: (db: Executor, ...args: Args) => Compilable<Row>,
  /** How many arguments follow `db`; needed when `build` takes them as a rest parameter. */
  arity = build.length - 1,
): (db: Executor, ...args: Args) => Promise<Row[]> {
  const run = compiledRunner(build, arity)
  return (db, ...args) => run(db, args)
}

/**
 * `compiledOnce`'s query, run with its arguments given as one array (which it may pass on as the
 * parameters: the caller must not change it afterwards). Not an async function: the rows' promise is
 * answered as it is, without another around it (a hot read's statement may run at once:
 * server/platform/db/held-connection.ts, `directRows`).
 */
function compiledRunner<Args extends unknown[], Row>(
  build: (db: Executor, ...args: Args) => Compilable<Row>,
  arity: number,
): (db: Executor, args: unknown[]) => Promise<Row[]> {
  const byShape = new Map<string, Compiled>()
  const run = (db: Executor, args: unknown[]): Promise<Row[]> => {
    let query: CompiledQuery<Row>
    try {
      const shape = shapeOf(dialectOf(db), args, arity)
      let compiled = byShape.get(shape)
      if (compiled === undefined) {
        compiled = compile(db, build, args, arity)
        byShape.set(shape, compiled)
      }
      query = withParameters(compiled, args) as CompiledQuery<Row>
    } catch (error) {
      return Promise.reject(error)
    }
    return executeCompiled<Row>(db, query)
  }
  return run
}

/**
 * The compiled query with a call's values. Run for each of a write's ~28 statements, so it allocates
 * only what it must (docs/performance.md, "Sixth pass: the batch's answer"): when the parameters are
 * the arguments in order, the call's own array of them (fresh for each call, kept by nobody else);
 * else one array of their length; and the query's fields named, not spread.
 */
function withParameters(compiled: Compiled, args: unknown[]): CompiledQuery {
  const { query, slots } = compiled
  let parameters: unknown[]
  if (compiled.argumentsInOrder && args.length === slots.length) parameters = args
  else {
    parameters = new Array(slots.length)
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] as Compiled['slots'][number]
      parameters[i] =
        'argument' in slot
          ? slot.element === undefined
            ? args[slot.argument]
            : (args[slot.argument] as unknown[])[slot.element]
          : slot.constant
    }
  }
  return { query: query.query, queryId: query.queryId, sql: query.sql, parameters }
}

/** The dialect, and the length of each list argument: what a compiled query is kept by. */
function shapeOf(dialect: DialectName, args: unknown[], arity: number): string {
  let shape: string = dialect
  for (let i = 0; i < arity; i++) {
    const arg = args[i]
    if (Array.isArray(arg)) shape += `,${i}:${arg.length}`
  }
  return shape
}

function compile<Args extends unknown[], Row>(
  db: Executor,
  build: (db: Executor, ...args: Args) => Compilable<Row>,
  args: unknown[],
  arity: number,
): Compiled {
  const stands = Array.from({ length: arity }, (_, i) =>
    Array.isArray(args[i]) ? args[i].map((_, j) => `${SENTINEL}${i}.${j}`) : `${SENTINEL}${i}`,
  )
  const query = build(db, ...(stands as Args)).compile()
  const slots = query.parameters.map((value) => {
    if (typeof value !== 'string' || !value.startsWith(SENTINEL)) return { constant: value }
    const [argument, element] = value.slice(SENTINEL.length).split('.').map(Number) as [number, number?]
    return element === undefined ? { argument } : { argument, element }
  })
  // Every argument, and every element of a list, reaches the query once as a parameter.
  const expected = stands.flatMap((stand) => (Array.isArray(stand) ? stand : [stand]))
  const used = new Set(query.parameters.filter((v) => typeof v === 'string' && v.startsWith(SENTINEL)))
  const whole = stands.every((stand, i) => Array.isArray(stand) || used.has(`${SENTINEL}${i}`))
  if (query.sql.includes(SENTINEL) || !whole || expected.some((stand) => !used.has(stand))) {
    throw new Error(`compiledOnce: every argument must be a parameter of the query: ${query.sql}`)
  }
  const argumentsInOrder = slots.every(
    (slot, i) => 'argument' in slot && slot.argument === i && slot.element === undefined,
  )
  return { query, slots, argumentsInOrder }
}

/**
 * A single-row insert into `table` of exactly `columns`, compiled once per dialect (`compiledOnce`):
 * for the inserts on every write's path, which kysely would otherwise build and compile each time. A
 * row missing one of the columns (`undefined`: kysely leaves such a column to its default), or with
 * another column, is inserted by kysely as built: no default is replaced by a null, nothing dropped.
 */
export function compiledInsert<Row extends Record<string, unknown>>(
  table: string,
  columns: readonly (keyof Row & string)[],
): (db: Executor, row: Row) => Promise<void> {
  const insert = compiledRunner(
    (db: Executor, ...values: unknown[]) =>
      // biome-ignore lint/suspicious/noExplicitAny: kysely cannot type a table chosen by a parameter.
      (db as any).insertInto(table).values(Object.fromEntries(columns.map((c, i) => [c, values[i]]))),
    columns.length,
  )
  return async (db, row) => {
    // One array, the statement's parameters as they are (no keys listed, no second array of them).
    const values: unknown[] = new Array(columns.length)
    let missing = false
    for (let i = 0; i < columns.length; i++) {
      const value = row[columns[i] as string]
      if (value === undefined) missing = true
      values[i] = value
    }
    // A column left out, or one more than the compiled statement has: kysely builds this one.
    if (missing || columnCount(row) !== columns.length) {
      // biome-ignore lint/suspicious/noExplicitAny: as above.
      await (db as any).insertInto(table).values(row).execute()
      return
    }
    await insert(db, values)
  }
}

/** How many own enumerable keys `row` has, as `Object.keys(row).length` without the array. */
function columnCount(row: object): number {
  let count = 0
  for (const key in row) if (Object.hasOwn(row, key)) count++
  return count
}
