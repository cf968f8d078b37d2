import type { Kysely, Migration } from 'kysely'
import { storeTile } from '../../audit-log/append.js'
import { TILE_LEAVES } from '../../audit-log/tiles.js'
import { dialectOf } from '../dialect.js'
import type { Executor } from '../queries.js'

/**
 * The verifiable log's lower nodes, also kept by tile (issue 25, docs/governance.md, "The verifiable log"):
 * `audit_log_tiles` holds, for each complete tile of 256 leaves, the 510 hashes of its levels 0 to 7 in one
 * row. An inclusion proof needs eight of them, all in its leaf's tile: one descent instead of eight into a
 * B-tree that grows with the log, whose pages stop fitting the CPU's caches long before 1M entries.
 * `audit_log_nodes` stays the record, and a proof reads a tile's row only for five of its nodes or
 * more; a tile is written once, by the append that completes it, and never changes. On SQLite it is a
 * rowid table: with 16 KB rows, WITHOUT ROWID would carry them in its key's B-tree, whose reads then
 * grew with the log (29–46 µs a row at 1M entries against 16–24 µs, 13–19 µs at 1k).
 *
 * Existing logs get their complete tiles here. Idempotent: kysely runs SQLite migrations statement by
 * statement, so a run cut short is run again and finishes the tiles it had not written.
 */
export const logTiles: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: the schema as it is here, not the current one.
  async up(db: Kysely<any>) {
    const postgres = dialectOf(db) === 'postgres'
    await db.schema
      .createTable('audit_log_tiles')
      .ifNotExists()
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('tile', postgres ? 'bigint' : 'integer', (c) => c.notNull())
      .addColumn('hashes', postgres ? 'bytea' : 'blob', (c) => c.notNull())
      .addPrimaryKeyConstraint('audit_log_tiles_pk', ['org_id', 'tile'])
      .execute()
    const logs = await db.selectFrom('audit_logs').select(['org_id', 'size']).execute()
    for (const { org_id, size } of logs) {
      for (let tile = 0; tile < Math.floor(Number(size) / TILE_LEAVES); tile++) {
        const store = (trx: Executor) => storeTile(trx, org_id, tile)
        // Each tile in its own transaction on SQLite; PostgreSQL runs the whole migration in one.
        await (db.isTransaction ? store(db) : db.transaction().execute(store))
      }
    }
  },
}
