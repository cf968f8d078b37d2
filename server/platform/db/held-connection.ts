import type SQLite from 'better-sqlite3'
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type Transaction,
  type TransactionSettings,
} from 'kysely'
import { ScopedStorage } from '../scoped-storage.js'
import { type CommitGroup, GROUPED_SAVEPOINT, openCommitGroup } from './commit-group.js'
import { dialectOf } from './dialect.js'
import type { Database } from './schema.js'

/*
 * One connection for a whole write. A write (server/pipeline/writes/run-write.ts) is one transaction opened by
 * the route layer, and the code it runs was written against the root database: services open their
 * own `ctx.db.transaction()`, and caches and signing keys read through `ctx.db`. Inside a write, on
 * SQLite (one connection behind a mutex) any of those would wait forever for the connection the write
 * holds; on PostgreSQL they would run on another connection, outside the write's transaction.
 *
 * So the dialect is wrapped: within `holdingConnection(fn)`, the first transaction begun takes its
 * connection and holds it until it ends; every query of the same asynchronous flow runs on it, and a
 * transaction begun inside it is a savepoint (rolled back alone when it fails, as it would have been).
 * Outside such a flow the driver behaves exactly as kysely's own.
 */

interface Holder {
  /** The connection of the flow's outermost transaction, while it is open. */
  connection: DatabaseConnection | undefined
  /**
   * Open transactions of the flow, outermost first: `null` for the real one, a savepoint's name, or
   * `''` for one begun inside `withoutSavepoints` (part of the enclosing transaction, no savepoint).
   */
  open: Array<string | null>
  /** How many `withoutSavepoints` calls the flow is inside. */
  flat: number
  /** How many transactions begun inside `withoutSavepoints` have failed (nothing was rolled back). */
  flatFailures: number
  /** SQLite's connection under the held one, to run compiled statements on (`executeCompiled`). */
  direct?: DirectStatements | undefined
  /**
   * On SQLite, the group of writes the flow's transaction is part of (./commit-group.ts): as the one that
   * began it (`leader`), or in a savepoint of it (`member`).
   */
  group?: { of: CommitGroup; as: 'leader' | 'member' } | undefined
  /**
   * The group its transaction committed into: the connection goes back when kysely releases it after
   * the commit, and the release then waits for the group's commit (`releaseConnection`).
   */
  awaiting?: CommitGroup | undefined
}

const holders = new ScopedStorage<Holder>()

/**
 * Runs `fn` so that its first transaction holds its connection for every query of the flow, and the
 * transactions begun inside it are savepoints. Nested calls share the outer flow's holder.
 */
export function holdingConnection<T>(fn: () => Promise<T>): Promise<T> {
  if (holders.getStore()) return fn()
  return holders.run({ connection: undefined, open: [], flat: 0, flatFailures: 0 }, fn)
}

/**
 * Runs `fn`, inside a transaction this flow holds, so that the transactions begun in it are no
 * savepoints but part of the enclosing transaction: what one of them wrote stays when it fails. Only
 * for work whose every failure fails the enclosing transaction too (an atomic batch: its first failed
 * operation rolls the whole write back), and only on SQLite, where a failed statement leaves the
 * transaction usable: on PostgreSQL it aborts the transaction, and a service that reads after a
 * refused statement (a unique violation's explanation) needs its savepoint rolled back first.
 *
 * A savepoint costs SQLite a copy of every page first changed inside it (its sub-journal), so one per
 * operation of a batch copied the same pages a thousand times, to roll back what the batch's failure
 * rolls back anyway.
 *
 * That rule is checked: if a transaction begun inside fails and `fn` still resolves (a caller caught
 * the failure and went on), its writes were kept where a savepoint would have undone them, so this
 * throws instead, and the enclosing write rolls back whole.
 */
export async function withoutSavepoints<T>(fn: () => Promise<T>): Promise<T> {
  const holder = holders.getStore()
  if (!holder?.connection) throw new Error('withoutSavepoints outside a held transaction')
  const failuresBefore = holder.flatFailures
  holder.flat++
  let result: T
  try {
    result = await fn()
  } finally {
    holder.flat--
  }
  if (holder.flatFailures > failuresBefore) {
    throw new Error(
      'a transaction failed inside withoutSavepoints and its caller went on: its writes were kept',
    )
  }
  return result
}

