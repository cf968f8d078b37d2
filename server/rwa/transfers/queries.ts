import type { Insertable } from 'kysely'
import type { ListTransfersQuery } from '../../../src/contract/rwa.js'
import { type Executor, ownedRecord, pageOf, whereEqual } from '../../db/queries.js'
import type { ProofsTable, TransfersTable } from '../../db/schema.js'

/** Every query of transfers and their proofs; each filters by org_id first. */

export const findTransfer = ownedRecord('transfers', 'transfer_id')

export const findProof = ownedRecord('proofs', 'proof_id')

export function listTransfers(db: Executor, orgId: string, query: ListTransfersQuery) {
  let base = whereEqual(db.selectFrom('transfers').where('org_id', '=', orgId), {
    token_id: query.token_id,
    status: query.status,
  })
  const j = query.jurisdiction
  if (j) base = base.where((eb) => eb.or([eb('from_jurisdiction', '=', j), eb('to_jurisdiction', '=', j)]))
  return pageOf(base, 'transfer_id', query)
}

export async function insertTransfer(db: Executor, row: Insertable<TransfersTable>): Promise<void> {
  await db.insertInto('transfers').values(row).execute()
}

export async function insertProof(db: Executor, row: Insertable<ProofsTable>): Promise<void> {
  await db.insertInto('proofs').values(row).execute()
}

/** The sender's approved volume of a token since `since` (the start of a UTC day). */
export async function approvedVolumeSince(
  db: Executor,
  tokenId: string,
  senderDid: string,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('transfers')
    .select((eb) => eb.fn.sum<number>('amount').as('volume'))
    .where('token_id', '=', tokenId)
    .where('sender_did', '=', senderDid)
    .where('created_at', '>=', since)
    .where('status', '=', 'approved')
    .executeTakeFirst()
  return Number(row?.volume ?? 0)
}
