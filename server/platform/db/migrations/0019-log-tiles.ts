import type { Kysely, Migration } from 'kysely'
import { isPostgres } from './dialect.js'

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
    const postgres = isPostgres(db)
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
        // biome-ignore lint/suspicious/noExplicitAny: the schema as it is here.
        const store = (trx: Kysely<any>) => storeTile(trx, org_id, tile)
        // Each tile in its own transaction on SQLite; PostgreSQL runs the whole migration in one.
        await (db.isTransaction ? store(db) : db.transaction().execute(store))
      }
    }
  },
}

/*
 * A tile's row, as the append stored it when this migration was written (docs/architecture.md,
 * "Migrations are frozen in time"): tile t is leaves [256t, 256t + 256), its row the 510 hashes of its
 * levels 0 to 7, level by level, each level left to right.
 */

const TILE_LEVELS = 8
const TILE_LEAVES = 2 ** TILE_LEVELS
const TILE_HASHES = 2 * TILE_LEAVES - 2
const HASH_BYTES = 32

/** Stores tile `tile`'s row from its stored nodes; a tile lacking some keeps no row, one stored stays. */
// biome-ignore lint/suspicious/noExplicitAny: the schema as it is here.
async function storeTile(db: Kysely<any>, orgId: string, tile: number): Promise<void> {
  const levels = Array.from({ length: TILE_LEVELS }, (_, level) => {
    const count = 2 ** (TILE_LEVELS - level)
    return { level, first: tile * count, count }
  })
  const nodes: { level: number; idx: number; hash: Buffer }[] = await db
    .selectFrom('audit_log_nodes')
    .select(['level', 'idx', 'hash'])
    .where('org_id', '=', orgId)
    .where((eb) =>
      eb.or(
        levels.map(({ level, first, count }) =>
          eb.and([eb('level', '=', level), eb('idx', '>=', first), eb('idx', '<', first + count)]),
        ),
      ),
    )
    .execute()
  if (nodes.length !== TILE_HASHES) return
  const hashes = Buffer.alloc(TILE_HASHES * HASH_BYTES)
  const filled = new Uint8Array(TILE_HASHES)
  for (const { level, idx, hash } of nodes) {
    const width = 2 ** (TILE_LEVELS - level)
    const slot = 2 * TILE_LEAVES - 2 * width + (idx - tile * width)
    if (hash.length !== HASH_BYTES || filled[slot])
      throw new Error(`log node ${level}/${idx} is wrong in tile ${tile}`)
    filled[slot] = 1
    hash.copy(hashes, slot * HASH_BYTES)
  }
  await db
    .insertInto('audit_log_tiles')
    .values({ org_id: orgId, tile, hashes })
    .onConflict((oc) => oc.columns(['org_id', 'tile']).doNothing())
    .execute()
}
