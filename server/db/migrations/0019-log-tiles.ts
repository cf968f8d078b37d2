import { type Kysely, type Migration, sql } from 'kysely'
import { dialectOf } from '../dialect.js'
import type { Executor } from '../queries.js'
import { insertLogTile, readTileNodes } from '../../audit-log/queries.js'
import { packTile, TILE_LEAVES } from '../../audit-log/tiles.js'

/**
 * The verifiable log's lower nodes, also kept by tile (issue 25, DESIGN §17): `audit_log_tiles` holds,
 * for each complete tile of 256 leaves, the 510 hashes of its levels 0 to 7 in one row. An inclusion
 * proof needs eight of them, all in its leaf's tile: one descent instead of eight into a B-tree that
 * grows with the log, whose pages stop fitting the CPU's caches long before 1M entries.
 * `audit_log_nodes` stays the record (consistency proofs and older tree sizes read it); a tile is
 * written once, by the append that completes it, and never changes.
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
      .$call((b) => (postgres ? b : b.modifyEnd(sql`without rowid`)))
      .execute()
    const logs = await db.selectFrom('audit_logs').select(['org_id', 'size']).execute()
    for (const { org_id, size } of logs) {
      for (let tile = 0; tile < Math.floor(Number(size) / TILE_LEAVES); tile++) {
        const store = async (trx: Executor) =>
          insertLogTile(trx, org_id, tile, packTile(tile, await readTileNodes(trx, org_id, tile)))
        // Each tile in its own transaction on SQLite; PostgreSQL runs the whole migration in one.
        await (db.isTransaction ? store(db) : db.transaction().execute(store))
      }
    }
  },
}
