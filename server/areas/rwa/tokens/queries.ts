import type { Insertable } from 'kysely'
import type { ListTokensQuery } from '../../../../src/contract/rwa.js'
import {
  countOf,
  type Executor,
  ownedRecord,
  pageOf,
  type RowLock,
  whereEqual,
  withLock,
} from '../../../platform/db/queries.js'
import type { TokensTable } from '../../../platform/db/schema.js'
import { ownedOr404 } from '../owned.js'

/** Every query of tokens (their history: ../history/queries.ts; holdings and freezes: ../holdings/queries.ts). */

export const findToken = ownedRecord('tokens', 'token_id')

/** The token of that id in the organization, or a 404 (another organization's id looks the same). */
export const tokenOr404 = (db: Executor, orgId: string, id: string, lock?: RowLock) =>
  ownedOr404(findToken(db, orgId, id, lock), 'token', id)

/** The token backed by a credential (credential ids are unique across organizations). */
export function findTokenByCredential(db: Executor, credentialId: string, lock?: RowLock) {
  return withLock(
    db,
    db.selectFrom('tokens').selectAll().where('credential_id', '=', credentialId),
    lock,
  ).executeTakeFirst()
}

export function listTokens(db: Executor, orgId: string, query: ListTokensQuery) {
  const base = whereEqual(db.selectFrom('tokens').where('org_id', '=', orgId), {
    jurisdiction: query.jurisdiction,
    owner_did: query.owner_did,
    status: query.status,
  })
  return pageOf(base, 'token_id', query)
}

/**
 * The tokens an organization has made: its skills registered (README.md, "Trial, tiers and limits"; tokens
 * are never deleted).
 */
export function countTokens(db: Executor, orgId: string): Promise<number> {
  return countOf(db.selectFrom('tokens').where('org_id', '=', orgId))
}

export async function insertToken(db: Executor, row: Insertable<TokensTable>): Promise<void> {
  await db.insertInto('tokens').values(row).execute()
}

export async function setTokenStatus(db: Executor, tokenId: string, status: string): Promise<void> {
  await db.updateTable('tokens').set({ status }).where('token_id', '=', tokenId).execute()
}

export async function setTokenRules(db: Executor, tokenId: string, rules: string): Promise<void> {
  await db.updateTable('tokens').set({ rules }).where('token_id', '=', tokenId).execute()
}

/** Adds `delta` units (negative for a burn) to a token's supply (tokens.supply, migration 0027). */
export async function addToSupply(db: Executor, tokenId: string, delta: number): Promise<void> {
  await db
    .updateTable('tokens')
    .set((eb) => ({ supply: eb('supply', '+', delta) }))
    .where('token_id', '=', tokenId)
    .execute()
}
