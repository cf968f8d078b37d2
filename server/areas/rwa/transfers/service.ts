import type {
  CanTransferQuery,
  CanTransferResponse,
  ListTransfersQuery,
  ListTransfersResponse,
  Proof,
  RequestTransferRequest,
  Transfer,
  TransferDetail,
} from '../../../../src/contract/rwa.js'
import { logIndexOfRecovery, logIndexOfTarget } from '../../../platform/audit-log/queries.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import { ApiError } from '../../../platform/errors.js'
import type { PreparedAnswer } from '../../../platform/http/prepared-answer.js'
import { adjustHolding } from '../holdings/queries.js'
import { listPage, ownedOr404 } from '../owned.js'
import { evaluateTransfer } from './evaluate-transfer.js'
import { transferFacts } from './facts.js'
import { proofFromRow, transferFromRow, transferSummaryFromRow } from './from-row.js'
import { findProof, findTransfer, listTransfers as listTransferRows } from './queries.js'
import { storeTransfer } from './record.js'
import { countApprovedTransfer } from './rule-counts.js'
import { withOutsideWork } from '../../../pipeline/writes/outside-work.js'
import { serviceTransaction } from '../../../platform/db/held-connection.js'

/**
 * Requests a transfer: more than the sender holds in the source is 409 and records nothing; otherwise
 * the evaluation decides, and the transfer, its signed proof and the token's history are recorded in
 * one transaction, with the holdings moved only when approved.
 */
export async function requestTransfer(
  ctx: AppContext,
  principal: Principal,
  input: RequestTransferRequest,
): Promise<Transfer> {
  const orgId = principal.orgId
  const now = isoTimestamp(ctx.clock.now())
  const transferId = ctx.ids.next('tx')
  const proofId = ctx.ids.next('prf')
  await ctx.signingKeys.prepareProofKey()
  const record = await serviceTransaction(ctx.db, async (trx) => {
    const { facts, transfer, issuers } = await transferFacts(trx, orgId, input, now, true, ctx)
    const held = facts.ledger.sender_holding.amount
    if (input.amount > held) {
      throw new ApiError(
        'insufficient_holding',
        `Insufficient holding: ${transfer.sender_did} holds ${held} of ${input.token_id} in ${transfer.from_jurisdiction}, fewer than the ${input.amount} requested`,
        {
          context: {
            token_id: input.token_id,
            holder_did: transfer.sender_did,
            jurisdiction: transfer.from_jurisdiction,
            held,
            requested: input.amount,
          },
        },
      )
    }
    const compliance_details = evaluateTransfer(facts)
    const status = compliance_details.all_satisfied ? 'approved' : 'rejected'
    const failed = compliance_details.checks.filter((c) => !c.satisfied).map((c) => c.reason)
    const record = await storeTransfer(
      ctx,
      trx,
      {
        orgId,
        transferId,
        proofId,
        tokenId: input.token_id,
        status,
        transfer,
        compliance_details,
        reason: null,
        now,
        issuers,
      },
      {
        event: status === 'approved' ? 'transfer_approved' : 'transfer_rejected',
        details: failed.length > 0 ? { reasons: failed } : {},
        actorKeyId: principal.keyId,
      },
    )
    if (status === 'approved') {
      await adjustHolding(trx, input.token_id, transfer.sender_did, transfer.from_jurisdiction, -input.amount)
      await adjustHolding(trx, input.token_id, transfer.recipient_did, transfer.to_jurisdiction, input.amount)
      await countApprovedTransfer(
        trx,
        facts.rules,
        facts.holding,
        transfer,
        input.token_id,
        held,
        Date.parse(now),
      )
    }
    return record
  })
  ctx.metrics.transferDecided(record.status)
  return record
}

/**
 * Would this transfer be approved now? The same evaluation as a request, recording nothing (ERC-1404 /
 * ERC-7943 `canTransfer`); more than the holding is `allowed: false` with `sufficient_holding` failing.
 */
export async function canTransfer(
  ctx: AppContext,
  principal: Principal,
  tokenId: string,
  query: CanTransferQuery,
): Promise<CanTransferResponse> {
  const now = isoTimestamp(ctx.clock.now())
  // A transaction so the facts are one consistent snapshot; it writes nothing but a trusted issuer's
  // status list fetched for it, fetched with the transaction closed (withOutsideWork).
  const { facts } = await withOutsideWork(() =>
    ctx.db
      .transaction()
      .execute((trx) =>
        transferFacts(trx, principal.orgId, { ...query, token_id: tokenId }, now, false, ctx),
      ),
  )
  const compliance_details = evaluateTransfer(facts)
  return { allowed: compliance_details.all_satisfied, compliance_details }
}

export async function getTransfer(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<TransferDetail> {
  const row = await ownedOr404(findTransfer(ctx.db, principal.orgId, id), 'transfer', id)
  const proof = await findProof(ctx.db, principal.orgId, row.proof_id)
  if (!proof) throw new Error(`transfer ${id} has no proof ${row.proof_id}`)
  const withIndex = await withLogIndex(ctx, principal.orgId, proofFromRow(proof, row))
  return {
    ...transferFromRow(row),
    ...(withIndex.log_index === undefined ? {} : { log_index: withIndex.log_index }),
    proof: withIndex,
  }
}

/**
 * A proof carries the log position of its event (docs/governance.md, "The verifiable log"): a transfer's
 * proof its transfer's decision, a recovery's proof its `token.recovered`.
 */
export async function withLogIndex(ctx: AppContext, orgId: string, proof: Proof): Promise<Proof> {
  const log_index =
    proof.transfer_id !== undefined
      ? await logIndexOfTarget(ctx.db, orgId, proof.transfer_id)
      : proof.recovery !== undefined
        ? await logIndexOfRecovery(ctx.db, orgId, proof.token_id, proof.proof_id)
        : undefined
  return log_index === undefined ? proof : { ...proof, log_index }
}

/**
 * Transfers as summaries: the spec's three compliance fields, no checks (docs/governance.md, "Transfers").
 */
export async function listTransfers(
  ctx: AppContext,
  principal: Principal,
  query: ListTransfersQuery,
): Promise<ListTransfersResponse> {
  return listPage('transfers', await listTransferRows(ctx.db, principal.orgId, query), transferSummaryFromRow)
}

export async function getProof(ctx: AppContext, principal: Principal, id: string): Promise<Proof> {
  const proof = await ownedOr404(findProof(ctx.db, principal.orgId, id), 'proof', id)
  // A transfer's proof keeps its facts in the transfer row (migration 0006).
  const transfer =
    proof.facts === null && proof.transfer_id !== null
      ? await findTransfer(ctx.db, principal.orgId, proof.transfer_id)
      : undefined
  return withLogIndex(ctx, principal.orgId, proofFromRow(proof, transfer))
}

/** The public keys that verify proofs, as prepared bytes with their ETag (until the keys change). */
export function jwks(ctx: AppContext): Promise<PreparedAnswer> {
  return ctx.signingKeys.jwksAnswer()
}
