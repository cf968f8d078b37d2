import type { Selectable } from 'kysely'
import type { Credential, SignedCredentialStatus, PropertyData } from '../../../../src/contract/rwa.js'
import type { CredentialsTable } from '../../../platform/db/schema.js'
import { credentialStatusOf, statusOfRow } from '../status-lists/service.js'

/** The API record of a stored credential. */
export function credentialFromRow(row: Selectable<CredentialsTable>): Credential {
  return credentialFromRowWithStatus(row, credentialStatusOf(row.vc_jwt))
}

/** The same, its `credentialStatus` given (the issuance has it at hand) rather than decoded from its VC-JWT. */
export function credentialFromRowWithStatus(
  row: Selectable<CredentialsTable>,
  credentialStatus: SignedCredentialStatus | null,
): Credential {
  return {
    credential_id: row.credential_id,
    type: 'PropertyOwnership',
    jurisdiction: row.jurisdiction,
    owner_did: row.owner_did,
    property_data: JSON.parse(row.property_data) as PropertyData,
    status: statusOfRow(row),
    issuer_did: row.issuer_did,
    issued_at: row.issued_at,
    valid_until: row.valid_until,
    revoked_at: row.revoked_at,
    revocation_reason: row.revocation_reason,
    vc_jwt: row.vc_jwt,
    credential_status: credentialStatus,
  }
}
