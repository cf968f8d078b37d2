import type { Insertable } from 'kysely'
import type { ListHoldingsQuery } from '../../../../src/contract/rwa.js'
import { compiledOnce } from '../../../platform/db/compiled-query.js'
import { countOf, type Executor, type Page, whereEqual } from '../../../platform/db/queries.js'
import type { HoldingsTable } from '../../../platform/db/schema.js'

/** Every query of token holdings and of whole-holder freezes. */

/**
 * The largest `perToken` holdings of each of the tokens (a page of tokens, never more than a page's
 * limit of ids), largest first, each with whether its holder is frozen for the token: one statement
 * whatever the number of holders, so no list of holders is ever sent as parameters.
 */
export async function largestHoldingsOf(db: Executor, tokenIds: string[], perToken: number) {
  if (tokenIds.length === 0) return []
  const ranked = db
    .selectFrom('holdings')
    .select(['token_id', 'holder_did', 'jurisdiction', 'amount', 'frozen_amount'])
    .select((eb) =>
      eb.fn
        .agg<number>('row_number')
        .over((ob) =>
          ob.partitionBy('token_id').orderBy('amount', 'desc').orderBy('holder_did').orderBy('jurisdiction'),
        )
        .as('position'),
    )
    .where('token_id', 'in', tokenIds)
  const rows = await db
    .selectFrom(ranked.as('r'))
    .selectAll('r')
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('holder_freezes as f')
            .select('f.holder_did')
            .whereRef('f.token_id', '=', 'r.token_id')
            .whereRef('f.holder_did', '=', 'r.holder_did'),
        )
        .as('holder_frozen'),
    )
    .where('r.position', '<=', perToken)
    .orderBy('r.token_id')
    .orderBy('r.position')
    .execute()
  return rows.map((r) => ({ ...r, holder_frozen: Boolean(r.holder_frozen) }))
}

