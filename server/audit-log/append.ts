import type { AuditEventsTable } from '../db/accountability-schema.js'
import type { Executor } from '../db/queries.js'
import { eventLeafHash } from '../../src/tlog/leaf.js'
import { appendToFrontier, type Hash, rootOfFrontier } from '../../src/tlog/merkle.js'
import { auditEventFromRow } from '../audit/service.js'
import { insertLogNodes, insertLogTile, lockLog, readTileNodes, saveLog } from './queries.js'
import { packTile, TILE_HASHES, TILE_LEVELS } from './tiles.js'

/** An audit event about to be inserted; the append gives it its `log_index`. */
export type PendingAuditEvent = Omit<AuditEventsTable, 'log_index'> & { log_index?: number | null }

/**
 * Appends a write's audit events to their organizations' logs (docs/governance.md, "The verifiable log"), in
 * the write's transaction just before it commits, and sets each event's `log_index`. Per organization: one
 * locked read of its log row, the leaf hashes, the complete subtrees they finish (two rows per event on
 * average), one update: O(log n) at any size; every 256th event also stores its tile's row.
 * Organizations are locked in id order, so two writes touching the same two never wait on each other
 * crosswise.
 */
export async function appendToAuditLog(db: Executor, events: PendingAuditEvent[]): Promise<void> {
  const byOrg = new Map<string, PendingAuditEvent[]>()
  for (const event of events) {
    const list = byOrg.get(event.org_id)
    if (list) list.push(event)
    else byOrg.set(event.org_id, [event])
  }
  for (const orgId of [...byOrg.keys()].sort()) {
    const log = await lockLog(db, orgId)
    let size = log.size
    let frontier: Hash[] =
      log.frontier === '' ? [] : log.frontier.split(',').map((h) => Buffer.from(h, 'hex'))
    const nodes = []
    for (const event of byOrg.get(orgId) ?? []) {
      const leaf = eventLeafHash(auditEventFromRow({ ...event, log_index: null }))
      const step = appendToFrontier(size, frontier, leaf)
      for (const n of step.completed) {
        nodes.push({ org_id: orgId, level: n.level, idx: n.index, hash: n.hash })
      }
      frontier = step.frontier
      event.log_index = size
      size += 1
    }
    await insertLogNodes(db, nodes)
    // A node of level 8 completes its tile: its row is stored, once every 256 events.
    for (const node of nodes) if (node.level === TILE_LEVELS) await storeTile(db, orgId, node.idx)
    await saveLog(db, orgId, {
      size,
      root: rootOfFrontier(frontier).toString('hex'),
      frontier: frontier.map((h) => h.toString('hex')).join(','),
    })
  }
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
