import type { Selectable } from 'kysely'
import type { Attestation, CredentialStatusEntry } from '../../../../src/contract/rwa.js'
import type { AttestationsTable } from '../../../platform/db/schema.js'
import { credentialStatusOf } from '../status-lists/service.js'

/** The API record of a stored attestation. */
export function attestationFromRow(row: Selectable<AttestationsTable>): Attestation {
  return attestationFromRowWithStatus(row, credentialStatusOf(row.vc_jwt))
}

/** The same, its `credentialStatus` given (the issuance has it at hand) rather than decoded from its VC-JWT. */
export function attestationFromRowWithStatus(
  row: Selectable<AttestationsTable>,
  credentialStatus: CredentialStatusEntry | null,
): Attestation {
  return {
    attestation_id: row.attestation_id,
    jurisdiction: row.jurisdiction,
    subject_did: row.subject_did,
    type: row.type,
    attester: row.attester,
    credential_id: row.credential_id,
    evidence: row.evidence,
    issuer_did: row.issuer_did,
    issued_at: row.issued_at,
    valid_until: row.valid_until,
    vc_jwt: row.vc_jwt,
    credential_status: credentialStatus,
    status: row.status as Attestation['status'],
    revoked_at: row.revoked_at,
    revocation_reason: row.revocation_reason,
  }
}
