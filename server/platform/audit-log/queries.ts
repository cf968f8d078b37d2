import type { Insertable } from 'kysely'
import type { NodeId } from '../../../src/tlog/merkle.js'
import type { AuditLogNodesTable } from '../db/accountability-schema.js'
import { compiledOnce } from '../db/compiled-query.js'
import { type Executor, insertRows, withLock } from '../db/queries.js'
import { tileNodes } from './tiles.js'

/**
 * Every query of the verifiable log (docs/governance.md, "The verifiable log"); each filters by org_id first.
 */

const logRow = (db: Executor, orgId: string) =>
  db.selectFrom('audit_logs').select(['size', 'root', 'frontier']).where('org_id', '=', orgId)

/**
 * The organization's log row, locked until the write commits: appends of one organization run one
 * at a time, in commit order, across instances. SQLite runs one transaction at a time and needs no
 * lock. The first append creates the row (a concurrent first append waits on its key, then finds it).
 */
export async function lockLog(db: Executor, orgId: string) {
  const locked = async () => (await lockedLogRow(db, orgId))[0]
  const row = await locked()
  if (row) return row
  await db
    .insertInto('audit_logs')
    .values({ org_id: orgId, size: 0, root: '', frontier: '' })
    .onConflict((oc) => oc.column('org_id').doNothing())
    .execute()
  const created = await locked()
  if (!created) throw new Error(`the audit log of ${orgId} could not be created`)
  return created
}

/* Compiled once per dialect (`compiledOnce`), as saveLog: every write runs both. */
const lockedLogRow = compiledOnce((db: Executor, orgId: string) => withLock(db, logRow(db, orgId), 'update'))

/** The organization's log as last committed, if it has one. */
export const readLog = (db: Executor, orgId: string) => logRow(db, orgId).executeTakeFirst()

export async function saveLog(
  db: Executor,
  orgId: string,
  log: { size: number; root: string; frontier: string },
): Promise<void> {
  await updateLog(db, orgId, log.size, log.root, log.frontier)
}

const updateLog = compiledOnce((db: Executor, orgId: string, size: number, root: string, frontier: string) =>
  db.updateTable('audit_logs').set({ size, root, frontier }).where('org_id', '=', orgId),
)

/** Stores the complete subtrees an append completed. */
export async function insertLogNodes(db: Executor, rows: Insertable<AuditLogNodesTable>[]): Promise<void> {
  await insertRows(db, 'audit_log_nodes', rows)
}

/** One query per number of nodes asked for, compiled once per dialect (see `readLogNodes`). */
const nodeQueries = new Map<
  number,
  (db: Executor, orgId: string, ...coordinates: number[]) => Promise<NodeRow[]>
>()

type NodeRow = { level: number; idx: number; hash: Buffer }

/**
 * The stored hashes of the given complete subtrees (a proof's O(log n) of them), in one query. Each
 * term names the whole primary key, so both engines look each node up by it (SQLite's OR
 * optimization, PostgreSQL's bitmap OR) instead of scanning the organization's nodes. The query is
 * built and compiled by kysely once per count of nodes (`compiledOnce`): compiling it anew cost more
 * than running it, and grew with the count, which made a proof at 1M entries cost 1.46× one at 1k.
 */
export function readLogNodes(db: Executor, orgId: string, nodes: NodeId[]): Promise<NodeRow[]> {
  if (nodes.length === 0) return Promise.resolve([])
  const count = nodes.length
  let query = nodeQueries.get(count)
  if (!query) {
    query = compiledOnce(
      (db: Executor, orgId: string, ...coordinates: number[]) =>
        db
          .selectFrom('audit_log_nodes')
          .select(['level', 'idx', 'hash'])
          .where((eb) =>
            eb.or(
              Array.from({ length: count }, (_, i) =>
                eb.and([
                  eb('org_id', '=', orgId),
                  eb('level', '=', coordinates[2 * i] as number),
                  eb('idx', '=', coordinates[2 * i + 1] as number),
                ]),
              ),
            ),
          ),
      1 + 2 * count,
    )
    nodeQueries.set(count, query)
  }
  return query(db, orgId, ...nodes.flatMap((n) => [n.level, n.index]))
}

/** The stored nodes of a tile (levels 0 to 7 under one level-8 node), its row's content. */
export function readTileNodes(db: Executor, orgId: string, tile: number): Promise<NodeRow[]> {
  return db
    .selectFrom('audit_log_nodes')
    .select(['level', 'idx', 'hash'])
    .where('org_id', '=', orgId)
    .where((eb) =>
      eb.or(
        tileNodes(tile).map(({ level, first, count }) =>
          eb.and([eb('level', '=', level), eb('idx', '>=', first), eb('idx', '<', first + count)]),
        ),
      ),
    )
    .execute()
}

/** Stores a complete tile's row; one already stored (the same nodes, so the same bytes) stays. */
export async function insertLogTile(
  db: Executor,
  orgId: string,
  tile: number,
  hashes: Buffer,
): Promise<void> {
  await db
    .insertInto('audit_log_tiles')
    .values({ org_id: orgId, tile, hashes })
    .onConflict((oc) => oc.columns(['org_id', 'tile']).doNothing())
    .execute()
}

/** The rows of the given complete tiles (a proof's one, usually), compiled once per count. */
const readLogTilesOnce = compiledOnce((db: Executor, orgId: string, tiles: number[]) =>
  db
    .selectFrom('audit_log_tiles')
    .select(['tile', 'hashes'])
    .where('org_id', '=', orgId)
    .where('tile', 'in', tiles),
)
export const readLogTiles = (db: Executor, orgId: string, tiles: number[]) =>
  tiles.length === 0 ? Promise.resolve([]) : readLogTilesOnce(db, orgId, tiles)

/** The events at log positions [start, end), in log order. */
export function listLogEntries(db: Executor, orgId: string, start: number, end: number) {
  return db
    .selectFrom('audit_events')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('log_index', '>=', start)
    .where('log_index', '<', end)
    .orderBy('log_index')
    .execute()
}

/** The log position of the first event about a record (a transfer's: its decision), if any. */
export async function logIndexOfTarget(
  db: Executor,
  orgId: string,
  targetId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('audit_events')
    .select('log_index')
    .where('org_id', '=', orgId)
    .where('target_id', '=', targetId)
    .orderBy('event_id')
    .limit(1)
    .executeTakeFirst()
  return row?.log_index ?? undefined
}

/**
 * The log position of a recovery's event (`token.recovered` of its token, whose `changes` name its
 * proof), if any: a token has few recoveries, read through the target index.
 */
export async function logIndexOfRecovery(
  db: Executor,
  orgId: string,
  tokenId: string,
  proofId: string,
): Promise<number | undefined> {
  const rows = await db
    .selectFrom('audit_events')
    .select(['log_index', 'changes'])
    .where('org_id', '=', orgId)
    .where('target_id', '=', tokenId)
    .where('action', '=', 'token.recovered')
    .execute()
  const row = rows.find((r) => {
    const changes =
      r.changes === null ? undefined : (JSON.parse(r.changes) as { after?: { proof_id?: unknown } })
    return changes?.after?.proof_id === proofId
  })
  return row?.log_index ?? undefined
}
