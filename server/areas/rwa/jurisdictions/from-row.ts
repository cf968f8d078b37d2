import type { Selectable } from 'kysely'
import type { Jurisdiction } from '../../../../src/contract/rwa.js'
import type { JurisdictionsTable } from '../../../platform/db/schema.js'

/** The API record of a stored jurisdiction. The private key column is dropped: no record carries it. */
export function jurisdictionFromRow(row: Selectable<JurisdictionsTable>): Jurisdiction {
  return {
    jurisdiction_id: row.jurisdiction_id,
    name: row.name,
    regulatory_body: row.regulatory_body,
    frameworks: JSON.parse(row.frameworks),
    credential_types: JSON.parse(row.credential_types),
    transfer_requirements: JSON.parse(row.transfer_requirements),
    external_only: JSON.parse(row.external_only),
    issuer_did: row.issuer_did,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
