import { type Kysely, type Migration, sql } from 'kysely'
import { isPostgres } from './dialect.js'

/**
 * The verifiable log's stored nodes (0015) read with one B-tree descent each, in half the space
 * (issue 25, docs/governance.md, "The verifiable log"): an inclusion proof reads one node per level, each on
 * its own page once the log outgrows the page cache, so each node's cost is that of the pages it touches.
 * - `hash` is the 32-byte hash itself (SQLite blob, PostgreSQL bytea) instead of 64 hex characters.
 * - On SQLite the table is `WITHOUT ROWID`, clustered on its primary key (org_id, level, idx): a
 *   lookup descends that one B-tree, where a rowid table descends its primary key's index, then the
 *   table for the hash. SQLite cannot change either in place, so the table is rebuilt (copy, drop,
 *   rename), its rows converted by SQLite's `unhex()` in one statement. PostgreSQL converts the column
 *   in place (`decode(hash, 'hex')`); its tables are heaps behind their indexes whatever is declared.
 */
export const logNodeBlobs: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: the schema as it is here, not the current one.
  async up(db: Kysely<any>) {
    if (isPostgres(db)) {
      await sql`alter table audit_log_nodes alter column hash type bytea using decode(hash, 'hex')`.execute(
        db,
      )
      return
    }
    // One transaction (kysely runs SQLite migrations statement by statement, without one): a crash
    // leaves the table as it was or converted, never copied halfway nor dropped before its rename.
    // Converted already (a crash after the commit, before kysely recorded the migration): done.
    const hash = await sql<{
      type: string
    }>`select type from pragma_table_info('audit_log_nodes') where name = 'hash'`.execute(db)
    if (hash.rows[0]?.type.toLowerCase() === 'blob') return
    await db.transaction().execute(async (trx) => {
      await trx.schema
        .createTable('audit_log_nodes_0018')
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('level', 'integer', (c) => c.notNull())
        .addColumn('idx', 'integer', (c) => c.notNull())
        .addColumn('hash', 'blob', (c) => c.notNull())
        .addPrimaryKeyConstraint('audit_log_nodes_pk', ['org_id', 'level', 'idx'])
        .modifyEnd(sql`without rowid`)
        .execute()
      // In key order, so the new table's pages are written in order, full. unhex() is null for a hash
      // that is not hex, which the not-null constraint refuses: no node is silently lost.
      await sql`insert into audit_log_nodes_0018 (org_id, level, idx, hash)
        select org_id, level, idx, unhex(hash) from audit_log_nodes order by org_id, level, idx`.execute(trx)
      await trx.schema.dropTable('audit_log_nodes').execute()
      await trx.schema.alterTable('audit_log_nodes_0018').renameTo('audit_log_nodes').execute()
    })
  },
}
