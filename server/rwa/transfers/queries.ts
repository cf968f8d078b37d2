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
