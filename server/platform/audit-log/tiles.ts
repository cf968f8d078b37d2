import type { Hash } from '../../../src/tlog/merkle.js'

/*
 * The layout of `audit_log_tiles` (migration 0019): tile t is leaves [256t, 256t + 256) of an
 * organization's log, and its row holds the 510 hashes of that subtree's levels 0 to 7, level by
 * level, each level left to right. Every inclusion proof's eight lowest nodes lie in its leaf's tile.
 */

/** The levels a tile holds (0 to TILE_LEVELS - 1); its root, one level up, is an ordinary node. */
export const TILE_LEVELS = 8
export const TILE_LEAVES = 2 ** TILE_LEVELS
/** Hashes in a tile's row: 256 + 128 + … + 2. */
export const TILE_HASHES = 2 * TILE_LEAVES - 2
const HASH_BYTES = 32

/** The tile holding node (level, index), for a level below TILE_LEVELS. */
export const tileOf = (level: number, index: number): number => Math.floor(index / 2 ** (TILE_LEVELS - level))

/** Where node (level, index) sits among its tile's hashes. */
function slotOf(level: number, index: number): number {
  const width = 2 ** (TILE_LEVELS - level)
  return 2 * TILE_LEAVES - 2 * width + (index - tileOf(level, index) * width)
}

/** Tile `tile`'s nodes, a run of indices per level. */
export function tileNodes(tile: number): { level: number; first: number; count: number }[] {
  return Array.from({ length: TILE_LEVELS }, (_, level) => {
    const count = 2 ** (TILE_LEVELS - level)
    return { level, first: tile * count, count }
  })
}

/** Tile `tile`'s row from its nodes; throws unless each of its 510 is there, once. */
export function packTile(tile: number, nodes: { level: number; idx: number; hash: Hash }[]): Buffer {
  const hashes = Buffer.alloc(TILE_HASHES * HASH_BYTES)
  const filled = new Uint8Array(TILE_HASHES)
  for (const { level, idx, hash } of nodes) {
    if (level >= TILE_LEVELS || tileOf(level, idx) !== tile || hash.length !== HASH_BYTES) {
      throw new Error(`log node ${level}/${idx} does not belong in tile ${tile}`)
    }
    const slot = slotOf(level, idx)
    if (filled[slot]) throw new Error(`log node ${level}/${idx} is twice in tile ${tile}`)
    filled[slot] = 1
    hash.copy(hashes, slot * HASH_BYTES)
  }
  if (filled.includes(0)) throw new Error(`tile ${tile} of the log is missing nodes`)
  return hashes
}

/** Node (level, index)'s hash from its tile's row. */
export function hashInTile(hashes: Buffer, level: number, index: number): Hash {
  const slot = slotOf(level, index)
  return hashes.subarray(slot * HASH_BYTES, (slot + 1) * HASH_BYTES)
}
