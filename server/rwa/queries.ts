import type { SelectQueryBuilder, Transaction } from 'kysely'
import type {
  ListAttestationsQuery,
  ListCredentialsQuery,
  ListTokensQuery,
  ListTransfersQuery,
  ListTrustQuery,
} from '../../src/contract/rwa.js'
import type { Db } from '../db/database.js'
import type { Database } from '../db/schema.js'

/*
 * Every governance query. Each one filters by org_id first: an organization's rows are invisible to
 * every other. Lists page newest first by their time-sortable id (cursor = the last id of a page).
 */

export type Executor = Db | Transaction<Database>

/** One page of rows: up to `limit`, and the cursor of the next page when there is one. */
export interface Page<T> {
  rows: T[]
  total: number
  next_cursor: string | null
}

/**
 * Runs a filtered list: the count of every match, and one page of rows ordered by `idColumn`
 * descending, below `cursor`.
 */
async function pageOf<TB extends keyof Database, Row extends Record<string, unknown>>(
  base: SelectQueryBuilder<Database, TB, object>,
  idColumn: string,
  query: { limit: number; cursor?: string | undefined },
  project: (qb: SelectQueryBuilder<Database, TB, object>) => SelectQueryBuilder<Database, TB, Row>,
): Promise<Page<Row>> {
  // biome-ignore lint/suspicious/noExplicitAny: the id column is one of TB's columns, named by the caller.
  const id = idColumn as any
  const counted = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  let rows = project(base)
  if (query.cursor !== undefined) rows = rows.where(id, '<', query.cursor)
  const found = await rows
    .orderBy(id, 'desc')
    .limit(query.limit + 1)
    .execute()
  const more = found.length > query.limit
  const pageRows = more ? found.slice(0, query.limit) : found
  return {
    rows: pageRows,
    total: Number((counted as { n: number | bigint }).n),
    next_cursor: more ? String(pageRows.at(-1)![idColumn]) : null,
  }
}

// ── Jurisdictions ───────────────────────────────────────────────────────────

export function findJurisdiction(db: Executor, orgId: string, jurisdictionId: string) {
  return db
    .selectFrom('jurisdictions')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('jurisdiction_id', '=', jurisdictionId)
    .executeTakeFirst()
}

export function findJurisdictions(db: Executor, orgId: string, ids: string[]) {
  return db
    .selectFrom('jurisdictions')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('jurisdiction_id', 'in', ids)
    .execute()
}