/** How many holdings each of the tokens has (a token with none is absent). */
export async function holdingCountsOf(db: Executor, tokenIds: string[]): Promise<Map<string, number>> {
  if (tokenIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('holdings')
    .select((eb) => ['token_id', eb.fn.countAll<number>().as('n')])
    .where('token_id', 'in', tokenIds)
    .groupBy('token_id')
    .execute()
  return new Map(rows.map((r) => [r.token_id, Number(r.n)]))
}

/** The holdings of one holder of a token, by jurisdiction. */
export function holdingsOfHolder(db: Executor, tokenId: string, holderDid: string) {
  return db
    .selectFrom('holdings')
    .selectAll()
    .where('token_id', '=', tokenId)
    .where('holder_did', '=', holderDid)
    .orderBy('jurisdiction')
    .execute()
}

/** A holding's units and frozen units ({0, 0} when nothing is held there). */
export async function holdingOf(db: Executor, tokenId: string, holderDid: string, jurisdiction: string) {
  const [row] = await holdingQuery(db, tokenId, holderDid, jurisdiction)
  return { amount: Number(row?.amount ?? 0), frozen_amount: Number(row?.frozen_amount ?? 0) }
}

/*
 * The reads and writes of every transfer are compiled once (compiledOnce): kysely would otherwise build
 * and compile each of them on every request.
 */
const holdingQuery = compiledOnce((db: Executor, tokenId: string, holderDid: string, jurisdiction: string) =>
  db
    .selectFrom('holdings')
    .select(['amount', 'frozen_amount'])
    .where('token_id', '=', tokenId)
    .where('holder_did', '=', holderDid)
    .where('jurisdiction', '=', jurisdiction),
)

/** A holder's units of a token across every jurisdiction. */
export async function balanceOf(db: Executor, tokenId: string, holderDid: string): Promise<number> {
  const [row] = await balanceQuery(db, tokenId, holderDid)
  return Number(row?.total ?? 0)
}

const balanceQuery = compiledOnce((db: Executor, tokenId: string, holderDid: string) =>
  db
    .selectFrom('holdings')
    .select((eb) => eb.fn.sum<number>('amount').as('total'))
    .where('token_id', '=', tokenId)
    .where('holder_did', '=', holderDid),
)

/** How many holders have a (non-zero) holding of the token in `jurisdiction`. */
export async function holderCount(db: Executor, tokenId: string, jurisdiction: string): Promise<number> {
  const [row] = await holderCountQuery(db, tokenId, jurisdiction)
  return Number(row?.n ?? 0)
}

const holderCountQuery = compiledOnce((db: Executor, tokenId: string, jurisdiction: string) =>
  db
    .selectFrom('holdings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('token_id', '=', tokenId)
    .where('jurisdiction', '=', jurisdiction),
)

export async function insertHolding(db: Executor, row: Insertable<HoldingsTable>): Promise<void> {
  await db.insertInto('holdings').values(row).execute()
}

/**
 * Adds `delta` units (negative to take) and `frozenDelta` frozen units to a holding, creating it if
 * needed; a holding that reaches zero units is deleted.
 */
export async function adjustHolding(
  db: Executor,
  tokenId: string,
  holderDid: string,
  jurisdiction: string,
  delta: number,
  frozenDelta = 0,
) {
  await addToHolding(db, tokenId, holderDid, jurisdiction, delta, frozenDelta)
  await dropEmptyHolding(db, tokenId, holderDid, jurisdiction)
}

const addToHolding = compiledOnce(
  (
    db: Executor,
    tokenId: string,
    holderDid: string,
    jurisdiction: string,
    delta: number,
    frozenDelta: number,
  ) =>
    db
      .insertInto('holdings')
      .values({
        token_id: tokenId,
        holder_did: holderDid,
        jurisdiction,
        amount: delta,
        frozen_amount: frozenDelta,
      })
      .onConflict((oc) =>
        oc.columns(['token_id', 'holder_did', 'jurisdiction']).doUpdateSet((eb) => ({
          amount: eb('holdings.amount', '+', eb.ref('excluded.amount')),
          frozen_amount: eb('holdings.frozen_amount', '+', eb.ref('excluded.frozen_amount')),
        })),
      ),
)

const dropEmptyHolding = compiledOnce(
  (db: Executor, tokenId: string, holderDid: string, jurisdiction: string) =>
    db
      .deleteFrom('holdings')
      .where('token_id', '=', tokenId)
      .where('holder_did', '=', holderDid)
      .where('jurisdiction', '=', jurisdiction)
      .where('amount', '<=', 0),
)

export async function setFrozenAmount(
  db: Executor,
  tokenId: string,
  holderDid: string,
  jurisdiction: string,
  frozenAmount: number,
): Promise<void> {
  await db
    .updateTable('holdings')
    .set({ frozen_amount: frozenAmount })
    .where('token_id', '=', tokenId)
    .where('holder_did', '=', holderDid)
    .where('jurisdiction', '=', jurisdiction)
    .execute()
}

/** Removes a holder's holding in a jurisdiction (a recovery moves it whole). */
export async function deleteHolding(db: Executor, tokenId: string, holderDid: string, jurisdiction: string) {
  await db
    .deleteFrom('holdings')
    .where('token_id', '=', tokenId)
    .where('holder_did', '=', holderDid)
    .where('jurisdiction', '=', jurisdiction)
    .execute()
}

/** The cursor of a holdings page: the last (holder, jurisdiction) shown, base64url JSON. */
export const holdingsCursor = (holderDid: string, jurisdiction: string): string =>
  Buffer.from(JSON.stringify([holderDid, jurisdiction])).toString('base64url')

/** One page of a token's holdings, by holder then jurisdiction, after `after` (a decoded cursor). */
export async function listHoldings(
  db: Executor,
  tokenId: string,
  query: ListHoldingsQuery,
  after: [string, string] | undefined,
): Promise<Page<{ holder_did: string; jurisdiction: string; amount: number; frozen_amount: number }>> {
  const base = whereEqual(db.selectFrom('holdings').where('token_id', '=', tokenId), {
    holder_did: query.holder_did,
    jurisdiction: query.jurisdiction,
  })
  const total = await countOf(base)
  let rows = base.select(['holder_did', 'jurisdiction', 'amount', 'frozen_amount'])
  if (after) {
    const [holder, jurisdiction] = after
    rows = rows.where((eb) =>
      eb.or([
        eb('holder_did', '>', holder),
        eb.and([eb('holder_did', '=', holder), eb('jurisdiction', '>', jurisdiction)]),
      ]),
    )
  }
  const found = await rows
    .orderBy('holder_did')
    .orderBy('jurisdiction')
    .limit(query.limit + 1)
    .execute()
  const more = found.length > query.limit
  const page = more ? found.slice(0, query.limit) : found
  const last = page.at(-1)
  return {
    rows: page.map((r) => ({ ...r, amount: Number(r.amount), frozen_amount: Number(r.frozen_amount) })),
    total,
    next_cursor: more && last ? holdingsCursor(last.holder_did, last.jurisdiction) : null,
  }
}

// ── Whole-holder freezes ────────────────────────────────────────────────────

/** Which of `dids` are frozen for the token. */
export async function frozenAmong(db: Executor, tokenId: string, dids: string[]): Promise<Set<string>> {
  if (dids.length === 0) return new Set()
  const rows = await frozenAmongQuery(db, tokenId, [...new Set(dids)])
  return new Set(rows.map((r) => r.holder_did))
}

const frozenAmongQuery = compiledOnce((db: Executor, tokenId: string, dids: string[]) =>
  db
    .selectFrom('holder_freezes')
    .select('holder_did')
    .where('token_id', '=', tokenId)
    .where('holder_did', 'in', dids),
)

/** The cursor of a page of frozen DIDs: the last DID shown, base64url. */
export const frozenHoldersCursor = (holderDid: string): string => Buffer.from(holderDid).toString('base64url')

/**
 * One page of the DIDs frozen for the token, in order, after the DID `after`: never all of them at once
 * (a token may have any number), with how many there are.
 */
export async function frozenHoldersPage(
  db: Executor,
  tokenId: string,
  limit: number,
  after?: string,
): Promise<Page<string>> {
  const base = db.selectFrom('holder_freezes').where('token_id', '=', tokenId)
  const total = await countOf(base)
  let rows = base.select('holder_did')
  if (after !== undefined) rows = rows.where('holder_did', '>', after)
  const found = await rows
    .orderBy('holder_did')
    .limit(limit + 1)
    .execute()
  const more = found.length > limit
  const page = (more ? found.slice(0, limit) : found).map((r) => r.holder_did)
  const last = page.at(-1)
  return { rows: page, total, next_cursor: more && last ? frozenHoldersCursor(last) : null }
}

export async function insertHolderFreeze(
  db: Executor,
  row: { token_id: string; holder_did: string; org_id: string; frozen_at: string },
): Promise<void> {
  await db.insertInto('holder_freezes').values(row).execute()
}

export async function deleteHolderFreeze(db: Executor, tokenId: string, holderDid: string): Promise<number> {
  const result = await db
    .deleteFrom('holder_freezes')
    .where('token_id', '=', tokenId)
    .where('holder_did', '=', holderDid)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