/**
 * Whether the flow holds its transaction with nothing begun inside it open: no savepoint (nor a
 * transaction begun inside `withoutSavepoints`) that a rollback could end while the outer one goes on.
 */
export function atTopOfHeldTransaction(): boolean {
  const holder = holders.getStore()
  return holder?.connection !== undefined && holder.open.length === 1
}

/**
 * Runs `fn` as a service's transaction (what `db.transaction().execute(fn)` does), given `db` itself
 * when it would be part of the enclosing transaction anyway: inside `withoutSavepoints`, where a
 * transaction begun is no savepoint, and where every query of the flow runs on its held connection
 * (the driver below), kysely's transaction object would only cost its connection provider, its begin
 * and commit calls and their promises, once per operation of a batch. A failure counts for
 * `withoutSavepoints`'s check as a failed transaction's would. Anywhere else it is a transaction (or a
 * savepoint) as before.
 */
export async function serviceTransaction<DB, T>(
  db: Kysely<DB>,
  fn: (trx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  const holder = holders.getStore()
  if (!holder?.connection || holder.flat === 0) return db.transaction().execute(fn)
  holder.open.push('')
  try {
    return await fn(db)
  } catch (error) {
    holder.flatFailures++
    throw error
  } finally {
    holder.open.pop()
  }
}

/**
 * Runs `fn` in a transaction of its own, as `db.transaction().execute(fn)` does; but when this flow
 * already holds a transaction on SQLite, on that transaction itself: no savepoint, no kysely
 * transaction around it. For a service whose every failure fails the write that runs it, or is undone
 * by a savepoint around it (a batch's operation run alone, a dry run); SQLite's transaction stays
 * usable after a refused statement. A single POST's service transaction was a savepoint only because
 * the route's write had begun first: SQLite's `savepoint` and `release`, the sub-journal copy of every
 * page the service changed, and kysely's transaction, to roll back what the write's own rollback
 * undoes anyway (docs/performance.md, "Third pass: the credential POST"). On PostgreSQL a failed
 * statement aborts the transaction, so there it stays a savepoint.
 */
export function ownTransaction<T>(
  db: Kysely<Database>,
  fn: (trx: Kysely<Database> | Transaction<Database>) => Promise<T>,
): Promise<T> {
  const holder = holders.getStore()
  if (!holder?.connection || dialectOf(db) !== 'sqlite') return db.transaction().execute(fn)
  if (holder.flat === 0) return fn(db)
  // Inside withoutSavepoints a failure counts for its check, as a failed transaction's would there.
  return fn(db).catch((error: unknown) => {
    holder.flatFailures++
    throw error
  })
}

/**
 * The rows of a query compiled beforehand (server/platform/db/compiled-query.ts), run with `db`: on
 * the connection this flow holds, when it holds one, straight away. Every query of such a flow runs on
 * that connection anyway (the driver below gives it to each), so this only skips kysely's executor
 * around it (its connection provider, its mutex chain and its result transform: several promises per
 * statement, each paying the async context hooks, which made up a tenth of a transfer in a batch); on
 * SQLite it runs on the connection itself (`heldRows`). A failed statement is still reported to the
 * database error metric. Outside a
 * held connection a read on SQLite runs on its connection directly while no transaction is open on it
 * (`directRows`); anything else (a write, a read while a transaction is open, PostgreSQL) kysely runs
 * as before.
 */
export function executeCompiled<R>(
  db: { executeQuery<O>(query: CompiledQuery<O>): Promise<QueryResult<O>> },
  query: CompiledQuery<R>,
): Promise<R[]> {
  const holder = holders.getStore()
  const held = holder?.connection
  if (held)
    return holder.direct ? heldRows<R>(holder.direct, query) : held.executeQuery<R>(query).then(rowsOf)
  return directRows<R>(db, query) ?? db.executeQuery<R>(query).then(rowsOf)
}

/**
 * The rows of a statement compiled beforehand, run at once on SQLite's one connection, which this flow
 * holds in a transaction (its `begin` was sent on it, and kysely's mutex is this flow's until the
 * commit): what kysely's SQLite connection does (a reader's rows; a write run, answering no rows),
 * without the result object, its BigInt conversions and the two promises chained on it (the failure
 * report's and the rows'), for each of a write's statements (a transfer POST runs ~28:
 * docs/performance.md, "Fourth pass: the writes"). A failure is reported to `onQueryError` and
 * answered as a rejection, as the driver's are. PostgreSQL has no such connection: kysely runs it.
 */
function heldRows<R>(direct: DirectStatements, query: CompiledQuery<R>): Promise<R[]> {
  try {
    const statement = direct.prepare(query.sql)
    const parameters = query.parameters as unknown[]
    if (statement.reader) return Promise.resolve(statement.all(parameters) as R[])
    statement.run(parameters)
    return Promise.resolve([])
  } catch (error) {
    direct.onQueryError?.(error)
    return Promise.reject(error)
  }
}

const rowsOf = <R>(result: QueryResult<R>): R[] => result.rows as R[]

/**
 * The rows of a read compiled beforehand, run straight on SQLite's one connection, or `undefined` when
 * kysely must run it. Kysely takes the connection through its executor, its connection provider, the
 * driver and the SQLite driver's mutex, and gives it back the same way (a dozen async functions and
 * their promises for a statement that runs synchronously); a hot read (an authenticated `GET` by id)
 * paid that on every request. Only a read (`readonly`: it changes nothing) by the root database
 * (`directReads`), outside a held connection (asked first by the caller), and only while no
 * transaction is open on the connection: a read that kysely would have queued behind another flow's
 * transaction (which holds the mutex) is still queued behind it, so it never sees uncommitted rows.
 * With the mutex taken but no transaction open, kysely's holder runs nothing the read could see
 * half-done (its statements are synchronous). PostgreSQL is never read this way: its reads take a
 * connection of the pool as before. A failed statement is reported to `onQueryError`, as the driver's
 * are, and answered as a rejection.
 */
export function directRows<R>(db: object, query: CompiledQuery<R>): Promise<R[]> | undefined {
  const direct = directReads.get(db)
  if (direct === undefined || direct.sqlite.inTransaction) return undefined
  let statement: SQLite.Statement
  try {
    statement = direct.prepare(query.sql)
    if (!statement.readonly) return undefined
    return Promise.resolve(statement.all(query.parameters as unknown[]) as R[])
  } catch (error) {
    direct.onQueryError?.(error)
    return Promise.reject(error)
  }
}

interface DirectStatements {
  /** Its statements, prepared once (the cache kysely's driver uses: server/platform/db/database.ts). */
  prepare: (sql: string) => SQLite.Statement
  onQueryError: ((error: unknown) => void) | undefined
}

interface DirectReads extends DirectStatements {
  /** The database's one connection. */
  sqlite: SQLite.Database
}

const directReads = new WeakMap<object, DirectReads>()

/**
 * Lets `executeCompiled` run the reads of `db` (a root database over SQLite, never a transaction)
 * straight on `sqlite`, the connection its driver uses, through the same statement cache.
 */
export function readsDirectly(db: object, reads: DirectReads): void {
  directReads.set(db, reads)
}

/**
 * The dialect, with its driver wrapped as above (for SQLite and PostgreSQL alike). `onQueryError` is
 * told of every statement that fails (the database error metric) and must not throw.
 */
export function holdingDialect(
  dialect: Dialect,
  onQueryError?: (error: unknown) => void,
  /** SQLite's statement cache, over the one connection the dialect's driver uses (`heldRows`). */
  sqliteStatements?: (sql: string) => SQLite.Statement,
  /** That connection, whose writes then commit in groups (./commit-group.ts). */
  sqlite?: { readonly inTransaction: boolean },
): Dialect {
  const direct = sqliteStatements ? { prepare: sqliteStatements, onQueryError } : undefined
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => new HoldingDriver(dialect.createDriver(), onQueryError, direct, sqlite),
  }
}

