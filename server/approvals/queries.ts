import type { Insertable } from 'kysely'
import type { ApprovalStatus } from '../../src/contract/approvals.js'
import type { ApprovalPoliciesTable, ApprovalsTable } from '../db/accountability-schema.js'
import { type Executor, ownedRecord, type PageQuery, pageOf } from '../db/queries.js'

/** Every query of four eyes (docs/accountability.md, "Four eyes"); each filters by org_id first. */

export function findPolicy(db: Executor, orgId: string): Promise<ApprovalPoliciesTable | undefined> {
  return db.selectFrom('approval_policies').selectAll().where('org_id', '=', orgId).executeTakeFirst()
}

export async function upsertPolicy(db: Executor, row: ApprovalPoliciesTable): Promise<void> {
  const { org_id: _, ...values } = row
  await db
    .insertInto('approval_policies')
    .values(row)
    .onConflict((oc) => oc.column('org_id').doUpdateSet(values))
    .execute()
}

export async function insertApproval(db: Executor, row: Insertable<ApprovalsTable>): Promise<void> {
  await db.insertInto('approvals').values(row).execute()
}

/** An organization's approval by its id (another organization's reads as none). */
export const findApproval = ownedRecord('approvals', 'approval_id')

/**
 * An organization's approvals, newest first. `expired` is a pending one past its `expires_at`, so
 * `pending` means pending and not yet expired at `now`.
 */
export function listApprovals(
  db: Executor,
  orgId: string,
  status: ApprovalStatus | undefined,
  now: string,
  page: PageQuery,
) {
  let base = db.selectFrom('approvals').where('org_id', '=', orgId)
  if (status === 'pending') base = base.where('status', '=', 'pending').where('expires_at', '>', now)
  else if (status === 'expired') base = base.where('status', '=', 'pending').where('expires_at', '<=', now)
  else if (status !== undefined) base = base.where('status', '=', status)
  return pageOf(base, 'approval_id', page)
}

/**
 * Decides a pending approval that has not expired at `now`: conditional on both, so of two keys deciding
 * at once exactly one changes it (on PostgreSQL the second waits for the first's row lock and then finds
 * it decided; SQLite runs one write at a time). False when it was not pending any more.
 */
export async function decideApproval(
  db: Executor,
  orgId: string,
  approvalId: string,
  decision: {
    status: 'approved' | 'rejected'
    decided_by: string
    decided_at: string
    reason: string | null
  },
): Promise<boolean> {
  const result = await db
    .updateTable('approvals')
    .set(decision)
    .where('org_id', '=', orgId)
    .where('approval_id', '=', approvalId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', decision.decided_at)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Records what the approved operation answered; `failed` when its rules refused it. */
export async function setOutcome(
  db: Executor,
  orgId: string,
  approvalId: string,
  status: 'approved' | 'failed',
  outcome: string,
): Promise<void> {
  await db
    .updateTable('approvals')
    .set({ status, outcome })
    .where('org_id', '=', orgId)
    .where('approval_id', '=', approvalId)
    .execute()
}
