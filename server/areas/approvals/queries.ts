import type { ExpressionBuilder, Insertable } from 'kysely'
import type { ApprovalStatus } from '../../../src/contract/approvals.js'
import type { ApprovalPoliciesTable, ApprovalsTable } from '../../platform/db/accountability-schema.js'
import { type Executor, ownedRecord, type PageQuery, pageOf } from '../../platform/db/queries.js'
import type { Database } from '../../platform/db/schema.js'

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
 * An organization's approvals, newest first, by the status they read at `now` (`approvalStatusAt`): a
 * pending row ends at its `expires_at` (`expired`) or, sooner, at its `requester_expires_at`
 * (`cancelled`, as one a revocation cancelled is stored), whichever comes first.
 */
export function listApprovals(
  db: Executor,
  orgId: string,
  status: ApprovalStatus | undefined,
  now: string,
  page: PageQuery,
) {
  let base = db.selectFrom('approvals').where('org_id', '=', orgId)
  if (status === 'pending') base = base.where(stillPending(now))
  else if (status === 'expired') {
    base = base
      .where('status', '=', 'pending')
      .where('expires_at', '<=', now)
      .where((eb) =>
        eb.or([
          eb('requester_expires_at', 'is', null),
          eb('requester_expires_at', '>=', eb.ref('expires_at')),
        ]),
      )
  } else if (status === 'cancelled') {
    base = base.where((eb) =>
      eb.or([
        eb('status', '=', 'cancelled'),
        eb.and([
          eb('status', '=', 'pending'),
          eb('requester_expires_at', '<=', now),
          eb('requester_expires_at', '<', eb.ref('expires_at')),
        ]),
      ]),
    )
  } else if (status !== undefined) base = base.where('status', '=', status)
  return pageOf(base, 'approval_id', page)
}

/** A stored row still pending at `now`: neither it nor its requester's key has expired. */
const stillPending = (now: string) => (eb: ExpressionBuilder<Database, 'approvals'>) =>
  eb.and([
    eb('status', '=', 'pending'),
    eb('expires_at', '>', now),
    eb.or([eb('requester_expires_at', 'is', null), eb('requester_expires_at', '>', now)]),
  ])

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
    .where(stillPending(decision.decided_at))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Why and by whom pending approvals are cancelled: their requester's principal was revoked. */
export interface Cancellation {
  decided_by: string
  decided_at: string
  reason: string
}

/**
 * Cancels the organization's approvals still pending at `decided_at` that a key of principal
 * `principalId` requested (`principalOf`: the key itself or any key of its reroll chain), answering
 * those it cancelled. Conditional like `decideApproval`: one decided meanwhile by another transaction
 * (PostgreSQL: this one waited for its row lock) is left as that one decided it.
 */
export function cancelPendingOfPrincipal(
  db: Executor,
  orgId: string,
  principalId: string,
  cancellation: Cancellation,
) {
  return db
    .updateTable('approvals')
    .set({ status: 'cancelled', ...cancellation })
    .where('org_id', '=', orgId)
    .where(stillPending(cancellation.decided_at))
    .where('requested_by', 'in', (eb) =>
      eb
        .selectFrom('api_keys')
        .select('key_id')
        .where((k) => k.or([k('principal_id', '=', principalId), k('key_id', '=', principalId)])),
    )
    .returning(['approval_id', 'operation', 'target_type', 'target_id'])
    .execute()
}

/** Cancels one approval still pending at `decided_at`; false when it was not (decided meanwhile). */
export async function cancelApproval(
  db: Executor,
  orgId: string,
  approvalId: string,
  cancellation: Cancellation,
): Promise<boolean> {
  const result = await db
    .updateTable('approvals')
    .set({ status: 'cancelled', ...cancellation })
    .where('org_id', '=', orgId)
    .where('approval_id', '=', approvalId)
    .where(stillPending(cancellation.decided_at))
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
