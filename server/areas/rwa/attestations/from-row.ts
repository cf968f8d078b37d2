import type { Selectable } from 'kysely'
import type {
  Attestation,
  SignedCredentialStatus,
  ExternalAttestation,
} from '../../../../src/contract/rwa.js'
import type { ExternalAttestationsTable } from '../../../platform/db/issuers-schema.js'
import type { AttestationsTable } from '../../../platform/db/schema.js'
import { credentialStatusOf, statusOfRow } from '../status-lists/service.js'

/** The API record of a stored attestation. */
export function attestationFromRow(row: Selectable<AttestationsTable>): Attestation {
  return attestationFromRowWithStatus(row, credentialStatusOf(row.vc_jwt))
}

/** The same, its `credentialStatus` given (the issuance has it at hand) rather than decoded from its VC-JWT. */
export function attestationFromRowWithStatus(
  row: Selectable<AttestationsTable>,
  credentialStatus: SignedCredentialStatus | null,
): Attestation {
  return {
    attestation_id: row.attestation_id,
    source: 'self',
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
    status: statusOfRow(row),
    revoked_at: row.revoked_at,
    revocation_reason: row.revocation_reason,
  }
}

/** The API record of a trusted issuer's attestation. */
export function externalAttestationFromRow(row: Selectable<ExternalAttestationsTable>): ExternalAttestation {
  return {
    attestation_id: row.attestation_id,
    source: 'external',
    issuer_id: row.issuer_id,
    issuer_did: row.issuer_did,
    subject_did: row.subject_did,
    type: row.type,
    vc_types: JSON.parse(row.vc_types) as string[],
    vc_jwt: row.vc_jwt,
    vc_sha256: row.vc_sha256,
    valid_from: row.valid_from,
    valid_until: row.valid_until,
    credential_status: row.credential_status === null ? null : JSON.parse(row.credential_status),
    status: row.status as ExternalAttestation['status'],
    submitted_at: row.submitted_at,
    jurisdiction: null,
  }
}
