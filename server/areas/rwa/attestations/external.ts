import { createHash } from 'node:crypto'
import type { ExternalAttestation, ExternalAttestationRequest } from '../../../../src/contract/rwa.js'
import {
  checkExternalStatus,
  type ExternalRefused,
  verifyExternalCredential,
} from '../../../../src/proof/external-credential.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import { ApiError } from '../../../platform/errors.js'
import { fetchAndKeep } from '../issuer-documents/status.js'
import { trustedIssuersOf } from '../issuers/queries.js'
import { externalAttestationFromRow } from './from-row.js'
import { findExternalByDigest, insertExternalAttestation } from './queries.js'

/*
 * A trusted issuer's credential submitted as an attestation (docs/issuers.md, "Verification"): verified
 * now against the organization's issuers (src/proof/external-credential.ts), its status lists fetched now
 * under the address policy, and kept verbatim.
 */

/** The 422 of a refused credential: `context.reason` the reason. */
const refusedCredential = (refusal: ExternalRefused) =>
  new ApiError('credential_refused', `The credential is refused (${refusal.reason}): ${refusal.detail}`, {
    context: { reason: refusal.reason },
  })

export async function submitExternalAttestation(
  ctx: AppContext,
  principal: Principal,
  input: ExternalAttestationRequest,
): Promise<ExternalAttestation> {
  const orgId = principal.orgId
  const now = new Date(ctx.clock.now())
  const vcSha256 = createHash('sha256').update(input.vc_jwt).digest('hex')
  return ctx.db.transaction().execute(async (trx) => {
    const existing = await findExternalByDigest(trx, orgId, vcSha256)
    if (existing) {
      throw new ApiError(
        'attestation_exists',
        `This credential was submitted already, as ${existing.attestation_id}`,
        { context: { attestation_id: existing.attestation_id } },
      )
    }
    const verified = await verifyExternalCredential(input.vc_jwt, await trustedIssuersOf(trx, orgId), now)
    if (!verified.ok) throw refusedCredential(verified)
    // Fetched now (and kept: the evaluations that follow read the lists as fetched here).
    const status = await checkExternalStatus(verified, (url) => fetchAndKeep(ctx, trx, orgId, url), {
      now,
      maxAgeMs: ctx.issuerStatusMaxAgeMs,
    })
    if (!status.ok) throw refusedCredential(status)
    const attestationId = ctx.ids.next('att')
    const row = {
      attestation_id: attestationId,
      org_id: orgId,
      issuer_id: verified.issuer.issuer_id,
      issuer_did: verified.issuer.did,
      subject_did: verified.subject,
      type: verified.requirements[0]!,
      vc_types: JSON.stringify(verified.vcTypes),
      vc_jwt: input.vc_jwt,
      vc_sha256: vcSha256,
      valid_from: verified.validFrom,
      valid_until: verified.validUntil,
      credential_status:
        verified.credentialStatus === null ? null : JSON.stringify(verified.credentialStatus),
      status: 'active',
      submitted_at: isoTimestamp(now.getTime()),
    }
    await insertExternalAttestation(trx, row)
    const record = externalAttestationFromRow(row)
    ctx.record({
      orgId,
      action: 'attestation.submitted',
      target: { type: 'attestation', id: attestationId },
      after: {
        source: 'external',
        issuer_id: row.issuer_id,
        subject_did: row.subject_did,
        type: row.type,
        vc_sha256: vcSha256,
      },
      answer: () => record,
    })
    return record
  })
}
