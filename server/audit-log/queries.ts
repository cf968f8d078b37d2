import type { Insertable } from 'kysely'
import type { AuditLogNodesTable } from '../db/accountability-schema.js'
import { type Executor, insertRows, withLock } from '../db/queries.js'
import type { NodeId } from '../../src/tlog/merkle.js'

/** Every query of the verifiable log (DESIGN §17); each filters by org_id first. */

const logRow = (db: Executor, orgId: string) =>
  db.selectFrom('audit_logs').select(['size', 'root', 'frontier']).where('org_id', '=', orgId)

/**
 * The organization's log row, locked until the write commits: appends of one organization run one
 * at a time, in commit order, across instances. SQLite runs one transaction at a time and needs no
 * lock. The first append creates the row (a concurrent first append waits on its key, then finds it).
 */
export async function lockLog(db: Executor, orgId: string) {
  const locked = () => withLock(db, logRow(db, orgId), 'update').executeTakeFirst()
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

/** The organization's log as last committed, if it has one. */
export const readLog = (db: Executor, orgId: string) => logRow(db, orgId).executeTakeFirst()

export async function saveLog(
  db: Executor,
  orgId: string,
  log: { size: number; root: string; frontier: string },
): Promise<void> {
  await db.updateTable('audit_logs').set(log).where('org_id', '=', orgId).execute()
}

/** Stores the complete subtrees an append completed. */
export async function insertLogNodes(db: Executor, rows: Insertable<AuditLogNodesTable>[]): Promise<void> {
  await insertRows(db, 'audit_log_nodes', rows)
}

/** The stored hashes of the given complete subtrees (a proof's O(log n) of them), in one query. */
export function readLogNodes(db: Executor, orgId: string, nodes: NodeId[]) {
  if (nodes.length === 0) return Promise.resolve([])
  return (
    db
      .selectFrom('audit_log_nodes')
      .select(['level', 'idx', 'hash'])
      // Each term names the whole primary key, so both engines look each node up by it (SQLite's OR
      // optimization, PostgreSQL's bitmap OR) instead of scanning the organization's nodes.
      .where((eb) =>
        eb.or(
          nodes.map((n) =>
            eb.and([eb('org_id', '=', orgId), eb('level', '=', n.level), eb('idx', '=', n.index)]),
          ),
        ),
      )
      .execute()
  )
}

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