export function listJurisdictions(db: Executor, orgId: string, query: { limit: number; cursor?: string }) {
  return pageOf(db.selectFrom('jurisdictions').where('org_id', '=', orgId), 'seq', query, (qb) =>
    qb.selectAll(),
  )
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
  const count = async (qb: SelectQueryBuilder<Database, keyof Database, object>) =>
    Number(
      ((await qb.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()) as { n: number })
        .n,
    )
  const credentials = await count(
    db.selectFrom('credentials').where('org_id', '=', orgId).where('jurisdiction', '=', jurisdictionId),
  )
  const tokens = await count(
    db.selectFrom('tokens').where('org_id', '=', orgId).where('jurisdiction', '=', jurisdictionId),
  )
  const attestations = await count(
    db.selectFrom('attestations').where('org_id', '=', orgId).where('jurisdiction', '=', jurisdictionId),
  )
  const holdings = await count(
    db
      .selectFrom('holdings')
      .innerJoin('tokens', 'tokens.token_id', 'holdings.token_id')
      .where('tokens.org_id', '=', orgId)
      .where('holdings.jurisdiction', '=', jurisdictionId),
  )
  const trust = await count(
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

// ── Trust ───────────────────────────────────────────────────────────────────

/** The active relation between two jurisdictions, in either direction. */
export function findActiveTrustBetween(db: Executor, orgId: string, a: string, b: string) {
  return db
    .selectFrom('trust_relations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('status', '=', 'active')
    .where((eb) =>
      eb.or([
        eb.and([eb('from_jurisdiction', '=', a), eb('to_jurisdiction', '=', b)]),
        eb.and([eb('from_jurisdiction', '=', b), eb('to_jurisdiction', '=', a)]),
      ]),
    )
    .executeTakeFirst()
}

/** Active relations touching any of `jurisdictions` (enough to decide trust and recognition). */
export function activeTrustTouching(db: Executor, orgId: string, jurisdictions: string[]) {
  return db
    .selectFrom('trust_relations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('status', '=', 'active')
    .where((eb) =>
      eb.or([eb('from_jurisdiction', 'in', jurisdictions), eb('to_jurisdiction', 'in', jurisdictions)]),
    )
    .execute()
}

export function listTrust(db: Executor, orgId: string, query: ListTrustQuery) {
  let base = db.selectFrom('trust_relations').where('org_id', '=', orgId)
  if (query.status) base = base.where('status', '=', query.status)
  const j = query.jurisdiction
  if (j) base = base.where((eb) => eb.or([eb('from_jurisdiction', '=', j), eb('to_jurisdiction', '=', j)]))
  return pageOf(base, 'trust_id', query, (qb) => qb.selectAll())
}

// ── Credentials ─────────────────────────────────────────────────────────────

export function findCredential(db: Executor, orgId: string, credentialId: string) {
  return db
    .selectFrom('credentials')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('credential_id', '=', credentialId)
    .executeTakeFirst()
}

export function listCredentials(db: Executor, orgId: string, query: ListCredentialsQuery) {
  let base = db.selectFrom('credentials').where('org_id', '=', orgId)
  if (query.jurisdiction) base = base.where('jurisdiction', '=', query.jurisdiction)
  if (query.owner_did) base = base.where('owner_did', '=', query.owner_did)
  if (query.status) base = base.where('status', '=', query.status)
  return pageOf(base, 'credential_id', query, (qb) => qb.selectAll())
}

export async function isKnownDid(db: Executor, orgId: string, did: string): Promise<boolean> {
  const row = await db
    .selectFrom('rwa_dids')
    .select('did')
    .where('org_id', '=', orgId)
    .where('did', '=', did)
    .executeTakeFirst()
  return row !== undefined
}

export async function countDids(db: Executor, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('rwa_dids')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Records a DID the organization introduced and counts it in the day's usage (`dids_created`). */
export async function recordNewDid(db: Executor, orgId: string, did: string, at: string, date: string) {
  await db.insertInto('rwa_dids').values({ org_id: orgId, did, created_at: at }).execute()
  await db
    .insertInto('usage_daily')
    .values({ org_id: orgId, date, dids_created: 1 })
    .onConflict((oc) =>
      oc.columns(['org_id', 'date']).doUpdateSet((eb) => ({
        dids_created: eb('usage_daily.dids_created', '+', eb.ref('excluded.dids_created')),
      })),
    )
    .execute()
}

// ── Attestations ────────────────────────────────────────────────────────────

export function findAttestation(db: Executor, orgId: string, attestationId: string) {
  return db
    .selectFrom('attestations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('attestation_id', '=', attestationId)
    .executeTakeFirst()
}

export function listAttestations(db: Executor, orgId: string, query: ListAttestationsQuery) {
  let base = db.selectFrom('attestations').where('org_id', '=', orgId)
  if (query.jurisdiction) base = base.where('jurisdiction', '=', query.jurisdiction)
  if (query.credential_id) base = base.where('credential_id', '=', query.credential_id)
  if (query.subject_did) base = base.where('subject_did', '=', query.subject_did)
  if (query.type) base = base.where('type', '=', query.type)
  return pageOf(base, 'attestation_id', query, (qb) => qb.selectAll())
}

/**
 * The attestations a transfer evaluation may rely on: those of the recipient for `personal`
 * requirements and the title verifications of the token's credential.
 */
export function attestationsForTransfer(
  db: Executor,
  orgId: string,
  recipientDid: string,
  personal: string[],
  credentialId: string,
  titleType: string,
) {
  return db
    .selectFrom('attestations')
    .select([
      'attestation_id',
      'jurisdiction',
      'subject_did',
      'type',
      'credential_id',
      'issued_at',
      'valid_until',
    ])
    .where('org_id', '=', orgId)
    .where((eb) => {
      const title = eb.and([eb('credential_id', '=', credentialId), eb('type', '=', titleType)])
      if (personal.length === 0) return title
      return eb.or([eb.and([eb('subject_did', '=', recipientDid), eb('type', 'in', personal)]), title])
    })
    .execute()
}

// ── Tokens and holdings ─────────────────────────────────────────────────────

export function findToken(db: Executor, orgId: string, tokenId: string) {
  return db
    .selectFrom('tokens')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('token_id', '=', tokenId)
    .executeTakeFirst()
}

export function findTokenByCredential(db: Executor, credentialId: string) {
  return db.selectFrom('tokens').selectAll().where('credential_id', '=', credentialId).executeTakeFirst()
}

export function listTokens(db: Executor, orgId: string, query: ListTokensQuery) {
  let base = db.selectFrom('tokens').where('org_id', '=', orgId)
  if (query.jurisdiction) base = base.where('jurisdiction', '=', query.jurisdiction)
  if (query.owner_did) base = base.where('owner_did', '=', query.owner_did)
  if (query.status) base = base.where('status', '=', query.status)
  return pageOf(base, 'token_id', query, (qb) => qb.selectAll())
}

/** Holdings of the given tokens, largest first within each token. */
export function holdingsOf(db: Executor, tokenIds: string[]) {
  if (tokenIds.length === 0) return Promise.resolve([])
  return db
    .selectFrom('holdings')
    .selectAll()
    .where('token_id', 'in', tokenIds)
    .orderBy('token_id')
    .orderBy('amount', 'desc')
    .orderBy('holder_did')
    .orderBy('jurisdiction')
    .execute()
}

export async function holdingOf(db: Executor, tokenId: string, holderDid: string, jurisdiction: string) {
  const row = await db
    .selectFrom('holdings')
    .select('amount')
    .where('token_id', '=', tokenId)
    .where('holder_did', '=', holderDid)
    .where('jurisdiction', '=', jurisdiction)
    .executeTakeFirst()
  return row?.amount ?? 0
}

/** Adds `delta` (negative to take) to a holding; a holding that reaches zero is deleted. */
export async function adjustHolding(
  db: Executor,
  tokenId: string,
  holderDid: string,
  jurisdiction: string,
  delta: number,
) {
  await db
    .insertInto('holdings')
    .values({ token_id: tokenId, holder_did: holderDid, jurisdiction, amount: delta })
    .onConflict((oc) =>
      oc.columns(['token_id', 'holder_did', 'jurisdiction']).doUpdateSet((eb) => ({
        amount: eb('holdings.amount', '+', eb.ref('excluded.amount')),
      })),
    )
    .execute()
  await db
    .deleteFrom('holdings')
    .where('token_id', '=', tokenId)
    .where('holder_did', '=', holderDid)
    .where('jurisdiction', '=', jurisdiction)
    .where('amount', '<=', 0)
    .execute()
}

export function tokenEvents(db: Executor, tokenId: string) {
  return db
    .selectFrom('token_events')
    .selectAll()
    .where('token_id', '=', tokenId)
    .orderBy('event_id', 'asc')
    .execute()
}

// ── Transfers and proofs ────────────────────────────────────────────────────

export function findTransfer(db: Executor, orgId: string, transferId: string) {
  return db
    .selectFrom('transfers')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('transfer_id', '=', transferId)
    .executeTakeFirst()
}

export function listTransfers(db: Executor, orgId: string, query: ListTransfersQuery) {
  let base = db.selectFrom('transfers').where('org_id', '=', orgId)
  if (query.token_id) base = base.where('token_id', '=', query.token_id)
  if (query.status) base = base.where('status', '=', query.status)
  const j = query.jurisdiction
  if (j) base = base.where((eb) => eb.or([eb('from_jurisdiction', '=', j), eb('to_jurisdiction', '=', j)]))
  return pageOf(base, 'transfer_id', query, (qb) => qb.selectAll())
}

export function findProof(db: Executor, orgId: string, proofId: string) {
  return db
    .selectFrom('proofs')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('proof_id', '=', proofId)
    .executeTakeFirst()
}
