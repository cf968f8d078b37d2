import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { withStatementCache } from '../../server/platform/db/database.js'
import { holdingDialect } from '../../server/platform/db/held-connection.js'

/**
 * A Kysely over an in-memory SQLite through `holdingDialect`, as the server opens its database, with the
 * SQL of every statement recorded by the door it was prepared through: kysely's driver (`viaKysely`:
 * its queries, `begin`, `commit`, savepoints) or the held connection's direct one (`viaHeld`, when
 * `direct`). Both doors share one statement cache, as in the server. `groups` gives the dialect the
 * connection, so its writes commit in groups (server/platform/db/commit-group.ts).
 */
export function recordedSqlite<Schema>(
  options: {
    direct?: boolean
    groups?: boolean
    onQueryError?: (error: unknown) => void
    setup?: string
  } = {},
) {
  const sqlite = new SQLite(':memory:')
  if (options.setup) sqlite.exec(options.setup)
  const cache = withStatementCache(sqlite)
  const viaKysely: string[] = []
  const viaHeld: string[] = []
  const db = new Kysely<Schema>({
    dialect: holdingDialect(
      new SqliteDialect({
        database: {
          close: cache.close,
          prepare: (sql: string) => {
            viaKysely.push(sql)
            return cache.prepare(sql)
          },
        },
      }),
      options.onQueryError,
      options.direct === false
        ? undefined
        : (sql) => {
            viaHeld.push(sql)
            return cache.prepare(sql) as SQLite.Statement
          },
      options.groups ? sqlite : undefined,
    ),
  })
  return { sqlite, db, viaKysely, viaHeld }
}
