import { type Insertable, type Selectable, sql } from 'kysely'
import { compiledOnce } from '../../../platform/db/compiled-query.js'
import {
  type Executor,
  ownedRecord,
  type PageQuery,
  pageOf,
  type RowLock,
  whereEqual,
} from '../../../platform/db/queries.js'
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
  const rows = await identitiesOfDidsQuery(db, orgId, [...new Set(dids)])
  for (const { did, ...identity } of rows) found.set(did, identity)
  return found
}

/** Compiled once per number of DIDs: the rules that read identities ask it of every transfer. */
const identitiesOfDidsQuery = compiledOnce((db: Executor, orgId: string, dids: string[]) =>
  db
    .selectFrom('identity_dids')
    .innerJoin('identities', (j) =>
      j
        .onRef('identities.org_id', '=', 'identity_dids.org_id')
        .onRef('identities.identity_id', '=', 'identity_dids.identity_id'),
    )
    .selectAll('identities')
    .select('identity_dids.did as did')
    .where('identity_dids.org_id', '=', orgId)
    .where('identity_dids.did', 'in', dids),
)

/**
 * Every DID sharing an identity with `did` (itself included); just `[did]` when it has none. Compiled
 * once: every transfer evaluation asks it of its recipient.
 */
export async function didsSharingIdentity(db: Executor, orgId: string, did: string): Promise<string[]> {
  const rows = await didsSharingIdentityQuery(db, orgId, did)
  return rows.length === 0 ? [did] : rows.map((r) => r.did)
}

const didsSharingIdentityQuery = compiledOnce((db: Executor, orgId: string, did: string) =>
  db
    .selectFrom('identity_dids as mine')
    .innerJoin('identity_dids as other', (j) =>
      j.onRef('other.org_id', '=', 'mine.org_id').onRef('other.identity_id', '=', 'mine.identity_id'),
    )
    .select('other.did as did')
    .where('mine.org_id', '=', orgId)
    .where('mine.did', '=', did),
)

/** Adds `dids` to an identity; the primary key refuses a DID another identity has (a unique violation). */
export async function insertIdentityDids(
  db: Executor,
  orgId: string,
  identityId: string,
  dids: readonly string[],
  addedAt: string,
): Promise<void> {
  if (dids.length === 0) return
  await db
    .insertInto('identity_dids')
    .values(dids.map((did) => ({ org_id: orgId, did, identity_id: identityId, added_at: addedAt })))
    .execute()
}

/** Removes `dids` from an identity (each is then free for another). */
export async function deleteIdentityDids(
  db: Executor,
  orgId: string,
  identityId: string,
  dids: readonly string[],
): Promise<void> {
  if (dids.length === 0) return
  await db
    .deleteFrom('identity_dids')
    .where('org_id', '=', orgId)
    .where('identity_id', '=', identityId)
    .where('did', 'in', [...dids])
    .execute()
}

/** The identities of the organization, newest first; filtered by country, category, one of its DIDs. */
export function listIdentities(
  db: Executor,
  orgId: string,
  query: PageQuery & { country?: string; category?: string; did?: string },
) {
  let base = whereEqual(db.selectFrom('identities').where('org_id', '=', orgId), {
    country: query.country,
    category: query.category,
  })
  if (query.did !== undefined) {
    const did = query.did
    base = base.where('identity_id', 'in', (eb) =>
      eb.selectFrom('identity_dids').select('identity_id').where('org_id', '=', orgId).where('did', '=', did),
    )
  }
  return pageOf(base, 'seq', query)
}

/** The DIDs of each of `identityIds`, oldest first (one query for a page of identities). */
export async function didsOfIdentities(
  db: Executor,
  orgId: string,
  identityIds: readonly string[],
): Promise<Map<string, string[]>> {
  const byIdentity = new Map<string, string[]>(identityIds.map((id) => [id, []]))
  if (identityIds.length === 0) return byIdentity
  const rows = await db
    .selectFrom('identity_dids')
    .select(['identity_id', 'did'])
    .where('org_id', '=', orgId)
    .where('identity_id', 'in', [...identityIds])
    .orderBy('added_at')
    .orderBy('did')
    .execute()
  for (const row of rows) byIdentity.get(row.identity_id)?.push(row.did)
  return byIdentity
}

