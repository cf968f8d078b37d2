import type { Selectable } from 'kysely'
import type { Jurisdiction } from '../../../../src/contract/rwa.js'
import type { JurisdictionsTable } from '../../../platform/db/schema.js'

/** The columns a jurisdiction's API record is made of (never its private key). */
export const JURISDICTION_RECORD_COLUMNS = [
  'jurisdiction_id',
  'name',
  'regulatory_body',
  'frameworks',
  'credential_types',
  'transfer_requirements',
  'external_only',
  'issuer_did',
  'created_at',
  'updated_at',
] as const

/** A stored jurisdiction's row, or only the columns of its record. */
export type JurisdictionRecordRow = Pick<
  Selectable<JurisdictionsTable>,
  (typeof JURISDICTION_RECORD_COLUMNS)[number]
>

/** The API record of a stored jurisdiction. The private key column is dropped: no record carries it. */
export function jurisdictionFromRow(row: JurisdictionRecordRow): Jurisdiction {
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
