import {
  type AnyAttestation,
  type Attestation,
  type ExternalAttestation,
  KNOWN_REQUIREMENTS,
  type ListAttestationsQuery,
  type ListAttestationsResponse,
  REGULATORY_ATTESTATION,
  type RevokeAttestationRequest,
  type SelfAttestationRequest,
  type SubmitAttestationRequest,
} from '../../../../src/contract/rwa.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import { ApiError } from '../../../platform/errors.js'
import { credentialOr404 } from '../credentials/queries.js'
import { assertAccepts, issuanceTimes, signIssued } from '../issuance.js'
import { requirementNamesOf } from '../jurisdictions/queries.js'
import { jurisdictionOr404 } from '../jurisdictions/queries.js'
import { listPage, ownedOr404 } from '../owned.js'
import { recordTokenEvent } from '../history/history.js'
import { assignStatusEntry, revokeStatusEntry } from '../status-lists/service.js'
import { findTokenByCredential } from '../tokens/queries.js'
import { submitExternalAttestation } from './external.js'
import { attestationFromRow, attestationFromRowWithStatus, externalAttestationFromRow } from './from-row.js'
import {
  findAttestation,
  findExternalAttestation,
  insertAttestation,
  listAttestations as listAttestationRows,
  listExternalAttestations,
  markAttestationRevoked,
} from './queries.js'

/**
 * Records an attestation: the organization's own (signed by the attesting jurisdiction's key), or a
 * trusted issuer's credential (`{ vc_jwt }`, ./external.ts).
 */
export async function submitAttestation(
  ctx: AppContext,
  principal: Principal,
  input: SubmitAttestationRequest,
): Promise<Attestation | ExternalAttestation> {
  if ('vc_jwt' in input) return submitExternalAttestation(ctx, principal, input)
  return submitSelfAttestation(ctx, principal, input)
}

/** Records a regulatory attestation, signed by the attesting jurisdiction's key. */
async function submitSelfAttestation(
  ctx: AppContext,
  principal: Principal,
  input: SelfAttestationRequest,
): Promise<Attestation> {
  const orgId = principal.orgId
  const times = issuanceTimes(ctx, input.valid_until, 'attestation')
  const attestationId = ctx.ids.next('att')
  return ctx.db.transaction().execute(async (trx) => {
    const jurisdiction = await jurisdictionOr404(trx, orgId, input.jurisdiction, 'key share')
    assertAccepts(jurisdiction, REGULATORY_ATTESTATION)
    const known = await requirementNamesOf(trx, orgId)
    if (!(KNOWN_REQUIREMENTS as readonly string[]).includes(input.type) && !known.has(input.type)) {
      throw new ApiError(
        'unknown_requirement',
        `Attestation type ${input.type} is not a requirement: use one of ${[...new Set([...KNOWN_REQUIREMENTS, ...known])].join(', ')}, or list it in a jurisdiction's transfer_requirements first`,
        {
          context: { type: input.type, known: [...new Set([...KNOWN_REQUIREMENTS, ...known])] },
          errors: [{ path: 'type', message: 'unknown requirement name' }],
        },
      )
    }
    if (input.credential_id) await credentialOr404(trx, orgId, input.credential_id)

    const status = await assignStatusEntry(ctx, trx, orgId, input.jurisdiction, times.now)
    const vc_jwt = await signIssued(ctx, jurisdiction, {
      id: `urn:rwa:attestation:${attestationId}`,
      type: 'RegulatoryAttestationCredential',
      subject: input.subject_did,
      times,
      credentialSubject: {
        id: input.subject_did,
        requirement: input.type,
        jurisdiction: input.jurisdiction,
        attester: input.attester,
        ...(input.credential_id ? { credential: `urn:rwa:credential:${input.credential_id}` } : {}),
        ...(input.evidence ? { evidence: input.evidence } : {}),
      },
      credentialStatus: status.credentialStatus,
    })
    const row = {
      attestation_id: attestationId,
      org_id: orgId,
      jurisdiction: input.jurisdiction,
      subject_did: input.subject_did,
      type: input.type,
      attester: input.attester,
      credential_id: input.credential_id ?? null,
      evidence: input.evidence ?? null,
      issuer_did: jurisdiction.issuer_did,
      issued_at: times.now,
      valid_until: times.validUntil,
      vc_jwt,
      status_list_id: status.listId,
      status_list_index: status.index,
      status: 'active',
      revoked_at: null,
      revocation_reason: null,
      suspended_at: null,
      suspension_reason: null,
    }
    await insertAttestation(trx, row)
    // As a credential's: the record from the row at hand and the status entry just assigned.
    const record = attestationFromRowWithStatus(row, status.credentialStatus)
    ctx.record({
      orgId,
      action: 'attestation.submitted',
      target: { type: 'attestation', id: attestationId },
      after: { jurisdiction: input.jurisdiction, subject_did: input.subject_did, type: input.type },
      answer: () => record,
    })
    return record
  })
}

