import type { Insertable } from 'kysely'
import type { ListTransfersQuery } from '../../../src/contract/rwa.js'
import { type Executor, ownedRecord, pageOf, whereEqual } from '../../db/queries.js'
import type { ProofsTable, TransfersTable } from '../../db/schema.js'

/** Every query of transfers and their proofs; each filters by org_id first. */

export const findTransfer = ownedRecord('transfers', 'transfer_id')

export const findProof = ownedRecord('proofs', 'proof_id')

/**
 * A page of transfers, newest first; the exact total from the counters (countTransfers). With a
 * jurisdiction, the transfers from it and those to it are each read newest first through their own
 * index (transfers_from_idx, transfers_to_idx), a page's worth of each, and merged (a transfer within
 * the jurisdiction is in both and kept once): an `or` of the two would walk every transfer of the
 * organization until it found a page of matches.
 */
export async function listTransfers(db: Executor, orgId: string, query: ListTransfersQuery) {
  const filtered = () =>
    whereEqual(db.selectFrom('transfers').where('org_id', '=', orgId), {
      token_id: query.token_id,
      status: query.status,
    })
  const total = () => countTransfers(db, orgId, query)
  const j = query.jurisdiction
  if (!j) return pageOf(filtered(), 'transfer_id', query, total)
  const side = (column: 'from_jurisdiction' | 'to_jurisdiction') => {
    let rows = filtered().where(column, '=', j)
    if (query.cursor !== undefined) rows = rows.where('transfer_id', '<', query.cursor)
    return db
      .selectFrom(
        rows
          .selectAll()
          .orderBy('transfer_id', 'desc')
          .limit(query.limit + 1)
          .as(column),
      )
      .selectAll()
  }
  const found = await db
    .selectFrom(side('from_jurisdiction').union(side('to_jurisdiction')).as('matches'))
    .selectAll()
    .orderBy('transfer_id', 'desc')
    .limit(query.limit + 1)
    .execute()
  const more = found.length > query.limit
  const rows = more ? found.slice(0, query.limit) : found
  return { rows, total: await total(), next_cursor: more ? rows.at(-1)!.transfer_id : null }
}

/**
 * How many transfers match a list's filters: the sum of the organization's counter rows (one per token,
 * status and route) that the filters select. A transfer is in exactly one counter row, so a
 * jurisdiction that is both its source and its target counts it once, as the list does.
 */
export async function countTransfers(
  db: Executor,
  orgId: string,
  query: ListTransfersQuery,
): Promise<number> {
  let counts = whereEqual(db.selectFrom('transfer_counts').where('org_id', '=', orgId), {
    token_id: query.token_id,
    status: query.status,
  })
  const j = query.jurisdiction
  if (j)
    counts = counts.where((eb) => eb.or([eb('from_jurisdiction', '=', j), eb('to_jurisdiction', '=', j)]))
  const row = await counts.select((eb) => eb.fn.sum<number>('n').as('n')).executeTakeFirst()
  return Number(row?.n ?? 0)
}

/**
 * Stores a transfer and, in the same transaction, counts it (transfer_counts) and, when approved, adds
 * its units to the sender's volume of the day (transfer_daily_volumes). Upserts that add: concurrent
 * writers never lose a count.
 */
export async function insertTransfer(db: Executor, row: Insertable<TransfersTable>): Promise<void> {
  await db.insertInto('transfers').values(row).execute()
  await db
    .insertInto('transfer_counts')
    .values({
      org_id: row.org_id,
      token_id: row.token_id,
      status: row.status,
      from_jurisdiction: row.from_jurisdiction,
      to_jurisdiction: row.to_jurisdiction,
      n: 1,
    })
    .onConflict((oc) =>
      oc
        .columns(['org_id', 'token_id', 'status', 'from_jurisdiction', 'to_jurisdiction'])
        .doUpdateSet((eb) => ({ n: eb('transfer_counts.n', '+', eb.ref('excluded.n')) })),
    )
    .execute()
  if (row.status === 'approved') {
    await db
      .insertInto('transfer_daily_volumes')
      .values({
        token_id: row.token_id,
        sender_did: row.sender_did,
        day: row.created_at.slice(0, 10),
        volume: row.amount,
      })
      .onConflict((oc) =>
        oc.columns(['token_id', 'sender_did', 'day']).doUpdateSet((eb) => ({
          volume: eb('transfer_daily_volumes.volume', '+', eb.ref('excluded.volume')),
        })),
      )
      .execute()
  }
}

export async function insertProof(db: Executor, row: Insertable<ProofsTable>): Promise<void> {
  await db.insertInto('proofs').values(row).execute()
}

/** The sender's approved volume of a token on a UTC day (`YYYY-MM-DD`), kept by insertTransfer. */
export async function approvedVolumeOn(
  db: Executor,
  tokenId: string,
  senderDid: string,
  day: string,
): Promise<number> {
  const row = await db
    .selectFrom('transfer_daily_volumes')
    .select('volume')
    .where('token_id', '=', tokenId)
    .where('sender_did', '=', senderDid)
    .where('day', '=', day)
    .executeTakeFirst()
  return Number(row?.volume ?? 0)
}
