import {
  type Holding,
  type ListFrozenHoldersQuery,
  type ListFrozenHoldersResponse,
  type ListHoldingsQuery,
  type ListHoldingsResponse,
  type ListTokensQuery,
  type ListTokensResponse,
  type SetTokenRulesRequest,
  TOKEN_DETAIL_HISTORY,
  TOKEN_FROZEN_HOLDERS_SHOWN,
  TOKEN_HOLDINGS_SHOWN,
  type TokenDetail,
  type TokenHistoryQuery,
  type TokenHistoryResponse,
  type TokenizeRequest,
  type TokenRules,
} from '../../../../src/contract/rwa.js'
import { investorRulesOf } from '../../../../src/contract/investor-rules.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import { isoTimestamp, utcDate } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import type { Executor } from '../../../platform/db/queries.js'
import { ApiError, constraintViolationOf } from '../../../platform/errors.js'
import { addUsage } from '../../../platform/metering/queries.js'
import { lockOrganization } from '../../../platform/organizations/queries.js'
import { credentialOr404 } from '../credentials/queries.js'
import {
  frozenAmong,
  frozenHoldersPage,
  holdingCountsOf,
  largestHoldingsOf,
  insertHolding,
  listHoldings as listHoldingRows,
} from '../holdings/queries.js'
import { recordTokenEvent } from '../history/history.js'
import { rulesReplaced } from '../rule-counters/counters.js'
import { countTokenEvents, latestTokenEvents, tokenEventsPage } from '../history/queries.js'
import { eventFromRow, holdingFromRow, rulesFromRow, tokenDetailFromRow, tokenFromRow } from './from-row.js'
import {
  countTokens,
  findTokenByCredential,
  insertToken,
  listTokens as listTokenRows,
  setTokenRules,
  tokenOr404,
} from './queries.js'

/**
 * Tokenizes an active credential, once: the whole supply starts with the owner in its jurisdiction. Each
 * token registers one skill (README.md, "Trial, tiers and limits"): past the tier's `max_skills` it is 403
 * `quota_exceeded`, and it counts in the day's `skills_registered`, in the same transaction.
 */
export async function tokenize(
  ctx: AppContext,
  principal: Principal,
  input: TokenizeRequest,
): Promise<TokenDetail> {
  const orgId = principal.orgId
  const nowMs = ctx.clock.now()
  const now = isoTimestamp(nowMs)
  const tokenId = ctx.ids.next('tok')
  const alreadyTokenized = (tokenIdOfIt: string) =>
    new ApiError(
      'credential_already_tokenized',
      `Credential ${input.credential_id} is already tokenized as ${tokenIdOfIt}`,
      { context: { credential_id: input.credential_id, token_id: tokenIdOfIt } },
    )
  return ctx.db
    .transaction()
    .execute(async (trx) => {
      // Locked: a concurrent revocation waits for the token to exist (and freezes it), or goes first.
      const credential = await credentialOr404(trx, orgId, input.credential_id, 'update')
      if (credential.status === 'revoked') {
        throw new ApiError(
          'credential_revoked',
          `Credential ${credential.credential_id} is revoked and cannot be tokenized`,
          { context: { credential_id: credential.credential_id } },
        )
      }
      if (credential.valid_until !== null && Date.parse(credential.valid_until) <= nowMs) {
        throw new ApiError(
          'credential_expired',
          `Credential ${credential.credential_id} expired at ${credential.valid_until} and cannot be tokenized`,
          { context: { credential_id: credential.credential_id, valid_until: credential.valid_until } },
        )
      }
      const existing = await findTokenByCredential(trx, credential.credential_id)
      if (existing) throw alreadyTokenized(existing.token_id)
      await registerSkill(trx, principal, nowMs)
      const row = {
        token_id: tokenId,
        org_id: orgId,
        credential_id: credential.credential_id,
        jurisdiction: credential.jurisdiction,
        owner_did: credential.owner_did,
        symbol: input.symbol ?? null,
        total_supply: input.total_supply,
        supply: input.total_supply,
        status: 'active',
        created_at: now,
        rules: null,
      }
      const holding = {
        token_id: tokenId,
        holder_did: credential.owner_did,
        jurisdiction: credential.jurisdiction,
        amount: input.total_supply,
        frozen_amount: 0,
      }
      await insertToken(trx, row)
      await insertHolding(trx, holding)
      const event = await recordTokenEvent(ctx, trx, orgId, tokenId, 'tokenized', now, {
        credential_id: credential.credential_id,
        total_supply: input.total_supply,
        holder_did: credential.owner_did,
        jurisdiction: credential.jurisdiction,
        actor_key_id: principal.keyId,
      })
      ctx.record({
        orgId,
        action: 'token.created',
        target: { type: 'token', id: tokenId },
        after: {
          credential_id: credential.credential_id,
          total_supply: input.total_supply,
          symbol: row.symbol,
        },
      })
      // A new token: its one holding (the owner's whole supply), its one event, no frozen holder.
      return tokenDetailFromRow(row, {
        holdings: { rows: [holdingFromRow(holding, false)], total: 1 },
        history: { rows: [event], total: 1 },
        frozenHolders: { rows: [], total: 0 },
      })
    })
    .catch(async (error) => {
      // Unreachable while the credential's lock holds; kept so a unique violation can never be a 500.
      if (constraintViolationOf(error) !== 'unique') throw error
      const existing = await findTokenByCredential(ctx.db, input.credential_id)
      throw alreadyTokenized(existing?.token_id ?? 'another token')
    })
}

