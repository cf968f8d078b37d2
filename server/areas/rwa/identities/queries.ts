import type { Insertable, Selectable } from 'kysely'
import { type Executor, ownedRecord, type RowLock } from '../../../platform/db/queries.js'
import type { IdentitiesTable } from '../../../platform/db/identities-schema.js'
import { ownedOr404 } from '../owned.js'

/** Queries of investors' identities; each filters by org_id first. */

export type IdentityRow = Selectable<IdentitiesTable>

export const findIdentity = ownedRecord('identities', 'identity_id')

/** The identity of that id in the organization, or a 404. */
export const identityOr404 = (db: Executor, orgId: string, id: string, lock?: RowLock) =>
  ownedOr404(findIdentity(db, orgId, id, lock), 'identity', id)

export async function insertIdentity(db: Executor, row: Insertable<IdentitiesTable>): Promise<void> {
  await db.insertInto('identities').values(row).execute()
}

/** The DIDs of one identity, oldest first. */
export async function didsOfIdentity(db: Executor, orgId: string, identityId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('identity_dids')
    .select('did')
    .where('org_id', '=', orgId)
    .where('identity_id', '=', identityId)
    .orderBy('added_at')
    .orderBy('did')
    .execute()
  return rows.map((r) => r.did)
}

/** The identity (row) each of `dids` belongs to; a DID of no identity is absent from the map. */
export async function identitiesOfDids(
  db: Executor,
  orgId: string,
  dids: readonly string[],
): Promise<Map<string, IdentityRow>> {
  const found = new Map<string, IdentityRow>()
  if (dids.length === 0) return found
  const rows = await db
    .selectFrom('identity_dids')
    .innerJoin('identities', (j) =>
      j.onRef('identities.org_id', '=', 'identity_dids.org_id').onRef('identities.identity_id', '=', 'identity_dids.identity_id'),
    )
    .selectAll('identities')
    .select('identity_dids.did as did')
    .where('identity_dids.org_id', '=', orgId)
    .where('identity_dids.did', 'in', [...new Set(dids)])
    .execute()
  for (const { did, ...identity } of rows) found.set(did, identity)
  return found
}

/** Every DID sharing an identity with `did` (itself included); just `[did]` when it has none. */
export async function didsSharingIdentity(db: Executor, orgId: string, did: string): Promise<string[]> {
  const rows = await db
    .selectFrom('identity_dids as mine')
    .innerJoin('identity_dids as other', (j) =>
      j.onRef('other.org_id', '=', 'mine.org_id').onRef('other.identity_id', '=', 'mine.identity_id'),
    )
    .select('other.did as did')
    .where('mine.org_id', '=', orgId)
    .where('mine.did', '=', did)
    .execute()
  return rows.length === 0 ? [did] : rows.map((r) => r.did)
}
