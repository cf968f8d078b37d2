import { type Insertable, sql } from 'kysely'
import { compiledOnce } from '../../../platform/db/compiled-query.js'
import { type Executor, withLock } from '../../../platform/db/queries.js'
import type { StatusListsTable } from '../../../platform/db/schema.js'

/** Every query of status lists and their set bits. */

/** A list by its id, whatever its organization: status lists are public. */
export function findStatusList(db: Executor, listId: string) {
  return db.selectFrom('status_lists').selectAll().where('list_id', '=', listId).executeTakeFirst()
}

/** The newest revocation list of a jurisdiction that still has room, if any. */
export async function openStatusList(db: Executor, orgId: string, jurisdictionId: string) {
  const [row] = await openList(db, orgId, jurisdictionId)
  return row
}

/*
 * An issuance's two statements, compiled once (compiledOnce): every credential and attestation runs
 * them. The limit is written in the SQL (`limit 1`), not bound: SQLite ran this select three times
 * slower with `limit ?` (14 µs against 4.6 on this machine, the same plan).
 */
const openList = compiledOnce((db: Executor, orgId: string, jurisdictionId: string) =>
  db
    .selectFrom('status_lists')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('jurisdiction_id', '=', jurisdictionId)
    .where('purpose', '=', sql.lit('revocation'))
    .whereRef('used', '<', 'capacity')
    .orderBy('list_id', 'desc')
    .limit(sql.lit(1)),
)

export async function insertStatusList(db: Executor, row: Insertable<StatusListsTable>): Promise<void> {
  await db.insertInto('status_lists').values(row).execute()
}

/**
 * Takes the next entry of a list: its ordinal (0-based) and the list's sibling suspension list, or
 * undefined when the list is full. One
 * atomic update, so concurrent issuers never get the same entry.
 */
export async function takeStatusEntry(
  db: Executor,
  listId: string,
): Promise<{ ordinal: number; suspensionListId: string | null } | undefined> {
  const [row] = await takeEntry(db, listId)
  // The row as updated (and locked by this transaction): its sibling, if another issuer made it first.
  return row === undefined
    ? undefined
    : { ordinal: Number(row.used) - 1, suspensionListId: row.suspension_list_id }
}

const takeEntry = compiledOnce((db: Executor, listId: string) =>
  db
    .updateTable('status_lists')
    .set((eb) => ({ used: eb('used', '+', 1) }))
    .where('list_id', '=', listId)
    .whereRef('used', '<', 'capacity')
    .returning(['used', 'suspension_list_id']),
)

/** Sets a bit (records the revoked entry) and moves the list to its next version. */
export async function setStatusListBit(
  db: Executor,
  listId: string,
  index: number,
  at: string,
): Promise<void> {
  await db
    .insertInto('status_list_revocations')
    .values({ list_id: listId, status_index: index, revoked_at: at })
    .execute()
  await bumpVersion(db, listId, at)
}

/** The indexes whose bit is set. */
export async function revokedIndexes(db: Executor, listId: string): Promise<number[]> {
  const rows = await db
    .selectFrom('status_list_revocations')
    .select('status_index')
    .where('list_id', '=', listId)
    .execute()
  return rows.map((r) => Number(r.status_index))
}

/** A list by its id, its row locked until the transaction ends (no lock on SQLite: writes are serial). */
export function lockStatusList(db: Executor, listId: string) {
  return withLock(
    db,
    db.selectFrom('status_lists').selectAll().where('list_id', '=', listId),
    'update',
  ).executeTakeFirst()
}

/** Records a revocation list's sibling suspension list. */
export async function linkSuspensionList(
  db: Executor,
  listId: string,
  suspensionListId: string,
): Promise<void> {
  await db
    .updateTable('status_lists')
    .set({ suspension_list_id: suspensionListId })
    .where('list_id', '=', listId)
    .execute()
}

/** Sets a suspension bit and moves the list to its next version. */
export async function setSuspensionBit(
  db: Executor,
  listId: string,
  index: number,
  at: string,
): Promise<void> {
  await db
    .insertInto('status_list_suspensions')
    .values({ list_id: listId, status_index: index, suspended_at: at })
    .execute()
  await bumpVersion(db, listId, at)
}

/** Clears a suspension bit and moves the list to its next version. */
export async function clearSuspensionBit(
  db: Executor,
  listId: string,
  index: number,
  at: string,
): Promise<void> {
  await db
    .deleteFrom('status_list_suspensions')
    .where('list_id', '=', listId)
    .where('status_index', '=', index)
    .execute()
  await bumpVersion(db, listId, at)
}

/** A list's bits changed: its version moves, so that its signed copy is made again. */
async function bumpVersion(db: Executor, listId: string, at: string): Promise<void> {
  await db
    .updateTable('status_lists')
    .set((eb) => ({ version: eb('version', '+', 1), updated_at: at }))
    .where('list_id', '=', listId)
    .execute()
}

/** The indexes whose suspension bit is set. */
export async function suspendedIndexes(db: Executor, listId: string): Promise<number[]> {
  const rows = await db
    .selectFrom('status_list_suspensions')
    .select('status_index')
    .where('list_id', '=', listId)
    .execute()
  return rows.map((r) => Number(r.status_index))
}
