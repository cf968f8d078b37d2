import {
  APPROVABLE,
  APPROVAL_LIFETIME_HOURS,
  type Approval,
  type ApprovableOperation,
  type ApprovalPolicy,
  type ListApprovalsQuery,
  type ListApprovalsResponse,
  type RejectApprovalRequest,
  type SetApprovalPolicyRequest,
} from '../../../src/contract/approvals.js'
import type { Principal } from '../../pipeline/auth/principal.js'
import { isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../../pipeline/context.js'
import type { ApprovalPoliciesTable, ApprovalsTable } from '../../platform/db/accountability-schema.js'
import type { Executor } from '../../platform/db/queries.js'
import { ApiError } from '../../platform/errors.js'
import { principalOf, principalStanding } from '../billing/keys/key-rules.js'
import { currentKeyOf, findKeyRow } from '../billing/keys/queries.js'
import { listPage, ownedOr404 } from '../rwa/owned.js'
import { currentWrite } from '../../pipeline/writes/change.js'
import { appendRecorded } from '../../pipeline/writes/run-write.js'
import { approvalStatusAt, cancellationReason, cancelledEvent } from './rules.js'
import {
  cancelApproval,
  decideApproval,
  findApproval,
  findPolicy,
  insertApproval,
  listApprovals as listApprovalRows,
  setOutcome,
  upsertPolicy,
} from './queries.js'

/*
 * Four eyes (docs/accountability.md, "Four eyes"). A call of an operation the organization's policy covers is
 * recorded as a pending approval instead of running (server/routes.ts asks `requestIfCovered` before the
 * handler); approving it runs the operation then, in the approving request's write, with the approving key.
 */

const LIFETIME_MS = APPROVAL_LIFETIME_HOURS * 3_600_000

/** What an approved operation answered: its status and body. */
export interface OperationAnswer {
  status: number
  body: unknown
}

/** Runs an approved operation on the record `targetId` with `body`, as `principal`. */
export type RunApproved = (
  operation: ApprovableOperation,
  targetId: string,
  body: unknown,
  principal: Principal,
) => Promise<OperationAnswer>

const policyNames = (row: ApprovalPoliciesTable | undefined): ApprovableOperation[] =>
  row === undefined ? [] : (JSON.parse(row.require_approval) as ApprovableOperation[])

const policyFromRow = (row: ApprovalPoliciesTable | undefined): ApprovalPolicy => ({
  require_approval: policyNames(row),
  updated_at: row?.updated_at ?? null,
  updated_by: row?.updated_by ?? null,
})

export async function getPolicy(ctx: AppContext, principal: Principal): Promise<ApprovalPolicy> {
  return policyFromRow(await findPolicy(ctx.db, principal.orgId))
}

export async function setPolicy(
  ctx: AppContext,
  principal: Principal,
  input: SetApprovalPolicyRequest,
): Promise<ApprovalPolicy> {
  const orgId = principal.orgId
  const before = policyNames(await findPolicy(ctx.db, orgId))
  // Stored in the order of APPROVABLE, so the same set always reads the same.
  const names = (Object.keys(APPROVABLE) as ApprovableOperation[]).filter((n) =>
    input.require_approval.includes(n),
  )
  const row = {
    org_id: orgId,
    require_approval: JSON.stringify(names),
    updated_at: isoTimestamp(ctx.clock.now()),
    updated_by: principal.keyId,
  }
  await upsertPolicy(ctx.db, row)
  ctx.record({
    orgId,
    action: 'policy.updated',
    target: { type: 'policy', id: orgId },
    before: { require_approval: before },
    after: { require_approval: names },
  })
  return policyFromRow(row)
}

/**
 * When the caller's organization's policy covers `operation`, records the call (its body validated
 * already) as a pending approval and answers it: the caller answers 202 and nothing else is done.
 * Undefined when the policy does not cover it, and the operation runs as usual.
 */
export async function requestIfCovered(
  ctx: AppContext,
  principal: Principal,
  operation: ApprovableOperation,
  targetId: string,
  body: unknown,
): Promise<Approval | undefined> {
  const orgId = principal.orgId
  if (!policyNames(await findPolicy(ctx.db, orgId)).includes(operation)) return undefined
  const nowMs = ctx.clock.now()
  const requester = await findKeyRow(ctx.db, principal.keyId)
  const row: ApprovalsTable = {
    approval_id: ctx.ids.next('apr'),
    org_id: orgId,
    operation,
    target_type: APPROVABLE[operation].target,
    target_id: targetId,
    body: JSON.stringify(body ?? {}),
    status: 'pending',
    requested_by: principal.keyId,
    requested_at: isoTimestamp(nowMs),
    expires_at: isoTimestamp(nowMs + LIFETIME_MS),
    requester_expires_at: requester?.expires_at ?? null,
    decided_by: null,
    decided_at: null,
    reason: null,
    outcome: null,
  }
  await insertApproval(ctx.db, row)
  ctx.record({
    orgId,
    action: 'approval.requested',
    target: { type: 'approval', id: row.approval_id },
    after: { operation, target: { type: row.target_type, id: targetId }, body: body ?? {} },
  })
  return approvalFromRow(row, row.requested_at)
}

export async function listApprovals(
  ctx: AppContext,
  principal: Principal,
  query: ListApprovalsQuery,
): Promise<ListApprovalsResponse> {
  const now = isoTimestamp(ctx.clock.now())
  const page = await listApprovalRows(ctx.db, principal.orgId, query.status, now, query)
  return listPage('approvals', page, (row) => approvalFromRow(row, now))
}

export async function getApproval(ctx: AppContext, principal: Principal, id: string): Promise<Approval> {
  const row = await approvalOr404(ctx.db, principal.orgId, id)
  return approvalFromRow(row, isoTimestamp(ctx.clock.now()))
}

/**
 * Approves a pending approval by another principal and runs its operation now. The approval is
 * decided first, conditionally (two keys approving at once: one runs it, the other is told it is
 * decided); the operation then runs in a savepoint of the same write. If its rules refuse it now, the
 * savepoint is rolled back (nothing moves), the approval reads `failed` with the refusal, and the
 * refusal is answered; any other error rolls the whole write back, the approval still pending. One
 * whose requester no longer stands behind it never runs (`approval_requester_revoked`).
 */
export async function approve(
  ctx: AppContext,
  principal: Principal,
  id: string,
  run: RunApproved,
): Promise<OperationAnswer | { refusal: ApiError }> {
  const orgId = principal.orgId
  const now = isoTimestamp(ctx.clock.now())
  const row = await approvalOr404(ctx.db, orgId, id)
  await assertAnotherPrincipal(ctx.db, row, principal.keyId)
  const cancelled = await cancelIfRequesterRevoked(ctx, row, principal.keyId, now)
  if (cancelled) return { refusal: cancelled }
  await decide(ctx.db, row, {
    status: 'approved',
    decided_by: principal.keyId,
    decided_at: now,
    reason: null,
  })

  const operation = row.operation as ApprovableOperation
  const scope = currentWrite()
  const recorded = scope?.changes.length ?? 0
  let outcome: OperationAnswer | { refusal: ApiError }
  try {
    outcome = await ctx.db
      .transaction()
      .execute(() => run(operation, row.target_id, JSON.parse(row.body), principal))
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    // The savepoint is rolled back: its changes did not happen, so they are not recorded either.
    scope?.changes.splice(recorded)
    outcome = { refusal: error }
  }
  // The operation's events appended before its answer is stored (a forced transfer's log_index);
  // the approval's row, the only one written after, is locked already (`decide`).
  if (scope) await appendRecorded(ctx)
  const refusal = 'refusal' in outcome ? outcome.refusal : undefined
  const stored =
    'refusal' in outcome
      ? { status: outcome.refusal.status, body: outcome.refusal.toProblem() }
      : { status: outcome.status, body: outcome.body }
  await setOutcome(ctx.db, orgId, id, refusal ? 'failed' : 'approved', JSON.stringify(stored))
  ctx.record({
    orgId,
    action: refusal ? 'approval.failed' : 'approval.approved',
    target: { type: 'approval', id },
    after: {
      operation,
      target: { type: row.target_type, id: row.target_id },
      ...(refusal ? { reason: refusal.reason } : {}),
    },
  })
  return outcome
}

/** Rejects a pending approval: its operation never runs. The requesting key may withdraw its own. */
export async function reject(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: RejectApprovalRequest,
): Promise<Approval> {
  const orgId = principal.orgId
  const now = isoTimestamp(ctx.clock.now())
  const row = await approvalOr404(ctx.db, orgId, id)
  const decision = {
    status: 'rejected',
    decided_by: principal.keyId,
    decided_at: now,
    reason: input.reason ?? null,
  } as const
  await decide(ctx.db, row, decision)
  ctx.record({
    orgId,
    action: 'approval.rejected',
    target: { type: 'approval', id },
    after: { operation: row.operation, reason: decision.reason },
  })
  return approvalFromRow({ ...row, ...decision }, now)
}

/**
 * Refuses an approver of the requester's own principal (403): the requesting key, a key rerolled from
 * it, or the key it was rerolled from. A reroll hands a key's powers on, so it cannot be the second pair
 * of eyes on its own request.
 */
async function assertAnotherPrincipal(
  db: Executor,
  row: ApprovalsTable,
  approverKeyId: string,
): Promise<void> {
  const requester = await findKeyRow(db, row.requested_by)
  const approver = await findKeyRow(db, approverKeyId)
  const same =
    row.requested_by === approverKeyId ||
    (requester !== undefined && approver !== undefined && principalOf(requester) === principalOf(approver))
  if (!same) return
  const how =
    row.requested_by === approverKeyId ? 'by this key' : `by ${row.requested_by}, this key's principal`
  throw new ApiError(
    'approval_requires_another_key',
    `Approval ${row.approval_id} was requested ${how} (a key and every key rerolled from it are one principal); four eyes need another key with agent to approve it`,
    { context: { approval_id: row.approval_id, requested_by: row.requested_by } },
  )
}

/**
 * A pending approval whose requester's principal was revoked (its current key, at `now`) but which no
 * revocation cancelled: asked for by a key still in its overlap after the key it was rerolled into was
 * revoked, or pending from before approvals were cancelled on revocation. It is cancelled now, by this
 * call (its event in this write), and the refusal to answer is returned; undefined when the requester
 * stands, or the approval is not pending (which `decide` says).
 */
async function cancelIfRequesterRevoked(
  ctx: AppContext,
  row: ApprovalsTable,
  byKeyId: string,
  now: string,
): Promise<ApiError | undefined> {
  if (approvalStatusAt(row, now) !== 'pending') return undefined
  const requester = await findKeyRow(ctx.db, row.requested_by)
  const current = requester && (await currentKeyOf(ctx.db, principalOf(requester)))
  if (!current || principalStanding(current, Date.parse(now)) !== 'revoked') return undefined
  const cancellation = { decided_by: byKeyId, decided_at: now, reason: cancellationReason(current.key_id) }
  if (!(await cancelApproval(ctx.db, row.org_id, row.approval_id, cancellation))) {
    // Decided meanwhile by another transaction: say how it is now.
    assertOpen(await approvalOr404(ctx.db, row.org_id, row.approval_id), now)
    return undefined
  }
  ctx.record({
    orgId: row.org_id,
    action: 'approval.cancelled',
    target: { type: 'approval', id: row.approval_id },
    after: cancelledEvent(row, current.key_id),
  })
  return requesterRevoked({ ...row, status: 'cancelled' }, now)
}

/** Decides `row` if it is still pending at the decision's time, else refuses with why it cannot be. */
async function decide(
  db: Executor,
  row: ApprovalsTable,
  decision: {
    status: 'approved' | 'rejected'
    decided_by: string
    decided_at: string
    reason: string | null
  },
): Promise<void> {
  assertOpen(row, decision.decided_at)
  if (await decideApproval(db, row.org_id, row.approval_id, decision)) return
  // Another key decided it meanwhile, a revocation cancelled it, or it expired this instant: say which.
  const now = await approvalOr404(db, row.org_id, row.approval_id)
  assertOpen(now, decision.decided_at)
  throw notPending(now)
}

/** Refuses an approval that does not read `pending` at `now`, saying why. */
function assertOpen(row: ApprovalsTable, now: string): void {
  const status = approvalStatusAt(row, now)
  if (status === 'pending') return
  if (status === 'cancelled') throw requesterRevoked(row, now)
  if (status === 'expired') {
    throw new ApiError(
      'approval_expired',
      `Approval ${row.approval_id} expired at ${row.expires_at} (${APPROVAL_LIFETIME_HOURS} h after it was requested) without a decision: it can no longer run; call the operation again to request a new one`,
      { context: { approval_id: row.approval_id, expires_at: row.expires_at } },
    )
  }
  throw notPending(row)
}

const requesterRevoked = (row: ApprovalsTable, now: string): ApiError => {
  const why =
    row.status === 'cancelled'
      ? (row.reason ?? 'its requesting key was revoked')
      : `its requesting key expired at ${row.requester_expires_at}`
  return new ApiError(
    'approval_requester_revoked',
    `Approval ${row.approval_id} is cancelled: ${why}, so it can no longer run; a key that stands behind it calls the operation again to request a new one`,
    {
      context: {
        approval_id: row.approval_id,
        requested_by: row.requested_by,
        status: approvalStatusAt(row, now),
      },
    },
  )
}

const notPending = (row: ApprovalsTable): ApiError =>
  new ApiError(
    'approval_not_pending',
    `Approval ${row.approval_id} is ${row.status} already (by ${row.decided_by ?? 'another key'} at ${row.decided_at ?? 'an earlier time'})`,
    { context: { approval_id: row.approval_id, status: row.status, decided_by: row.decided_by } },
  )

const approvalOr404 = (db: Executor, orgId: string, id: string) =>
  ownedOr404(findApproval(db, orgId, id), 'approval', id)

/** The API record of a stored approval as of `now` (`approvalStatusAt`). */
export function approvalFromRow(row: ApprovalsTable, now: string): Approval {
  return {
    approval_id: row.approval_id,
    operation: row.operation as ApprovableOperation,
    target: { type: row.target_type as 'token' | 'credential', id: row.target_id },
    body: JSON.parse(row.body),
    status: approvalStatusAt(row, now),
    requested_by: row.requested_by,
    requested_at: row.requested_at,
    expires_at: row.expires_at,
    decided_by: row.decided_by,
    decided_at: row.decided_at,
    reason: row.reason,
    outcome: row.outcome === null ? null : JSON.parse(row.outcome),
  }
}
