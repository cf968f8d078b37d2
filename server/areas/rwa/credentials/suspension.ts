import type { Credential, SuspendRequest } from '../../../../src/contract/rwa.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import type { AppContext } from '../../../pipeline/context.js'
import { isoTimestamp } from '../../../platform/clock.js'
import { setSuspension } from '../status-lists/service.js'
import { type SuspensionChange, suspensionRefusal } from '../status-lists/suspension.js'
import { credentialFromRow } from './from-row.js'
import { credentialOr404, markCredentialSuspension } from './queries.js'

/*
 * Suspending and reinstating a credential (docs/governance.md, "Suspension"), each in one transaction:
 * the record, its bit in its jurisdiction's suspension list, the audit entry and the event. A suspended
 * credential fails `credential_valid` until reinstated; the token it backs is not frozen (a revocation
 * freezes it for good), its transfers are refused meanwhile.
 */

export function suspendCredential(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: SuspendRequest,
): Promise<Credential> {
  return changeSuspension(ctx, principal, id, 'suspend', input.reason ?? null)
}

export function reinstateCredential(ctx: AppContext, principal: Principal, id: string): Promise<Credential> {
  return changeSuspension(ctx, principal, id, 'reinstate', null)
}

async function changeSuspension(
  ctx: AppContext,
  principal: Principal,
  id: string,
  change: SuspensionChange,
  reason: string | null,
): Promise<Credential> {
  const now = isoTimestamp(ctx.clock.now())
  const orgId = principal.orgId
  return ctx.db.transaction().execute(async (trx) => {
    const row = await credentialOr404(trx, orgId, id)
    const refused = suspensionRefusal('credential', id, row, change)
    if (refused) throw refused
    const suspension = change === 'suspend' ? { at: now, reason } : null
    // Conditional: of two concurrent changes, one changes the row and the other is refused as it now is.
    if (!(await markCredentialSuspension(trx, id, suspension))) {
      throw (
        suspensionRefusal('credential', id, await credentialOr404(trx, orgId, id), change) ??
        new Error(`credential ${id} changed meanwhile`)
      )
    }
    if (row.status_list_id !== null && row.status_list_index !== null) {
      await setSuspension(
        ctx,
        trx,
        row.status_list_id,
        Number(row.status_list_index),
        suspension !== null,
        now,
      )
    }
    const after = {
      ...row,
      suspended_at: suspension?.at ?? null,
      suspension_reason: suspension?.reason ?? null,
    }
    ctx.record({
      orgId,
      action: change === 'suspend' ? 'credential.suspended' : 'credential.reinstated',
      target: { type: 'credential', id },
      after: change === 'suspend' ? { reason } : { suspended_at: row.suspended_at },
    })
    return credentialFromRow(after)
  })
}