/**
 * Counts a new token as a skill of the organization, or refuses it past `max_skills`. Counted under the
 * organization's lock (taken after the credential's, the order every write keeps), so concurrent
 * tokenizations on any instance cannot together pass the limit.
 */
async function registerSkill(db: Executor, principal: Principal, nowMs: number): Promise<void> {
  const orgId = principal.orgId
  const max = principal.entitlement.limits.max_skills
  if (max !== 'unlimited') {
    await lockOrganization(db, orgId)
    if ((await countTokens(db, orgId)) >= max) {
      throw new ApiError(
        'max_skills',
        `Organization ${orgId} has reached its limit of ${max} skills (max_skills): every tokenized asset is one. Move to a higher tier to tokenize more`,
        { context: { org_id: orgId, max_skills: max } },
      )
    }
  }
  await addUsage(db, orgId, utcDate(nowMs), 'skills_registered', 1)
}

/** The token detail as stored now (inside or outside a transaction). */
export async function tokenDetail(db: Executor, orgId: string, id: string): Promise<TokenDetail> {
  const row = await tokenOr404(db, orgId, id)
  const holdings = await largestHoldingsOf(db, [id], TOKEN_HOLDINGS_SHOWN)
  return tokenDetailFromRow(row, {
    holdings: {
      rows: holdings.map((h) => holdingFromRow(h, h.holder_frozen)),
      total: (await holdingCountsOf(db, [id])).get(id) ?? 0,
    },
    history: {
      rows: await latestTokenEvents(db, id, TOKEN_DETAIL_HISTORY),
      total: await countTokenEvents(db, id),
    },
    frozenHolders: await frozenHoldersPage(db, id, TOKEN_FROZEN_HOLDERS_SHOWN),
  })
}

export function getToken(ctx: AppContext, principal: Principal, id: string): Promise<TokenDetail> {
  return tokenDetail(ctx.db, principal.orgId, id)
}

export async function listTokens(
  ctx: AppContext,
  principal: Principal,
  query: ListTokensQuery,
): Promise<ListTokensResponse> {
  const page = await listTokenRows(ctx.db, principal.orgId, query)
  const ids = page.rows.map((r) => r.token_id)
  const holdings = new Map<string, Holding[]>()
  for (const h of await largestHoldingsOf(ctx.db, ids, TOKEN_HOLDINGS_SHOWN)) {
    const list = holdings.get(h.token_id) ?? []
    list.push(holdingFromRow(h, h.holder_frozen))
    holdings.set(h.token_id, list)
  }
  const counts = await holdingCountsOf(ctx.db, ids)
  return {
    tokens: page.rows.map((row) =>
      tokenFromRow(row, holdings.get(row.token_id) ?? [], counts.get(row.token_id) ?? 0),
    ),
    total: page.total,
    next_cursor: page.next_cursor,
  }
}

/** Every event of a token's history, oldest first, a page at a time. */
export async function tokenHistory(
  ctx: AppContext,
  principal: Principal,
  id: string,
  query: TokenHistoryQuery,
): Promise<TokenHistoryResponse> {
  await tokenOr404(ctx.db, principal.orgId, id)
  const page = await tokenEventsPage(ctx.db, id, query)
  return { governance_history: page.rows.map(eventFromRow), total: page.total, next_cursor: page.next_cursor }
}