class HoldingDriver implements Driver {
  /** The connections whose statements already report their failures. */
  private readonly reporting = new WeakSet<DatabaseConnection>()

  constructor(
    private readonly inner: Driver,
    private readonly onQueryError: ((error: unknown) => void) | undefined,
    private readonly direct: DirectStatements | undefined,
    /** SQLite's one connection, when its writes commit in groups. */
    private readonly sqlite: { readonly inTransaction: boolean } | undefined,
  ) {}

  init(): Promise<void> {
    return this.inner.init()
  }

  /** On SQLite, the group of writes whose transaction is open on the connection (./commit-group.ts). */
  private group: CommitGroup | undefined

  async acquireConnection(): Promise<DatabaseConnection> {
    const holder = holders.getStore()
    if (holder?.connection) return holder.connection
    let connection = this.reportingErrors(await this.inner.acquireConnection())
    // A write may join the open group (`beginTransaction`). Anything else waits for its commit: a read
    // must not see what a group has not committed, nor a job's transaction begin inside it.
    if (holder || this.sqlite === undefined) return connection
    while (this.group) {
      const { done } = this.group
      await this.inner.releaseConnection(connection)
      await done.catch(() => {})
      connection = this.reportingErrors(await this.inner.acquireConnection())
    }
    return connection
  }

