import type { Insertable } from 'kysely'
import { compiledOnce } from '../../../platform/db/compiled-query.js'
import {
  countOf,
  type Executor,
  ownedRecord,
  type PageQuery,
  pageOf,
  type RowLock,
  withLock,
} from '../../../platform/db/queries.js'
import type { JurisdictionsTable, RemovedJurisdictionsTable } from '../../../platform/db/schema.js'
import { notFound } from '../../../platform/errors.js'
import { ownedOr404 } from '../owned.js'
import { JURISDICTION_RECORD_COLUMNS, type JurisdictionRecordRow } from './from-row.js'

/** Every query of jurisdictions; each filters by org_id first. */

export const findJurisdiction = ownedRecord('jurisdictions', 'jurisdiction_id')

/**
 * The jurisdiction of that id in the organization (with its signing key), or a 404. A write that refers
 * to it takes `key share`, so a concurrent removal waits for it (and then sees it in use) or goes first
 * (and this is a 404).
 */
export const jurisdictionOr404 = (db: Executor, orgId: string, id: string, lock?: RowLock) =>
  ownedOr404(findJurisdiction(db, orgId, id, lock), 'jurisdiction', id)

const jurisdictionRecordRows = compiledOnce((db: Executor, orgId: string, id: string) =>
  db
    .selectFrom('jurisdictions')
    .select(JURISDICTION_RECORD_COLUMNS)
    .where('org_id', '=', orgId)
    .where('jurisdiction_id', '=', id),
)

/**
 * The columns of the jurisdiction's API record, or a 404: what `GET /jurisdictions/{id}` reads, without
 * the columns no record carries (its sealed private key among them). No lock: a read outside a write.
 */
export const jurisdictionRecordOr404 = (
  db: Executor,
  orgId: string,
  id: string,
): Promise<JurisdictionRecordRow> =>
  jurisdictionRecordRows(db, orgId, id).then((rows) => {
    const row = rows[0]
    if (row === undefined) throw notFound('jurisdiction', id)
    return row
  })

const jurisdictionsIn = (lock: RowLock | undefined) =>
  compiledOnce((db: Executor, orgId: string, ids: string[]) =>
    withLock(
      db,
      db
        .selectFrom('jurisdictions')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('jurisdiction_id', 'in', ids),
      lock,
    ),
  )
const jurisdictionsInBy = {
  none: jurisdictionsIn(undefined),
  update: jurisdictionsIn('update'),
  'key share': jurisdictionsIn('key share'),
}

/** The organization's jurisdictions among `ids` (compiled once per lock and number of ids: every transfer reads them). */
export async function findJurisdictions(db: Executor, orgId: string, ids: string[], lock?: RowLock) {
  if (ids.length === 0) return []
  return jurisdictionsInBy[lock ?? 'none'](db, orgId, ids)
}

/** Every jurisdiction's issuer DID and since when it is (a trust bundle's issuers), by id. */
export function listIssuers(db: Executor, orgId: string) {
  return db
    .selectFrom('jurisdictions')
    .select(['jurisdiction_id', 'issuer_did', 'created_at', 'issuer_since'])
    .where('org_id', '=', orgId)
    .orderBy('jurisdiction_id')
    .execute()
}

/** The keys of the organization's removed jurisdictions (a trust bundle's issuers too), by id. */
export function listRemovedIssuers(db: Executor, orgId: string) {
  return db
    .selectFrom('removed_jurisdictions')
    .select(['jurisdiction_id', 'issuer_did', 'valid_from', 'removed_at'])
    .where('org_id', '=', orgId)
    .orderBy('jurisdiction_id')
    .execute()
}

/** The kept key of a removed jurisdiction of that id, if one was removed (`update`: to take it back). */
export const findRemovedJurisdiction = ownedRecord('removed_jurisdictions', 'jurisdiction_id')

export async function insertRemovedJurisdiction(
  db: Executor,
  row: Insertable<RemovedJurisdictionsTable>,
): Promise<void> {
  await db.insertInto('removed_jurisdictions').values(row).execute()
}

export async function deleteRemovedJurisdiction(db: Executor, orgId: string, jurisdictionId: string) {
  await db
    .deleteFrom('removed_jurisdictions')
    .where('org_id', '=', orgId)
    .where('jurisdiction_id', '=', jurisdictionId)
    .execute()
}

/** Newest first by `seq` (jurisdiction ids are chosen by users, so they do not sort by time). */
export function listJurisdictions(db: Executor, orgId: string, query: PageQuery) {
  return pageOf(db.selectFrom('jurisdictions').where('org_id', '=', orgId), 'seq', query)
}

/** The requirement names any jurisdiction of the organization lists. */
export async function requirementNamesOf(db: Executor, orgId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('jurisdictions')
    .select('transfer_requirements')
    .where('org_id', '=', orgId)
    .execute()
  return new Set(rows.flatMap((r) => JSON.parse(r.transfer_requirements) as string[]))
}

/** What still refers to a jurisdiction: its credentials, attestations, tokens, holdings there, active trust. */
export async function jurisdictionUsage(db: Executor, orgId: string, jurisdictionId: string) {
  const credentials = await countOf(
    db.selectFrom('credentials').where('org_id', '=', orgId).where('jurisdiction', '=', jurisdictionId),
  )
  const tokens = await countOf(
    db.selectFrom('tokens').where('org_id', '=', orgId).where('jurisdiction', '=', jurisdictionId),
  )
  const attestations = await countOf(
    db.selectFrom('attestations').where('org_id', '=', orgId).where('jurisdiction', '=', jurisdictionId),
  )
  const holdings = await countOf(
    db
      .selectFrom('holdings')
      .innerJoin('tokens', 'tokens.token_id', 'holdings.token_id')
      .where('tokens.org_id', '=', orgId)
      .where('holdings.jurisdiction', '=', jurisdictionId),
  )
  const trust = await countOf(
    db
      .selectFrom('trust_relations')
      .where('org_id', '=', orgId)
      .where('status', '=', 'active')
      .where((eb) =>
        eb.or([eb('from_jurisdiction', '=', jurisdictionId), eb('to_jurisdiction', '=', jurisdictionId)]),
      ),
  )
  return { credentials, attestations, tokens, holdings, trust }
}

export async function insertJurisdiction(db: Executor, row: Insertable<JurisdictionsTable>): Promise<void> {
  await db.insertInto('jurisdictions').values(row).execute()
}

/** The mutable fields of a jurisdiction. */
export type JurisdictionChanges = Pick<
  JurisdictionsTable,
  'name' | 'regulatory_body' | 'frameworks' | 'credential_types' | 'transfer_requirements' | 'updated_at'
> & { external_only: string }

export async function updateJurisdiction(
  db: Executor,
  orgId: string,
  jurisdictionId: string,
  changes: JurisdictionChanges,
): Promise<void> {
  await db
    .updateTable('jurisdictions')
    .set(changes)
    .where('org_id', '=', orgId)
    .where('jurisdiction_id', '=', jurisdictionId)
    .execute()
}

export async function deleteJurisdiction(db: Executor, orgId: string, jurisdictionId: string): Promise<void> {
  await db
    .deleteFrom('jurisdictions')
    .where('org_id', '=', orgId)
    .where('jurisdiction_id', '=', jurisdictionId)
    .execute()
}
