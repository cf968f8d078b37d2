import type { Selectable } from 'kysely'
import type { TrustRelation } from '../../../../src/contract/rwa.js'
import type { TrustRelationsTable } from '../../../platform/db/schema.js'

/** The API record of a stored trust relation. */
export function trustFromRow(row: Selectable<TrustRelationsTable>): TrustRelation {
  return {
    trust_id: row.trust_id,
    from_jurisdiction: row.from_jurisdiction,
    to_jurisdiction: row.to_jurisdiction,
    mutual: row.mutual === 1,
    status: row.status as TrustRelation['status'],
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  }
}