  /**
   * Forgets the open group if SQLite no longer has its transaction: an I/O or full-disk error may roll
   * back the whole transaction, not just the statement. Its writes then fail: the ones waiting for its
   * commit are told so, and no later write joins it (a savepoint outside a transaction would begin one,
   * and its release commit it alone).
   */
  private dropLostGroup(): void {
    const group = this.group
    if (!group || this.sqlite?.inTransaction) return
    this.group = undefined
    group.reject(new Error('SQLite rolled back the transaction of a group of writes'))
  }

  /** Commits `group` once the writes queued for the connection before this call have joined it. */
  private async commitGroup(group: CommitGroup): Promise<void> {
    let connection: DatabaseConnection
    try {
      connection = await this.inner.acquireConnection()
    } catch (error) {
      return group.reject(error)
    }
    try {
      // Its first write rolled back, and with it the transaction, or SQLite lost the transaction (the
      // group is failed then): nothing to commit.
      this.dropLostGroup()
      if (this.group !== group) return
      this.group = undefined
      try {
        await this.inner.commitTransaction(connection)
      } catch (error) {
        // A failed commit may leave SQLite's transaction open: every write of the group fails.
        await this.inner.rollbackTransaction(connection).catch(() => {})
        return group.reject(error)
      }
      group.resolve()
    } finally {
      await this.inner.releaseConnection(connection)
    }
  }

