import type {
  ComplianceDetails,
  ForcedTransferRequest,
  Holding,
  RecoverRequest,
  RecoveryResult,
  Transfer,
} from '../../../../src/contract/rwa.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import { ApiError } from '../../../platform/errors.js'
import {
  adjustHolding,
  deleteHolderFreeze,
  deleteHolding,
  frozenAmong,
  holdingOf,
  holdingsOfHolder,
  insertHolderFreeze,
} from '../holdings/queries.js'
import { recordTokenEvent } from '../history/history.js'
import { moveIdentityOnRecovery } from '../identities/recovery.js'
import { takeUnits } from '../tokens/ledger.js'
import { tokenOr404 } from '../tokens/queries.js'
import { evaluateKyc } from './evaluate-transfer.js'
import { jurisdictionsOr404, kycFacts } from './facts.js'
import { storeProof, storeTransfer } from './record.js'

/*
 * The agent's operations that move units (T-REX forcedTransfer and recoveryAddress, ERC-7943
 * forcedTransfer): they bypass every requirement, rule, freeze and pause, but not the ledger (the units
 * must be there) and not the identity of who receives (a valid `kyc` recognised where the units land,
 * else 422 and nothing moves). Each is one transaction with a signed proof naming the reason.
 */

/** Refuses (422) an agent operation whose recipient's `kyc` is not recognised where it must be. */
function assertKyc(details: ComplianceDetails, who: string, did: string): void {
  if (details.all_satisfied) return
  const failed = details.checks.filter((c) => !c.satisfied).map((c) => c.reason)
  throw new ApiError(
    'recipient_not_kyc',
    `${who} ${did} must hold a valid kyc attestation recognised by each jurisdiction the units go to: ${failed.join('; ')}`,
    {
      context: {
        did,
        jurisdictions: details.checks.filter((c) => !c.satisfied).map((c) => c.jurisdiction),
      },
    },
  )
}

/** Moves units by authority: recorded as a transfer with status `forced`, its proof carrying the reason. */
export async function forcedTransfer(
  ctx: AppContext,
  principal: Principal,
  tokenId: string,
  input: ForcedTransferRequest,
): Promise<Transfer> {
  const orgId = principal.orgId
  // Taking units out of a holding and putting them back would release its frozen units with no
  // unfreeze recorded (takeUnits takes frozen units last, adjustHolding adds free ones).
  if (input.from_did === input.to_did && input.from_jurisdiction === input.to_jurisdiction) {
    throw new ApiError(
      'same_holding',
      `A forced transfer from ${input.from_did} in ${input.from_jurisdiction} to the same holder and jurisdiction moves nothing; POST .../unfreeze with an amount releases frozen units`,
      {
        context: { token_id: tokenId, holder_did: input.from_did, jurisdiction: input.from_jurisdiction },
      },
    )
  }
  const now = isoTimestamp(ctx.clock.now())
  const transferId = ctx.ids.next('tx')
  const proofId = ctx.ids.next('prf')
  await ctx.signingKeys.prepareProofKey()
  const record = await ctx.db.transaction().execute(async (trx) => {
    // The token's row lock: its transfers and agent operations on any instance wait for this one.
    const token = await tokenOr404(trx, orgId, tokenId, 'update')
    await jurisdictionsOr404(
      trx,
      orgId,
      [...new Set([input.from_jurisdiction, input.to_jurisdiction])],
      'key share',
    )
    const holding = await holdingOf(trx, tokenId, input.from_did, input.from_jurisdiction)
    if (input.amount > holding.amount) {
      throw new ApiError(
        'insufficient_holding',
        `Insufficient holding: ${input.from_did} holds ${holding.amount} of ${tokenId} in ${input.from_jurisdiction}, fewer than the ${input.amount} to move`,
        {
          context: {
            token_id: tokenId,
            holder_did: input.from_did,
            jurisdiction: input.from_jurisdiction,
            held: holding.amount,
            requested: input.amount,
          },
        },
      )
    }
    const compliance_details = evaluateKyc(
      await kycFacts(trx, orgId, token.credential_id, input.to_did, [input.to_jurisdiction], now, ctx),
    )
    assertKyc(compliance_details, 'The recipient', input.to_did)

    const { unfrozenTaken, frozenTaken } = takeUnits(holding, input.amount)
    const transfer = {
      from_jurisdiction: input.from_jurisdiction,
      to_jurisdiction: input.to_jurisdiction,
      sender_did: input.from_did,
      recipient_did: input.to_did,
      amount: input.amount,
    }
    const record = await storeTransfer(
      ctx,
      trx,
      {
        orgId,
        transferId,
        proofId,
        tokenId,
        status: 'forced',
        transfer,
        compliance_details,
        reason: input.reason,
        now,
      },
      {
        event: 'transfer_forced',
        details: {
          unfrozen_units_taken: unfrozenTaken,
          frozen_units_taken: frozenTaken,
          reason: input.reason,
        },
        actorKeyId: principal.keyId,
      },
    )
    await adjustHolding(trx, tokenId, input.from_did, input.from_jurisdiction, -input.amount, -frozenTaken)
    await adjustHolding(trx, tokenId, input.to_did, input.to_jurisdiction, input.amount)
    return record
  })
  ctx.metrics.transferDecided(record.status)
  return record
}

