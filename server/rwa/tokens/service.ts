import type {
  ListTokensQuery,
  ListTokensResponse,
  TokenDetail,
  TokenizeRequest,
} from '../../../src/contract/rwa.js'
import type { Principal } from '../../auth/principal.js'
import { isoTimestamp } from '../../clock.js'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/queries.js'
import { ApiError } from '../../errors.js'
import { credentialOr404 } from '../credentials/service.js'
import { ownedOr404 } from '../owned.js'
import { tokenDetailFromRow, tokenFromRow } from './from-row.js'
import { recordTokenEvent } from './history.js'
import {
  findToken,
  findTokenByCredential,
  holdingsOf,
  insertHolding,
  insertToken,
  listTokens as listTokenRows,
  tokenEvents,
} from './queries.js'

/** The stored token, or 404. */
export const tokenOr404 = (db: Executor, orgId: string, id: string) =>
  ownedOr404(findToken(db, orgId, id), 'token', id)

/** Tokenizes an active credential, once: the whole supply starts with the owner in its jurisdiction. */
export async function tokenize(
  ctx: AppContext,
  principal: Principal,
  input: TokenizeRequest,
): Promise<TokenDetail> {
  const orgId = principal.orgId
  const nowMs = ctx.clock.now()
  const now = isoTimestamp(nowMs)
  const tokenId = ctx.ids.next('tok')
  return ctx.db.transaction().execute(async (trx) => {
    const credential = await credentialOr404(trx, orgId, input.credential_id)
    if (credential.status === 'revoked') {
      throw new ApiError(
        'conflict',
        `Credential ${credential.credential_id} is revoked and cannot be tokenized`,
      )
    }
    if (credential.valid_until !== null && Date.parse(credential.valid_until) <= nowMs) {
      throw new ApiError(
        'conflict',
        `Credential ${credential.credential_id} expired at ${credential.valid_until} and cannot be tokenized`,
      )
    }
    const existing = await findTokenByCredential(trx, credential.credential_id)
    if (existing) {
      throw new ApiError(
        'conflict',
        `Credential ${credential.credential_id} is already tokenized as ${existing.token_id}`,
      )
    }
    const row = {
      token_id: tokenId,
      org_id: orgId,
      credential_id: credential.credential_id,
      jurisdiction: credential.jurisdiction,
      owner_did: credential.owner_did,
      symbol: input.symbol ?? null,
      total_supply: input.total_supply,
      status: 'active',
      created_at: now,
    }
    const holding = {
      token_id: tokenId,
      holder_did: credential.owner_did,
      jurisdiction: credential.jurisdiction,
      amount: input.total_supply,
    }
    await insertToken(trx, row)
    await insertHolding(trx, holding)
    const event = await recordTokenEvent(ctx, trx, orgId, tokenId, 'tokenized', now, {
      credential_id: credential.credential_id,
      total_supply: input.total_supply,
      holder_did: credential.owner_did,
      jurisdiction: credential.jurisdiction,
    })
    return tokenDetailFromRow(row, [holding], [event])
  })
}

export async function getToken(ctx: AppContext, principal: Principal, id: string): Promise<TokenDetail> {
  const row = await tokenOr404(ctx.db, principal.orgId, id)
  const [holdings, events] = await Promise.all([holdingsOf(ctx.db, [id]), tokenEvents(ctx.db, id)])
  return tokenDetailFromRow(row, holdings, events)
}

export async function listTokens(
  ctx: AppContext,
  principal: Principal,
  query: ListTokensQuery,
): Promise<ListTokensResponse> {
  const page = await listTokenRows(ctx.db, principal.orgId, query)
  const holdings = await holdingsOf(
    ctx.db,
    page.rows.map((r) => r.token_id),
  )
  return {
    tokens: page.rows.map((row) => tokenFromRow(row, holdings)),
    total: page.total,
    next_cursor: page.next_cursor,
  }
}