  /**
   * The connection, its statements telling `onQueryError` of each failure. Kysely's `log` option did
   * this, but wraps every statement in an async function that times it and awaits a query logger even
   * when only errors are logged: two more promises and a clock read per statement, ~3 % of a transfer
   * POST. This adds one rejection handler; each connection is wrapped once (they are reused).
   */
  private reportingErrors(connection: DatabaseConnection): DatabaseConnection {
    const report = this.onQueryError
    if (!report || this.reporting.has(connection)) return connection
    this.reporting.add(connection)
    const executeQuery = connection.executeQuery.bind(connection)
    const failed = (error: unknown) => {
      report(error)
      return Promise.reject(error)
    }
    connection.executeQuery = ((query: CompiledQuery) => {
      // SQLite's statements fail as they run (a throw), PostgreSQL's later (a rejection): both are
      // reported, and both answered as a rejection, as kysely's async wrapper did.
      let result: Promise<QueryResult<unknown>>
      try {
        result = executeQuery(query)
      } catch (error) {
        return failed(error)
      }
      return result.catch(failed)
    }) as DatabaseConnection['executeQuery']
    const streamQuery = connection.streamQuery.bind(connection)
    connection.streamQuery = async function* (query, chunkSize) {
      try {
        yield* streamQuery(query, chunkSize)
      } catch (error) {
        report(error)
        throw error
      }
    }
    return connection
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const holder = holders.getStore()
    if (!holder) return this.inner.beginTransaction(connection, settings)
    if (holder.connection === undefined) {
      if (this.sqlite !== undefined) this.dropLostGroup()
      if (this.group) {
        await connection.executeQuery(CompiledQuery.raw(`savepoint ${GROUPED_SAVEPOINT}`))
        holder.group = { of: this.group, as: 'member' }
      } else {
        await this.inner.beginTransaction(connection, settings)
        if (this.sqlite !== undefined) {
          const group = openCommitGroup()
          this.group = group
          holder.group = { of: group, as: 'leader' }
          // Queued behind the writes already waiting for the connection: they join before it commits.
          setImmediate(() => void this.commitGroup(group))
        }
      }
      holder.connection = connection
      holder.direct = this.direct
      holder.open.push(null)
      return
    }
    if (holder.flat > 0) return void holder.open.push('')
    // Named by depth, not by a count of the write's savepoints: the open ones still differ (one per
    // depth), and the texts stay a handful. A name per savepoint made each `savepoint`/`release` a new
    // statement to prepare, and a batch of 1,000 operations (a savepoint each) filled the statement
    // cache (server/platform/db/database.ts) four times over, emptying it of every other statement each time.
    const name = `rwa_nested_${holder.open.length}`
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${name}`))
    holder.open.push(name)
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const holder = holders.getStore()
    if (!holder || holder.connection !== connection) return this.inner.commitTransaction(connection)
    const name = holder.open.pop()
    if (name === '') return
    if (name) return void (await connection.executeQuery(CompiledQuery.raw(`release savepoint ${name}`)))
    const group = holder.group
    if (!group) {
      holder.connection = undefined
      return this.inner.commitTransaction(connection)
    }
    if (group.as === 'member') {
      try {
        await connection.executeQuery(CompiledQuery.raw(`release savepoint ${GROUPED_SAVEPOINT}`))
      } catch (error) {
        holder.open.push(null) // still open: the rollback that follows undoes it
        throw error
      }
    }
    holder.connection = undefined
    holder.awaiting = group.of
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const holder = holders.getStore()
    if (!holder || holder.connection !== connection) return this.inner.rollbackTransaction(connection)
    const name = holder.open.pop()
    if (name === '') return void holder.flatFailures++
    if (name) {
      await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${name}`))
      return void (await connection.executeQuery(CompiledQuery.raw(`release savepoint ${name}`)))
    }
    holder.connection = undefined
    const group = holder.group
    if (group?.as === 'member') {
      await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${GROUPED_SAVEPOINT}`))
      return void (await connection.executeQuery(CompiledQuery.raw(`release savepoint ${GROUPED_SAVEPOINT}`)))
    }
    // The group's first write: no other has joined yet (they wait for the connection it still holds).
    if (group && this.group === group.of) this.group = undefined
    await this.inner.rollbackTransaction(connection)
    group?.of.resolve()
  }

  savepoint: Driver['savepoint'] = (connection, name, compile) =>
    this.inner.savepoint?.(connection, name, compile) ?? Promise.resolve()
  rollbackToSavepoint: Driver['rollbackToSavepoint'] = (connection, name, compile) =>
    this.inner.rollbackToSavepoint?.(connection, name, compile) ?? Promise.resolve()
  releaseSavepoint: Driver['releaseSavepoint'] = (connection, name, compile) =>
    this.inner.releaseSavepoint?.(connection, name, compile) ?? Promise.resolve()

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // A held connection is released once, by the transaction that took it (it is no longer held then).
    const holder = holders.getStore()
    if (holder?.connection === connection) return
    // A write committed into a group: the connection goes to the writes waiting for it, which join the
    // group; then the group's commit runs, and this write is durable (or failed) with it. Told once, so
    // that a query its flow left running past the commit (same holder) gives the connection back too:
    // a flag kept until the flow ended kept that query's connection forever, and every later write
    // waited for it.
    const group = holder?.awaiting
    if (holder) holder.awaiting = undefined
    await this.inner.releaseConnection(connection)
    if (group) await group.done
  }

  destroy(): Promise<void> {
    return this.inner.destroy()
  }
}

/**
 * Runs `fn` outside any held flow: its queries take a connection of their own, as outside a write (a
 * task started from inside a write that must not be part of it, nor wait for it).
 */
export const outsideHeldConnection = <T>(fn: () => T): T => holders.exit(fn)
