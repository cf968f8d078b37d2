import { EMPTY_ROOT, type Hash, type NodeId } from '../../../src/tlog/merkle.js'
import type { Executor } from '../db/queries.js'
import {
  insertLogNodes,
  insertLogTile,
  lockLog,
  readLog,
  readLogNodes,
  readLogTiles,
  readTileNodes,
  saveLog,
} from './queries.js'
import type { LogNode, LogState, LogStore } from './store.js'
import { hashInTile, packTile, TILE_HASHES, TILE_LEAVES, TILE_LEVELS, tileOf } from './tiles.js'

/*
 * The log in the database (migrations 0015, 0018, 0019): `audit_logs` holds each organization's state
 * (size, root, frontier), `audit_log_nodes` every complete subtree, and `audit_log_tiles` the lower
 * eight levels of each complete tile of 256 leaves again in one row, which a proof reads instead of
 * eight nodes. The nodes are the record; a tile is only their copy, written by the append that
 * completes it.
 */

const hex = (hashes: Hash[]): string => hashes.map((h) => h.toString('hex')).join(',')
const unhex = (frontier: string): Hash[] =>
  frontier === '' ? [] : frontier.split(',').map((h) => Buffer.from(h, 'hex'))

const stateOf = (row: { size: number; root: string; frontier: string } | undefined): LogState =>
  !row || row.size === 0
    ? { size: 0, root: EMPTY_ROOT, frontier: [] }
    : { size: row.size, root: Buffer.from(row.root, 'hex'), frontier: unhex(row.frontier) }

export const sqlLogStore: LogStore = {
  readCheckpoint: async (db, orgId) => stateOf(await readLog(db, orgId)),
  lockCheckpoint: async (db, orgId) => stateOf(await lockLog(db, orgId)),

  async append(db, orgId, completed, next) {
    await insertLogNodes(
      db,
      completed.map((n) => ({ org_id: orgId, level: n.level, idx: n.index, hash: n.hash })),
    )
    // A node of level 8 completes its tile: its row is stored, once every 256 events.
    for (const node of completed) if (node.level === TILE_LEVELS) await storeTile(db, orgId, node.index)
    await saveLog(db, orgId, {
      size: next.size,
      root: next.root.toString('hex'),
      frontier: hex(next.frontier),
    })
  },

  readNodes: readStoredNodes,
}

/**
 * Stores a complete tile's row from its 510 stored nodes. A tile the store lacks nodes of (a log
 * restored from its frontier alone) keeps no row: its proofs read the nodes one by one, as the nodes
 * are the record and a tile only their copy.
 */
export async function storeTile(db: Executor, orgId: string, tile: number): Promise<void> {
  const nodes = await readTileNodes(db, orgId, tile)
  if (nodes.length === TILE_HASHES) await insertLogTile(db, orgId, tile, packTile(tile, nodes))
}

/**
 * Stored nodes: those below level 8 of a complete tile from its row when it holds several of them (an
 * inclusion proof's leaf and eight lowest nodes share their leaf's tile: one descent instead of nine),
 * the others, and any whose tile has no row, one by one. A row is 16 KB: for one or two nodes, their
 * own descents cost less.
 */
async function readStoredNodes(
  db: Executor,
  orgId: string,
  size: number,
  nodes: NodeId[],
): Promise<LogNode[]> {
  const completeTiles = Math.floor(size / TILE_LEAVES)
  const byTile = new Map<number, NodeId[]>()
  const single: NodeId[] = []
  for (const node of nodes) {
    const tile = node.level < TILE_LEVELS ? tileOf(node.level, node.index) : completeTiles
    if (tile >= completeTiles) {
      single.push(node)
      continue
    }
    const inTile = byTile.get(tile)
    if (inTile) inTile.push(node)
    else byTile.set(tile, [node])
  }
  for (const [tile, inTile] of byTile) {
    if (inTile.length >= NODES_WORTH_A_TILE) continue
    single.push(...inTile)
    byTile.delete(tile)
  }
  const found: LogNode[] = []
  if (byTile.size > 0) {
    for (const { tile, hashes } of await readLogTiles(db, orgId, [...byTile.keys()])) {
      for (const { level, index } of byTile.get(tile) ?? []) {
        found.push({ level, index, hash: hashInTile(hashes, level, index) })
      }
      byTile.delete(tile)
    }
    // Tiles without their row yet (a log appended before 0019 finished): node by node.
    for (const left of byTile.values()) single.push(...left)
  }
  if (single.length > 0) {
    for (const row of await readLogNodes(db, orgId, single)) {
      found.push({ level: row.level, index: row.idx, hash: row.hash })
    }
  }
  return found
}

/**
 * From how many of its nodes a tile's row is read instead of each node: on a 1M-entry log, a row cost
 * 18–25 µs to read and a node 3.5–5 µs (better-sqlite3, pages mapped).
 */
const NODES_WORTH_A_TILE = 5