/**
 * A character no DID or jurisdiction id has, refused in a decoded cursor: the API refuses them in
 * every value it reads (docs/verification.md, "Text is data, never control"), and a NUL would reach
 * PostgreSQL, which cannot hold it in text (a 500).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/

/** Reads a holdings cursor: base64url of `[holder_did, jurisdiction]`; anything else is a 400. */
function decodeHoldingsCursor(cursor: string | undefined): [string, string] | undefined {
  if (cursor === undefined) return undefined
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      value.every((v) => typeof v === 'string' && !CONTROL_CHARACTER.test(v))
    ) {
      return value as [string, string]
    }
  } catch {}
  throw new ApiError('invalid_cursor', 'Invalid query: cursor: not a cursor this list returned', {
    errors: [{ path: 'cursor', message: 'not a cursor this list returned' }],
  })
}

/** The DIDs frozen for a token as a whole, a page at a time (the detail shows the first of them). */
export async function listFrozenHolders(
  ctx: AppContext,
  principal: Principal,
  id: string,
  query: ListFrozenHoldersQuery,
): Promise<ListFrozenHoldersResponse> {
  let after: string | undefined
  if (query.cursor !== undefined) {
    after = Buffer.from(query.cursor, 'base64url').toString('utf8')
    // Not a cursor this list gave: it does not decode back to itself (not text), or it holds a
    // control character no DID has.
    if (
      Buffer.from(after).toString('base64url') !== query.cursor ||
      after === '' ||
      CONTROL_CHARACTER.test(after)
    ) {
      throw new ApiError('invalid_cursor', 'Invalid query: cursor: not a cursor this list returned', {
        errors: [{ path: 'cursor', message: 'not a cursor this list returned' }],
      })
    }
  }
  await tokenOr404(ctx.db, principal.orgId, id)
  const page = await frozenHoldersPage(ctx.db, id, query.limit, after)
  return { frozen_holders: page.rows, total: page.total, next_cursor: page.next_cursor }
}

/** A token's holdings with their frozen units and whether each holder is frozen. */
export async function listHoldings(
  ctx: AppContext,
  principal: Principal,
  id: string,
  query: ListHoldingsQuery,
): Promise<ListHoldingsResponse> {
  const after = decodeHoldingsCursor(query.cursor)
  await tokenOr404(ctx.db, principal.orgId, id)
  const page = await listHoldingRows(ctx.db, id, query, after)
  const frozen = await frozenAmong(
    ctx.db,
    id,
    page.rows.map((h) => h.holder_did),
  )
  return {
    holdings: page.rows.map((h) => holdingFromRow(h, frozen.has(h.holder_did))),
    total: page.total,
    next_cursor: page.next_cursor,
  }
}

/** Replaces a token's transfer rules (absent or null clears a rule), recorded as `rules_updated`. */
export async function setRules(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: SetTokenRulesRequest,
): Promise<TokenDetail> {
  const now = isoTimestamp(ctx.clock.now())
  const { reason, ...given } = input
  const rules: TokenRules = {
    max_balance_per_holder: given.max_balance_per_holder ?? null,
    max_holders: given.max_holders ?? null,
    lockup_until: given.lockup_until ? isoTimestamp(Date.parse(given.lockup_until)) : null,
    max_transfer_amount: given.max_transfer_amount ?? null,
    daily_volume_per_holder: given.daily_volume_per_holder ?? null,
    min_holding: given.min_holding ?? null,
    transfer_windows: given.transfer_windows ?? null,
    lockup_days_after_receipt: given.lockup_days_after_receipt ?? null,
    max_supply: given.max_supply ?? null,
    ...investorRulesOf(given),
  }
  return ctx.db.transaction().execute(async (trx) => {
    const token = await tokenOr404(trx, principal.orgId, id, 'update')
    await setTokenRules(trx, id, JSON.stringify(rules))
    await rulesReplaced(trx, id, rulesFromRow(token.rules), rules)
    await recordTokenEvent(ctx, trx, principal.orgId, id, 'rules_updated', now, {
      rules,
      previous: rulesFromRow(token.rules),
      reason: reason ?? null,
      actor_key_id: principal.keyId,
    })
    ctx.record({
      orgId: principal.orgId,
      action: 'token.rules_updated',
      target: { type: 'token', id },
      before: rulesFromRow(token.rules),
      after: rules,
    })
    return tokenDetail(trx, principal.orgId, id)
  })
}
