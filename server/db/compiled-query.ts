import type { Compilable, CompiledQuery, Kysely, Transaction } from 'kysely'
import { type DialectName, dialectOf } from './dialect.js'
import type { Database } from './schema.js'

type Executor = Kysely<Database> | Transaction<Database>

/** Stands for the argument at its index while the query is compiled; never a real value. */
const SENTINEL = '\u0000rwa-argument-'

/** A query compiled for one dialect: its SQL, and where each parameter's value comes from. */
interface Compiled {
  query: CompiledQuery
  /** Per parameter: the index of the argument that gives its value, or the constant the query holds. */
  slots: ({ argument: number } | { constant: unknown })[]
}

/**
 * A query built by kysely once per dialect and then run with new values: kysely builds a query's
 * operation tree and compiles it to SQL on every call, which the benchmark's profile of an
 * authenticated read put at about a fifth of the request's CPU. `build` is called once per dialect with
 * stand-ins for its arguments; every argument must reach the query only as a value (a parameter of the
 * SQL), never choose its shape — which is checked when it is compiled. The SQL stays written with
 * kysely in the area's queries module, and works on every dialect like any other query there.
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
  const byDialect = new Map<DialectName, Compiled>()
  return async (db, ...args) => {
    const dialect = dialectOf(db)
    let compiled = byDialect.get(dialect)
    if (compiled === undefined) {
      compiled = compile(db, build, arity)
      byDialect.set(dialect, compiled)
    }
    const parameters = compiled.slots.map((slot) =>
      'argument' in slot ? args[slot.argument] : slot.constant,
    )
    const result = await db.executeQuery<Row>({ ...compiled.query, parameters })
    return result.rows
  }
}

function compile<Args extends unknown[], Row>(
  db: Executor,
  build: (db: Executor, ...args: Args) => Compilable<Row>,
  arity: number,
): Compiled {
  const stands = Array.from({ length: arity }, (_, i) => `${SENTINEL}${i}`)
  const query = build(db, ...(stands as Args)).compile()
  const slots = query.parameters.map((value) => {
    const at = typeof value === 'string' && value.startsWith(SENTINEL) ? stands.indexOf(value) : -1
    return at >= 0 ? { argument: at } : { constant: value }
  })
  const used = new Set(slots.flatMap((slot) => ('argument' in slot ? [slot.argument] : [])))
  if (query.sql.includes(SENTINEL) || used.size !== arity) {
    throw new Error(`compiledOnce: every argument must be a parameter of the query: ${query.sql}`)
  }
  return { query, slots }
}