export async function getAttestation(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<AnyAttestation> {
  const own = await findAttestation(ctx.db, principal.orgId, id)
  if (own) return attestationFromRow(own)
  return externalAttestationFromRow(
    await ownedOr404(findExternalAttestation(ctx.db, principal.orgId, id), 'attestation', id),
  )
}

/**
 * The organization's own attestations and its trusted issuers' together, newest first (their ids are of
 * one kind, time-sortable): a page of each below the cursor, merged. A jurisdiction or credential filter
 * leaves out the trusted issuers' (they have neither).
 */
export async function listAttestations(
  ctx: AppContext,
  principal: Principal,
  query: ListAttestationsQuery,
): Promise<ListAttestationsResponse> {
  const own = await listAttestationRows(ctx.db, principal.orgId, query)
  if (query.jurisdiction !== undefined || query.credential_id !== undefined) {
    return listPage('attestations', own, attestationFromRow)
  }
  const external = await listExternalAttestations(ctx.db, principal.orgId, query)
  const merged: AnyAttestation[] = [
    ...own.rows.map(attestationFromRow),
    ...external.rows.map(externalAttestationFromRow),
  ].sort((a, b) => (a.attestation_id < b.attestation_id ? 1 : a.attestation_id > b.attestation_id ? -1 : 0))
  const page = merged.slice(0, query.limit)
  const more = merged.length > query.limit || own.next_cursor !== null || external.next_cursor !== null
  return {
    attestations: page,
    total: own.total + external.total,
    next_cursor: more && page.length > 0 ? page.at(-1)!.attestation_id : null,
  }
}

/**
 * Revokes an attestation for good (docs/verification.md, "Attestation revocation"), in one transaction:
 * sets its bit in its status list (so every verifier sees it on the next fetch of the list) and marks it
 * revoked, so that no evaluation relies on it from then on (the check it met fails, saying it was
 * revoked). An attestation about a token's credential (a title verification) records the revocation in
 * that token's history.
 */
export async function revokeAttestation(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: RevokeAttestationRequest,
): Promise<Attestation> {
  const now = isoTimestamp(ctx.clock.now())
  const reason = input.reason ?? null
  const orgId = principal.orgId
  return ctx.db.transaction().execute(async (trx) => {
    const own = await findAttestation(trx, orgId, id)
    if (!own && (await findExternalAttestation(trx, orgId, id))) {
      throw new ApiError(
        'attestation_external',
        `Attestation ${id} is a trusted issuer's credential: its issuer revokes it, in its status list; suspend or remove the issuer to stop relying on it`,
        { context: { attestation_id: id } },
      )
    }
    const row = await ownedOr404(Promise.resolve(own), 'attestation', id)
    const alreadyRevoked = async () => {
      const current = await ownedOr404(findAttestation(trx, orgId, id), 'attestation', id)
      return new ApiError(
        'attestation_already_revoked',
        `Attestation ${id} was already revoked at ${current.revoked_at}`,
        { context: { attestation_id: id, revoked_at: current.revoked_at } },
      )
    }
    if (row.status === 'revoked') throw await alreadyRevoked()
    // Conditional: of two concurrent revocations, one changes the row and the other is a 409.
    if (!(await markAttestationRevoked(trx, id, now, reason))) throw await alreadyRevoked()
    if (row.status_list_id !== null && row.status_list_index !== null) {
      await revokeStatusEntry(trx, row.status_list_id, Number(row.status_list_index), now)
    }
    if (row.credential_id !== null) {
      const token = await findTokenByCredential(trx, row.credential_id)
      if (token !== undefined && token.org_id === orgId) {
        await recordTokenEvent(ctx, trx, orgId, token.token_id, 'attestation_revoked', now, {
          attestation_id: id,
          type: row.type,
          credential_id: row.credential_id,
          reason,
          actor_key_id: principal.keyId,
        })
      }
    }
    ctx.record({
      orgId,
      action: 'attestation.revoked',
      target: { type: 'attestation', id },
      after: { reason },
    })
    return attestationFromRow({ ...row, status: 'revoked', revoked_at: now, revocation_reason: reason })
  })
}
