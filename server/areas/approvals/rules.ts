import type { ApprovalStatus } from '../../../src/contract/approvals.js'
import type { ApprovalsTable } from '../../platform/db/accountability-schema.js'

/*
 * The rules of an approval's life that reads and writes share, free of HTTP and SQL.
 */

/**
 * The status a stored approval reads at `now`. A pending row ends at whichever comes first: its own
 * `expires_at` (`expired`), or its requester's key's expiry (`cancelled`); neither is ever written,
 * since nothing but time happened. A revocation's `cancelled` is written (`revokeKey`).
 */
export function approvalStatusAt(
  row: Pick<ApprovalsTable, 'status' | 'expires_at' | 'requester_expires_at'>,
  now: string,
): ApprovalStatus {
  if (row.status !== 'pending') return row.status
  const requesterEnd = row.requester_expires_at
  if (requesterEnd !== null && requesterEnd <= now && requesterEnd < row.expires_at) return 'cancelled'
  return row.expires_at <= now ? 'expired' : 'pending'
}

/** The `reason` a cancelled approval reads: the key whose revocation ended its requester's principal. */
export const cancellationReason = (revokedKeyId: string): string =>
  `key ${revokedKeyId} of the requesting principal was revoked`

/** What an `approval.cancelled` event says: which operation will not run, and why. */
export const cancelledEvent = (
  row: Pick<ApprovalsTable, 'operation' | 'target_type' | 'target_id'>,
  revokedKeyId: string,
) => ({
  operation: row.operation,
  target: { type: row.target_type, id: row.target_id },
  reason: 'requester_revoked',
  key_id: revokedKeyId,
})
