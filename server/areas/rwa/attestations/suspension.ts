import type { Attestation, SuspendRequest } from '../../../../src/contract/rwa.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import type { AppContext } from '../../../pipeline/context.js'
import { isoTimestamp } from '../../../platform/clock.js'
import { ApiError } from '../../../platform/errors.js'
import { ownedOr404 } from '../owned.js'
import { setSuspension } from '../status-lists/service.js'
import { type SuspensionChange, suspensionRefusal } from '../status-lists/suspension.js'
import { attestationFromRow } from './from-row.js'
import { findAttestation, findExternalAttestation, markAttestationSuspension } from './queries.js'

/*
 * Suspending and reinstating the organization's own attestation (docs/governance.md, "Suspension"),
 * each in one transaction: the record, its bit in its jurisdiction's suspension list, the audit entry
 * and the event. A suspended attestation meets no requirement until reinstated. A trusted issuer's
 * attestation is suspended by its issuer, in its own status list: 409 `attestation_external`.
 */

export function suspendAttestation(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: SuspendRequest,
): Promise<Attestation> {
  return changeSuspension(ctx, principal, id, 'suspend', input.reason ?? null)
}

export function reinstateAttestation(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<Attestation> {
  return changeSuspension(ctx, principal, id, 'reinstate', null)
}

async function changeSuspension(
  ctx: AppContext,
  principal: Principal,
  id: string,
  change: SuspensionChange,
  reason: string | null,
): Promise<Attestation> {
  const now = isoTimestamp(ctx.clock.now())
  const orgId = principal.orgId
  return ctx.db.transaction().execute(async (trx) => {
    const own = await findAttestation(trx, orgId, id)
    if (!own && (await findExternalAttestation(trx, orgId, id))) {
      throw new ApiError(
        'attestation_external',
        `Attestation ${id} is a trusted issuer's credential: its issuer suspends and reinstates it, in its own status list; suspend the issuer (PATCH /console/rwa/issuers/{id} with status suspended) to stop relying on all of its credentials`,
        { context: { attestation_id: id } },
      )
    }
    const row = await ownedOr404(Promise.resolve(own), 'attestation', id)
    const refused = suspensionRefusal('attestation', id, row, change)
    if (refused) throw refused
    const suspension = change === 'suspend' ? { at: now, reason } : null
    // Conditional: of two concurrent changes, one changes the row and the other is refused as it now is.
    if (!(await markAttestationSuspension(trx, id, suspension))) {
      const current = await ownedOr404(findAttestation(trx, orgId, id), 'attestation', id)
      throw (
        suspensionRefusal('attestation', id, current, change) ??
        new Error(`attestation ${id} changed meanwhile`)
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
    ctx.record({
      orgId,
      action: change === 'suspend' ? 'attestation.suspended' : 'attestation.reinstated',
      target: { type: 'attestation', id },
      after: change === 'suspend' ? { reason } : { suspended_at: row.suspended_at },
    })
    return attestationFromRow({
      ...row,
      suspended_at: suspension?.at ?? null,
      suspension_reason: suspension?.reason ?? null,
    })
  })
}
