import type { Insertable } from 'kysely'
import type { ListTokensQuery } from '../../../src/contract/rwa.js'
import { type Executor, ownedRecord, pageOf, whereEqual } from '../../db/queries.js'
import type { HoldingsTable, TokenEventsTable, TokensTable } from '../../db/schema.js'

/** Every query of tokens, their holdings and their history. */

export const findToken = ownedRecord('tokens', 'token_id')

/** The token backed by a credential (credential ids are unique across organizations). */
export function findTokenByCredential(db: Executor, credentialId: string) {
  return db.selectFrom('tokens').selectAll().where('credential_id', '=', credentialId).executeTakeFirst()
}

export function listTokens(db: Executor, orgId: string, query: ListTokensQuery) {
  const base = whereEqual(db.selectFrom('tokens').where('org_id', '=', orgId), {
    jurisdiction: query.jurisdiction,
    owner_did: query.owner_did,
    status: query.status,
  })
  return pageOf(base, 'token_id', query)
}

export async function insertToken(db: Executor, row: Insertable<TokensTable>): Promise<void> {
  await db.insertInto('tokens').values(row).execute()
}

export async function setTokenStatus(db: Executor, tokenId: string, status: string): Promise<void> {
  await db.updateTable('tokens').set({ status }).where('token_id', '=', tokenId).execute()
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

/** How much of a token `holderDid` holds in `jurisdiction` (0 when nothing). */
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

export async function insertHolding(db: Executor, row: Insertable<HoldingsTable>): Promise<void> {
  await db.insertInto('holdings').values(row).execute()
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

/** The governance history of a token, oldest first. */
export function tokenEvents(db: Executor, tokenId: string) {
  return db
    .selectFrom('token_events')
    .selectAll()
    .where('token_id', '=', tokenId)
    .orderBy('event_id', 'asc')
    .execute()
}

export async function insertTokenEvent(db: Executor, row: Insertable<TokenEventsTable>): Promise<void> {
  await db.insertInto('token_events').values(row).execute()
}