/**
 * Recovers a lost identity: every holding of `lost_did` (with its frozen units) and its whole-holder
 * freeze move to `new_did`, and so does its place in an identity (409 `did_in_use` when `new_did` is of
 * another); `new_did` must hold `kyc` (its own or its identity's) recognised in each jurisdiction
 * concerned (422).
 * 409 when the lost identity holds none of the token.
 */
export async function recover(
  ctx: AppContext,
  principal: Principal,
  tokenId: string,
  input: RecoverRequest,
): Promise<RecoveryResult> {
  const orgId = principal.orgId
  const now = isoTimestamp(ctx.clock.now())
  const proofId = ctx.ids.next('prf')
  await ctx.signingKeys.prepareProofKey()
  return ctx.db.transaction().execute(async (trx) => {
    const token = await tokenOr404(trx, orgId, tokenId, 'update')
    const lost = await holdingsOfHolder(trx, tokenId, input.lost_did)
    if (lost.length === 0) {
      throw new ApiError(
        'nothing_to_recover',
        `${input.lost_did} holds none of token ${tokenId}: there is nothing to recover`,
        { context: { token_id: tokenId, lost_did: input.lost_did } },
      )
    }
    const jurisdictions = lost.map((h) => h.jurisdiction)
    // The new DID takes the lost one's place in its identity first (docs/identities.md, "Recovery"), so
    // the identity's attestations count for it; a refused recovery rolls that back too.
    await moveIdentityOnRecovery(ctx, trx, orgId, input.lost_did, input.new_did, now)
    const compliance_details = evaluateKyc(
      await kycFacts(trx, orgId, token.credential_id, input.new_did, jurisdictions, now, ctx),
    )
    assertKyc(compliance_details, 'The new identity', input.new_did)

    const frozen = await frozenAmong(trx, tokenId, [input.lost_did, input.new_did])
    const holderFrozen = frozen.has(input.lost_did) || frozen.has(input.new_did)
    if (frozen.has(input.lost_did)) {
      await deleteHolderFreeze(trx, tokenId, input.lost_did)
      if (!frozen.has(input.new_did)) {
        await insertHolderFreeze(trx, {
          token_id: tokenId,
          holder_did: input.new_did,
          org_id: orgId,
          frozen_at: now,
        })
      }
    }
    const moved: Holding[] = []
    for (const h of lost) {
      const amount = Number(h.amount)
      const frozenAmount = Number(h.frozen_amount)
      await deleteHolding(trx, tokenId, input.lost_did, h.jurisdiction)
      await adjustHolding(trx, tokenId, input.new_did, h.jurisdiction, amount, frozenAmount)
      moved.push({
        holder_did: input.new_did,
        jurisdiction: h.jurisdiction,
        amount,
        frozen_amount: frozenAmount,
        frozen: holderFrozen,
      })
    }
    const recovery = { lost_did: input.lost_did, new_did: input.new_did, moved }
    await storeProof(ctx, trx, orgId, {
      proof_id: proofId,
      token_id: tokenId,
      decision: 'recovered',
      evaluated_at: now,
      recovery,
      reason: input.reason,
      compliance_details,
    })
    await recordTokenEvent(ctx, trx, orgId, tokenId, 'identity_recovered', now, {
      ...recovery,
      holder_frozen_moved: frozen.has(input.lost_did),
      proof_id: proofId,
      reason: input.reason,
      actor_key_id: principal.keyId,
    })
    const result: RecoveryResult = { ...recovery, proof_id: proofId }
    ctx.record({
      orgId,
      action: 'token.recovered',
      target: { type: 'token', id: tokenId },
      after: { lost_did: input.lost_did, new_did: input.new_did, proof_id: proofId },
      // Its event's position in the organization's log, its proof's too
      // (docs/governance.md, "The verifiable log"), known once the write appends its events, before its
      // answer is serialized.
      appended: (logIndex) => {
        result.log_index = logIndex
      },
    })
    return result
  })
}
