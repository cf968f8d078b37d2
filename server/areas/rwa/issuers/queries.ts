import { type Insertable, type Selectable, sql } from 'kysely'
import type { TrustedIssuer } from '../../../../src/proof/external-credential.js'
import type { ListIssuersQuery } from '../../../../src/contract/issuers.js'
import { type Executor, ownedRecord, pageOf, type RowLock } from '../../../platform/db/queries.js'
import type { IssuerKeysTable, IssuersTable } from '../../../platform/db/issuers-schema.js'
import { ownedOr404 } from '../owned.js'

/** Every query of trusted issuers; each filters by org_id first. */

export const findIssuer = ownedRecord('issuers', 'issuer_id')

/** The issuer of that id in the organization, or a 404. */
export const issuerOr404 = (db: Executor, orgId: string, id: string, lock?: RowLock) =>
  ownedOr404(findIssuer(db, orgId, id, lock), 'issuer', id)

/** `text` as a LIKE pattern matching itself alone (`%`, `_` and `\` escaped). */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * Newest first, filtered by exact matches: a jurisdiction the issuer lists, a requirement it is trusted
 * for (a key of its requirements), its status. Lists are JSON text, matched as their quoted entries.
 */
export function listIssuers(db: Executor, orgId: string, query: ListIssuersQuery) {
  let base = db.selectFrom('issuers').where('org_id', '=', orgId)
  if (query.status) base = base.where('status', '=', query.status)
  if (query.jurisdiction) {
    const pattern = `%${literal(JSON.stringify(query.jurisdiction))}%`
    base = base.where(sql<boolean>`jurisdictions like ${pattern} escape '\\'`)
  }
  if (query.requirement) {
    const pattern = `%${literal(`${JSON.stringify(query.requirement)}:`)}%`
    base = base.where(sql<boolean>`requirements like ${pattern} escape '\\'`)
  }
  return pageOf(base, 'seq', query)
}

export async function insertIssuer(db: Executor, row: Insertable<IssuersTable>): Promise<void> {
  await db.insertInto('issuers').values(row).execute()
}

export type IssuerChanges = Partial<
  Pick<
    IssuersTable,
    'name' | 'requirements' | 'jurisdictions' | 'status' | 'valid_until' | 'updated_at' | 'resolved_at'
  >
>

export async function updateIssuer(db: Executor, orgId: string, issuerId: string, changes: IssuerChanges) {
  await db
    .updateTable('issuers')
    .set(changes)
    .where('org_id', '=', orgId)
    .where('issuer_id', '=', issuerId)
    .execute()
}

/** An issuer's keys, oldest first. */
export function keysOf(db: Executor, orgId: string, issuerId: string) {
  return db
    .selectFrom('issuer_keys')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('issuer_id', '=', issuerId)
    .orderBy('first_seen_at')
    .orderBy('kid')
    .execute()
}

/** The keys of several issuers (a page of the list), by issuer id. */
export async function keysOfIssuers(
  db: Executor,
  orgId: string,
  issuerIds: string[],
): Promise<Map<string, Selectable<IssuerKeysTable>[]>> {
  const byIssuer = new Map<string, Selectable<IssuerKeysTable>[]>(issuerIds.map((id) => [id, []]))
  if (issuerIds.length === 0) return byIssuer
  const rows = await db
    .selectFrom('issuer_keys')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('issuer_id', 'in', issuerIds)
    .orderBy('first_seen_at')
    .orderBy('kid')
    .execute()
  for (const row of rows) byIssuer.get(row.issuer_id)?.push(row)
  return byIssuer
}

export async function insertKeys(db: Executor, rows: Insertable<IssuerKeysTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('issuer_keys').values(rows).execute()
}

/** Sets (or, with null, clears) the `retired_at` of some keys of an issuer. */
export async function setKeysRetired(
  db: Executor,
  orgId: string,
  issuerId: string,
  kids: string[],
  retiredAt: string | null,
): Promise<void> {
  if (kids.length === 0) return
  await db
    .updateTable('issuer_keys')
    .set({ retired_at: retiredAt })
    .where('org_id', '=', orgId)
    .where('issuer_id', '=', issuerId)
    .where('kid', 'in', kids)
    .execute()
}

/**
 * Every issuer of the organization as a verifier needs it (src/proof/external-credential.ts): its DID,
 * status, requirements, end of trust and keys kept for life. Removed ones included, so that a credential
 * of one is refused as such.
 */
/** Every issuer of an organization, removed ones included, by issuer_id, with its keys (oldest first). */
export async function allIssuersWithKeys(db: Executor, orgId: string) {
  const rows = await db
    .selectFrom('issuers')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('issuer_id')
    .execute()
  const keys = await keysOfIssuers(
    db,
    orgId,
    rows.map((r) => r.issuer_id),
  )
  return rows.map((row) => ({ row, keys: keys.get(row.issuer_id) ?? [] }))
}

export async function trustedIssuersOf(db: Executor, orgId: string): Promise<TrustedIssuer[]> {
  const rows = await db.selectFrom('issuers').selectAll().where('org_id', '=', orgId).orderBy('seq').execute()
  const keys = await keysOfIssuers(
    db,
    orgId,
    rows.map((r) => r.issuer_id),
  )
  return rows.map((row) => ({
    issuer_id: row.issuer_id,
    did: row.did,
    status: row.status as TrustedIssuer['status'],
    requirements: JSON.parse(row.requirements) as Record<string, string[]>,
    valid_until: row.valid_until,
    jurisdictions: JSON.parse(row.jurisdictions) as string[],
    keys: (keys.get(row.issuer_id) ?? []).map((k) => ({
      kid: k.kid,
      jwk: JSON.parse(k.jwk) as TrustedIssuer['keys'][number]['jwk'],
      retired_at: k.retired_at,
    })),
  }))
}

/**
 * Active did:web issuers of every organization, still trusted at `now`, last resolved at or before
 * `resolvedBefore`: those whose document the background fetches again. Oldest resolution first.
 */
export function issuersDueForResolution(db: Executor, now: string, resolvedBefore: string, limit: number) {
  return db
    .selectFrom('issuers')
    .select(['org_id', 'issuer_id', 'did'])
    .where('status', '=', 'active')
    .where('did', 'like', 'did:web:%')
    .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', now)]))
    .where('resolved_at', '<=', resolvedBefore)
    .orderBy('resolved_at')
    .orderBy('seq')
    .limit(limit)
    .execute()
}