export type IdentityChanges = Partial<Pick<IdentitiesTable, 'country' | 'category'>> & { updated_at: string }

export async function updateIdentity(
  db: Executor,
  orgId: string,
  identityId: string,
  changes: IdentityChanges,
): Promise<void> {
  await db
    .updateTable('identities')
    .set(changes)
    .where('org_id', '=', orgId)
    .where('identity_id', '=', identityId)
    .execute()
}

/** Puts `newDid` in the place of `lostDid` in its identity (a recovery); the primary key refuses a DID taken. */
export async function replaceIdentityDid(
  db: Executor,
  orgId: string,
  lostDid: string,
  newDid: string,
  addedAt: string,
): Promise<void> {
  await db
    .updateTable('identity_dids')
    .set({ did: newDid, added_at: addedAt })
    .where('org_id', '=', orgId)
    .where('did', '=', lostDid)
    .execute()
}

// ── A token's holders grouped by identity ───────────────────────────────────

/**
 * The group a holding counts in: `1<identity_id>` for a DID of an identity, `2<holder_did>` for a DID of
 * none (identities first, then lone DIDs). Written out as SQL text, not parameters, so that PostgreSQL
 * sees the same expression in the select list, the grouping and the order.
 */
const GROUP_KEY = sql<string>`coalesce('1' || identity_dids.identity_id, '2' || holdings.holder_did)`

const nonZeroHoldings = (db: Executor, orgId: string, tokenId: string) =>
  db
    .selectFrom('holdings')
    .leftJoin('identity_dids', (j) =>
      j.on('identity_dids.org_id', '=', orgId).onRef('identity_dids.did', '=', 'holdings.holder_did'),
    )
    .where('holdings.token_id', '=', tokenId)
    .where('holdings.amount', '>', 0)

export interface HolderDidRow {
  group_key: string
  identity_id: string | null
  country: string | null
  category: string | null
  holder_did: string
  amount: number
}

/**
 * One page of a token's holder groups after the group `after` (a decoded cursor): how many groups
 * there are, and each DID holding units in the page's groups with its units over every jurisdiction.
 */
export async function holderGroupsPage(
  db: Executor,
  orgId: string,
  tokenId: string,
  limit: number,
  after: string | undefined,
): Promise<{ keys: string[]; rows: HolderDidRow[]; total: number; more: boolean }> {
  const counted = await nonZeroHoldings(db, orgId, tokenId)
    .select(sql<number | string>`count(distinct ${GROUP_KEY})`.as('n'))
    .executeTakeFirst()
  const total = Number(counted?.n ?? 0)
  let groups = nonZeroHoldings(db, orgId, tokenId).select(GROUP_KEY.as('group_key')).groupBy(GROUP_KEY)
  if (after !== undefined) groups = groups.where(GROUP_KEY, '>', after)
  const found = (
    await groups
      .orderBy(GROUP_KEY)
      .limit(limit + 1)
      .execute()
  ).map((r) => r.group_key)
  const more = found.length > limit
  const keys = more ? found.slice(0, limit) : found
  if (keys.length === 0) return { keys, rows: [], total, more }
  const rows = await nonZeroHoldings(db, orgId, tokenId)
    .leftJoin('identities', (j) =>
      j.on('identities.org_id', '=', orgId).onRef('identities.identity_id', '=', 'identity_dids.identity_id'),
    )
    .select([
      GROUP_KEY.as('group_key'),
      'identity_dids.identity_id',
      'identities.country',
      'identities.category',
      'holdings.holder_did',
      sql<number | string>`sum(holdings.amount)`.as('amount'),
    ])
    .where(GROUP_KEY, 'in', keys)
    .groupBy([
      'identity_dids.identity_id',
      'identities.country',
      'identities.category',
      'holdings.holder_did',
    ])
    .orderBy('holdings.holder_did')
    .execute()
  return { keys, rows: rows.map((r) => ({ ...r, amount: Number(r.amount) })), total, more }
}
