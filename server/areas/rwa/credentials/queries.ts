import { type Insertable, sql } from 'kysely'
import type { ListCredentialsQuery } from '../../../../src/contract/rwa.js'
import { compiledInsert, compiledOnce } from '../../../platform/db/compiled-query.js'
import { type Executor, ownedRecord, pageOf, type RowLock, whereEqual } from '../../../platform/db/queries.js'
import type { CredentialsTable } from '../../../platform/db/schema.js'
import { ownedOr404 } from '../owned.js'

/** Every query of credentials and of the DIDs they introduce; each filters by org_id first. */

export const findCredential = ownedRecord('credentials', 'credential_id')

/** The credential of that id in the organization, or a 404 (another organization's id looks the same). */
export const credentialOr404 = (db: Executor, orgId: string, id: string, lock?: RowLock) =>
  ownedOr404(findCredential(db, orgId, id, lock), 'credential', id)

export function listCredentials(db: Executor, orgId: string, query: ListCredentialsQuery) {
  let base = whereEqual(db.selectFrom('credentials').where('org_id', '=', orgId), {
    jurisdiction: query.jurisdiction,
    owner_did: query.owner_did,
    // A suspended credential is stored `active` with its suspended_at set (migration 0025).
    status: query.status === 'suspended' ? 'active' : query.status,
  })
  if (query.status === 'active') base = base.where('suspended_at', 'is', null)
  if (query.status === 'suspended') base = base.where('suspended_at', 'is not', null)
  return pageOf(base, 'credential_id', query)
}

/** The active credential of the jurisdiction holding that title deed key, if any. */
export async function findActiveByTitleDeed(db: Executor, orgId: string, jurisdiction: string, key: string) {
  const [row] = await activeByTitleDeed(db, orgId, jurisdiction, key)
  return row
}

/*
 * An issuance's reads and writes, compiled once (compiledOnce, compiledInsert). The title deed lookup
 * names `status = 'active'` in its SQL, not as a parameter: only then may SQLite use the partial unique
 * index credentials_title_deed_uq (`where status = 'active'`); with `status = ?` it walked every active
 * credential of the organization (credentials_status_idx), so each issuance cost more as they grew.
 */
const activeByTitleDeed = compiledOnce((db: Executor, orgId: string, jurisdiction: string, key: string) =>
  db
    .selectFrom('credentials')
    .select(['credential_id', 'property_data'])
    .where('org_id', '=', orgId)
    .where('jurisdiction', '=', jurisdiction)
    .where('title_deed_key', '=', key)
    .where('status', '=', sql.lit('active')),
)

export const insertCredential: (db: Executor, row: Insertable<CredentialsTable>) => Promise<void> =
  compiledInsert<Insertable<CredentialsTable>>('credentials', [
    'credential_id',
    'org_id',
    'jurisdiction',
    'owner_did',
    'property_data',
    'status',
    'issuer_did',
    'issued_at',
    'valid_until',
    'revoked_at',
    'revocation_reason',
    // Since suspension (migration 0025) an issuance's row names these two: without them here every row
    // was one column more than the compiled statement, and kysely built its insert per request.
    'suspended_at',
    'suspension_reason',
    'vc_jwt',
    'status_list_id',
    'status_list_index',
    'title_deed_key',
  ])

/** Revokes an active credential; false when it was not active (another request revoked it first). */
export async function markCredentialRevoked(
  db: Executor,
  credentialId: string,
  revokedAt: string,
  reason: string | null,
): Promise<boolean> {
  const result = await db
    .updateTable('credentials')
    .set({ status: 'revoked', revoked_at: revokedAt, revocation_reason: reason })
    .where('credential_id', '=', credentialId)
    .where('status', '=', 'active')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/**
 * Freezes the token a revoked credential backs, if there is one, and returns its id. The update takes
 * the token's row lock: a transfer of it in flight finishes first (or waits and then sees it frozen).
 */
export async function freezeTokenBackedBy(db: Executor, credentialId: string): Promise<string | undefined> {
  const row = await db
    .updateTable('tokens')
    .set({ status: 'frozen' })
    .where('credential_id', '=', credentialId)
    .returning('token_id')
    .executeTakeFirst()
  return row?.token_id
}

export async function isKnownDid(db: Executor, orgId: string, did: string): Promise<boolean> {
  return (await knownDid(db, orgId, did)).length > 0
}

const knownDid = compiledOnce((db: Executor, orgId: string, did: string) =>
  db.selectFrom('rwa_dids').select('did').where('org_id', '=', orgId).where('did', '=', did),
)

export async function countDids(db: Executor, orgId: string): Promise<number> {
  const [row] = await didCount(db, orgId)
  return Number(row?.n ?? 0)
}

const didCount = compiledOnce((db: Executor, orgId: string) =>
  db
    .selectFrom('rwa_dids')
    .select((eb) => eb.fn.countAll<number | bigint>().as('n'))
    .where('org_id', '=', orgId),
)

/** Records a DID the organization introduced (what `max_dids` caps). */
export async function insertDid(db: Executor, orgId: string, did: string, at: string): Promise<void> {
  await insertDidRow(db, orgId, did, at)
}

const insertDidRow = compiledOnce((db: Executor, orgId: string, did: string, at: string) =>
  db.insertInto('rwa_dids').values({ org_id: orgId, did, created_at: at }),
)

/**
 * Suspends (`suspension` given) or reinstates (null) an unrevoked credential; false when another
 * request changed it first (revoked it, or suspended or reinstated it).
 */
export async function markCredentialSuspension(
  db: Executor,
  credentialId: string,
  suspension: { at: string; reason: string | null } | null,
): Promise<boolean> {
  const result = await db
    .updateTable('credentials')
    .set({ suspended_at: suspension?.at ?? null, suspension_reason: suspension?.reason ?? null })
    .where('credential_id', '=', credentialId)
    .where('status', '=', 'active')
    .where('suspended_at', suspension ? 'is' : 'is not', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
