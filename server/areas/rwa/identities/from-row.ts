import type { Identity, IdentityCategory } from '../../../../src/contract/identities.js'
import type { IdentityRow } from './queries.js'

/** The API record of a stored identity and its DIDs (oldest first). */
export function identityFromRow(row: IdentityRow, dids: string[]): Identity {
  return {
    identity_id: row.identity_id,
    dids,
    country: row.country,
    category: row.category as IdentityCategory | null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
