import type { Selectable } from 'kysely'
import type { Issuer, IssuerKey } from '../../../../src/contract/issuers.js'
import type { IssuerKeysTable, IssuersTable } from '../../../platform/db/issuers-schema.js'

/** The API record of a key. */
export function issuerKeyFromRow(row: Selectable<IssuerKeysTable>): IssuerKey {
  return {
    kid: row.kid,
    jwk: JSON.parse(row.jwk) as IssuerKey['jwk'],
    first_seen_at: row.first_seen_at,
    retired_at: row.retired_at,
  }
}

/** The API record of a stored issuer and its keys (oldest first). */
export function issuerFromRow(row: Selectable<IssuersTable>, keys: Selectable<IssuerKeysTable>[]): Issuer {
  return {
    issuer_id: row.issuer_id,
    name: row.name,
    did: row.did,
    requirements: JSON.parse(row.requirements) as Issuer['requirements'],
    jurisdictions: JSON.parse(row.jurisdictions) as string[],
    status: row.status as Issuer['status'],
    keys: keys.map(issuerKeyFromRow),
    created_at: row.created_at,
    updated_at: row.updated_at,
    valid_until: row.valid_until,
    resolved_at: row.resolved_at,
  }
}
