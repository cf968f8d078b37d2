import type { BurnRequest, MintRequest, TokenDetail } from '../../../../src/contract/rwa.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import type { AppContext } from '../../../pipeline/context.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { Executor } from '../../../platform/db/queries.js'
import { ApiError, notFound } from '../../../platform/errors.js'
import { recordTokenEvent } from '../history/history.js'
import { adjustHolding, holdingOf } from '../holdings/queries.js'
import { findJurisdictions } from '../jurisdictions/queries.js'
import { countReceipt, countSend } from '../rule-counters/counters.js'
import { rulesFromRow } from './from-row.js'
import { takeUnits } from './ledger.js'
import { maxSupplyDecision } from './max-supply.js'
import { addToSupply, tokenOr404 } from './queries.js'
import { tokenDetail } from './service.js'

/*
 * The agent's supply operations (T-REX mint and burn): units come into or go out of existence in one
 * holding, the token's `supply` moving with them, each recorded in the token's history with the key
 * that acted and its reason. Rule `max_supply` caps a mint; a burn makes room.
 */

/** The jurisdiction must exist (404); `key share` so that its removal waits for the units placed there. */
async function jurisdictionOr404(db: Executor, orgId: string, id: string): Promise<void> {
  if ((await findJurisdictions(db, orgId, [id], 'key share')).length === 0) throw notFound('jurisdiction', id)
}

/** Mints `amount` new units into `to_did`'s holding in `jurisdiction`; answers the token. */
export async function mint(
  ctx: AppContext,
  principal: Principal,
  tokenId: string,
  input: MintRequest,
): Promise<TokenDetail> {
  const orgId = principal.orgId
  const nowMs = ctx.clock.now()
  const now = isoTimestamp(nowMs)
  return ctx.db.transaction().execute(async (trx) => {
    // The token's row lock: its supply, holdings and counts are changed by one write at a time.
    const token = await tokenOr404(trx, orgId, tokenId, 'update')
    if (token.status === 'frozen') {
      throw new ApiError(
        'token_frozen',
        `Token ${tokenId} is frozen because its credential ${token.credential_id} was revoked; no units can be minted`,
        { context: { token_id: tokenId, credential_id: token.credential_id } },
      )
    }
    await jurisdictionOr404(trx, orgId, input.jurisdiction)
    const rules = rulesFromRow(token.rules)
    const supply = Number(token.supply)
    const decision = maxSupplyDecision(rules.max_supply, supply, input.amount)
    if (!decision.allowed) {
      throw new ApiError(
        'max_supply_exceeded',
        `Minting ${input.amount} would take the supply of ${tokenId} to ${decision.after} (${supply} now), over max_supply ${rules.max_supply} by ${decision.over}`,
        {
          context: {
            token_id: tokenId,
            max_supply: rules.max_supply,
            supply,
            requested: input.amount,
            over: decision.over,
          },
        },
      )
    }
    await adjustHolding(trx, tokenId, input.to_did, input.jurisdiction, input.amount)
    await addToSupply(trx, tokenId, input.amount)
    await countReceipt(trx, rules, tokenId, input.to_did, input.jurisdiction, input.amount, nowMs)
    const details = {
      to_did: input.to_did,
      jurisdiction: input.jurisdiction,
      amount: input.amount,
      supply: decision.after,
    }
    await recordTokenEvent(ctx, trx, orgId, tokenId, 'minted', now, {
      ...details,
      reason: input.reason,
      actor_key_id: principal.keyId,
    })
    ctx.record({
      orgId,
      action: 'token.minted',
      target: { type: 'token', id: tokenId },
      before: { supply },
      after: { ...details, reason: input.reason },
    })
    return tokenDetail(trx, orgId, tokenId)
  })
}

/**
 * Burns `amount` units of `from_did`'s holding in `jurisdiction`: unfrozen units first, then frozen
 * ones (T-REX burn). More than the holding is 409 and nothing changes. Answers the token.
 */
export async function burn(
  ctx: AppContext,
  principal: Principal,
  tokenId: string,
  input: BurnRequest,
): Promise<TokenDetail> {
  const orgId = principal.orgId
  const nowMs = ctx.clock.now()
  const now = isoTimestamp(nowMs)
  return ctx.db.transaction().execute(async (trx) => {
    const token = await tokenOr404(trx, orgId, tokenId, 'update')
    await jurisdictionOr404(trx, orgId, input.jurisdiction)
    const holding = await holdingOf(trx, tokenId, input.from_did, input.jurisdiction)
    if (input.amount > holding.amount) {
      throw new ApiError(
        'insufficient_holding',
        `Insufficient holding: ${input.from_did} holds ${holding.amount} of ${tokenId} in ${input.jurisdiction}, fewer than the ${input.amount} to burn`,
        {
          context: {
            token_id: tokenId,
            holder_did: input.from_did,
            jurisdiction: input.jurisdiction,
            held: holding.amount,
            requested: input.amount,
          },
        },
      )
    }
    const rules = rulesFromRow(token.rules)
    const supply = Number(token.supply)
    const { unfrozenTaken, frozenTaken } = takeUnits(holding, input.amount)
    await adjustHolding(trx, tokenId, input.from_did, input.jurisdiction, -input.amount, -frozenTaken)
    await addToSupply(trx, tokenId, -input.amount)
    await countSend(
      trx,
      rules,
      tokenId,
      input.from_did,
      input.jurisdiction,
      holding.amount,
      input.amount,
      nowMs,
    )
    const details = {
      from_did: input.from_did,
      jurisdiction: input.jurisdiction,
      amount: input.amount,
      supply: supply - input.amount,
      unfrozen_units_taken: unfrozenTaken,
      frozen_units_taken: frozenTaken,
    }
    await recordTokenEvent(ctx, trx, orgId, tokenId, 'burned', now, {
      ...details,
      reason: input.reason,
      actor_key_id: principal.keyId,
    })
    ctx.record({
      orgId,
      action: 'token.burned',
      target: { type: 'token', id: tokenId },
      before: { supply },
      after: { ...details, reason: input.reason },
    })
    return tokenDetail(trx, orgId, tokenId)
  })
}
