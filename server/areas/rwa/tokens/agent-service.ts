import type {
  FreezeRequest,
  FreezeState,
  TokenActionRequest,
  TokenDetail,
} from '../../../../src/contract/rwa.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import { ApiError } from '../../../platform/errors.js'
import {
  deleteHolderFreeze,
  frozenAmong,
  holdingOf,
  holdingsOfHolder,
  insertHolderFreeze,
  setFrozenAmount,
} from '../holdings/queries.js'
import { holdingFromRow } from './from-row.js'
import { recordTokenEvent } from '../history/history.js'
import { freezeUnits, unfreezeUnits } from './ledger.js'
import { setTokenStatus } from './queries.js'
import { tokenOr404 } from './queries.js'
import { tokenDetail } from './service.js'

/*
 * The token agent's operations that move no units (T-REX: pause, unpause, setAddressFrozen,
 * freezePartialTokens, unfreezePartialTokens): each one transaction, recorded in the token's history
 * with the key that acted and its reason.
 */

/** Pauses (`paused: true`) or unpauses a token. A token frozen by its revoked credential stays so (409). */
export async function setPaused(
  ctx: AppContext,
  principal: Principal,
  id: string,
  paused: boolean,
  input: TokenActionRequest,
): Promise<TokenDetail> {
  const now = isoTimestamp(ctx.clock.now())
  return ctx.db.transaction().execute(async (trx) => {
    // The token's row lock serializes its agent operations and transfers across instances.
    const token = await tokenOr404(trx, principal.orgId, id, 'update')
    if (token.status === 'frozen') {
      throw new ApiError(
        'token_frozen',
        `Token ${id} is frozen because its credential ${token.credential_id} was revoked; it can be neither paused nor unpaused`,
        { context: { token_id: id, credential_id: token.credential_id } },
      )
    }
    if (paused && token.status === 'paused') {
      throw new ApiError('token_already_paused', `Token ${id} is already paused`, {
        context: { token_id: id },
      })
    }
    if (!paused && token.status !== 'paused') {
      throw new ApiError('token_not_paused', `Token ${id} is not paused`, { context: { token_id: id } })
    }
    await setTokenStatus(trx, id, paused ? 'paused' : 'active')
    await recordTokenEvent(ctx, trx, principal.orgId, id, paused ? 'token_paused' : 'token_unpaused', now, {
      reason: input.reason ?? null,
      actor_key_id: principal.keyId,
    })
    ctx.record({
      orgId: principal.orgId,
      action: paused ? 'token.paused' : 'token.unpaused',
      target: { type: 'token', id },
      after: { reason: input.reason ?? null },
    })
    return tokenDetail(trx, principal.orgId, id)
  })
}

/**
 * Freezes (`freeze: true`) or unfreezes. Without `amount`: the whole holder, for every jurisdiction,
 * held or not (a second freeze or an unfreeze of a holder who is not frozen is 409). With `amount` and
 * `jurisdiction`: that many units of the holding, which must exist (404) and cover them (409).
 */
export async function setFrozen(
  ctx: AppContext,
  principal: Principal,
  id: string,
  freeze: boolean,
  input: FreezeRequest,
): Promise<FreezeState> {
  const now = isoTimestamp(ctx.clock.now())
  const { holder_did: holder, amount, jurisdiction } = input
  return ctx.db.transaction().execute(async (trx) => {
    await tokenOr404(trx, principal.orgId, id, 'update')
    const details: Record<string, unknown> = { holder_did: holder }
    if (amount === undefined || jurisdiction === undefined) {
      const isFrozen = (await frozenAmong(trx, id, [holder])).has(holder)
      const context = { token_id: id, holder_did: holder }
      if (freeze && isFrozen) {
        throw new ApiError('holder_already_frozen', `${holder} is already frozen for token ${id}`, {
          context,
        })
      }
      if (!freeze && !isFrozen) {
        throw new ApiError('holder_not_frozen', `${holder} is not frozen for token ${id}`, { context })
      }
      if (freeze)
        await insertHolderFreeze(trx, {
          token_id: id,
          holder_did: holder,
          org_id: principal.orgId,
          frozen_at: now,
        })
      else await deleteHolderFreeze(trx, id, holder)
    } else {
      const where = `${holder}'s holding of ${id} in ${jurisdiction}`
      const holding = await holdingOf(trx, id, holder, jurisdiction)
      if (holding.amount === 0) {
        throw new ApiError('holding_not_found', `${holder} holds none of token ${id} in ${jurisdiction}`, {
          context: { token_id: id, holder_did: holder, jurisdiction },
        })
      }
      const next = freeze ? freezeUnits(holding, amount, where) : unfreezeUnits(holding, amount, where)
      await setFrozenAmount(trx, id, holder, jurisdiction, next.frozen_amount)
      Object.assign(details, { jurisdiction, amount, frozen_amount: next.frozen_amount })
    }
    const event =
      amount === undefined
        ? freeze
          ? 'holder_frozen'
          : 'holder_unfrozen'
        : freeze
          ? 'units_frozen'
          : 'units_unfrozen'
    await recordTokenEvent(ctx, trx, principal.orgId, id, event, now, {
      ...details,
      reason: input.reason ?? null,
      actor_key_id: principal.keyId,
    })
    ctx.record({
      orgId: principal.orgId,
      action: freeze ? 'holder.frozen' : 'holder.unfrozen',
      target: { type: 'token', id },
      after: { ...details, reason: input.reason ?? null },
    })
    const frozen = (await frozenAmong(trx, id, [holder])).has(holder)
    const holdings = await holdingsOfHolder(trx, id, holder)
    return {
      token_id: id,
      holder_did: holder,
      frozen,
      holdings: holdings.map((h) => holdingFromRow(h, frozen)),
    }
  })
}
