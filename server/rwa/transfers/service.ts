import {
  type Jwks,
  type ListTransfersQuery,
  type ListTransfersResponse,
  type Proof,
  type ProofTransfer,
  type RequestTransferRequest,
  TITLE_VERIFICATION,
  type Transfer,
  type TransferDetail,
} from '../../../src/contract/rwa.js'
import { canonicalFacts, type ProofFacts, proofDigest } from '../../../src/proof/verify.js'
import type { Principal } from '../../auth/principal.js'
import { isoTimestamp } from '../../clock.js'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/queries.js'
import { ApiError, notFound } from '../../errors.js'
import { attestationsForTransfer } from '../attestations/queries.js'
import { findCredential } from '../credentials/queries.js'
import { findJurisdictions } from '../jurisdictions/queries.js'
import { listPage, ownedOr404 } from '../owned.js'
import { adjustHolding, holdingOf } from '../tokens/queries.js'
import { recordTokenEvent } from '../tokens/history.js'
import { tokenOr404 } from '../tokens/service.js'
import { activeTrustTouching } from '../trust/queries.js'
import { evaluateTransfer, type TransferFacts } from './evaluate-transfer.js'
import { proofFromRow, transferFromRow } from './from-row.js'
import {
  findProof,
  findTransfer,
  insertProof,
  insertTransfer,
  listTransfers as listTransferRows,
} from './queries.js'

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
  return ctx.db.transaction().execute(async (trx) => {
    const { facts, transfer } = await transferFacts(trx, orgId, input, now)
    const compliance_details = evaluateTransfer(facts)
    const status = compliance_details.all_satisfied ? 'approved' : 'rejected'

    const proof: ProofFacts = {
      proof_id: proofId,
      transfer_id: transferId,
      token_id: input.token_id,
      decision: status,
      evaluated_at: now,
      transfer,
      compliance_details,
    }
    const canonical = canonicalFacts(proof)
    const { jws, kid } = await ctx.signingKeys.signProof(canonical)

    const row = {
      transfer_id: transferId,
      org_id: orgId,
      token_id: input.token_id,
      ...transfer,
      status,
      proof_id: proofId,
      compliance_details: JSON.stringify(compliance_details),
      created_at: now,
    }
    await insertTransfer(trx, row)
    await insertProof(trx, {
      proof_id: proofId,
      org_id: orgId,
      transfer_id: transferId,
      facts: canonical,
      digest: proofDigest(proof),
      jws,
      kid,
    })
    const failed = compliance_details.checks.filter((c) => !c.satisfied).map((c) => c.reason)
    await recordTokenEvent(
      ctx,
      trx,
      orgId,
      input.token_id,
      status === 'approved' ? 'transfer_approved' : 'transfer_rejected',
      now,
      {
        transfer_id: transferId,
        proof_id: proofId,
        ...transfer,
        ...(failed.length > 0 ? { reasons: failed } : {}),
      },
    )
    if (status === 'approved') {
      await adjustHolding(trx, input.token_id, transfer.sender_did, transfer.from_jurisdiction, -input.amount)
      await adjustHolding(trx, input.token_id, input.recipient_did, transfer.to_jurisdiction, input.amount)
    }
    return transferFromRow(row)
  })
}

/**
 * Gathers what the evaluation of a transfer needs: the token and its credential, both jurisdictions
 * with their requirements, the active trust around them and the candidate attestations. 404 for an
 * unknown token or jurisdiction; 409 when the sender holds less than the amount in the source.
 */
async function transferFacts(
  trx: Executor,
  orgId: string,
  input: RequestTransferRequest,
  now: string,
): Promise<{ facts: TransferFacts; transfer: ProofTransfer }> {
  const token = await tokenOr404(trx, orgId, input.token_id)
  const ids = [...new Set([input.from_jurisdiction, input.to_jurisdiction])]
  const jurisdictions = new Map(
    (await findJurisdictions(trx, orgId, ids)).map((j) => [j.jurisdiction_id, j] as const),
  )
  for (const id of ids) if (!jurisdictions.has(id)) throw notFound('jurisdiction', id)
  const from = jurisdictions.get(input.from_jurisdiction)!
  const to = jurisdictions.get(input.to_jurisdiction)!

  const sender = input.sender_did ?? token.owner_did
  const held = await holdingOf(trx, token.token_id, sender, from.jurisdiction_id)
  if (input.amount > held) {
    throw new ApiError(
      'conflict',
      `Insufficient holding: ${sender} holds ${held} of ${token.token_id} in ${from.jurisdiction_id}, fewer than the ${input.amount} requested`,
    )
  }

  const credential = await findCredential(trx, orgId, token.credential_id)
  if (!credential) throw new Error(`token ${token.token_id} has no credential ${token.credential_id}`)
  const fromRequirements = JSON.parse(from.transfer_requirements) as string[]
  const toRequirements = JSON.parse(to.transfer_requirements) as string[]
  const personal = [...new Set([...fromRequirements, ...toRequirements])].filter(
    (r) => r !== TITLE_VERIFICATION,
  )
  const [trust, attestations] = await Promise.all([
    activeTrustTouching(trx, orgId, ids),
    attestationsForTransfer(
      trx,
      orgId,
      input.recipient_did,
      personal,
      token.credential_id,
      TITLE_VERIFICATION,
    ),
  ])
  return {
    facts: {
      token,
      credential,
      from: { jurisdiction_id: from.jurisdiction_id, transfer_requirements: fromRequirements },
      to: { jurisdiction_id: to.jurisdiction_id, transfer_requirements: toRequirements },
      recipient_did: input.recipient_did,
      trust: trust.map((t) => ({ ...t, mutual: t.mutual === 1 })),
      attestations,
      now,
    },
    transfer: {
      from_jurisdiction: from.jurisdiction_id,
      to_jurisdiction: to.jurisdiction_id,
      sender_did: sender,
      recipient_did: input.recipient_did,
      amount: input.amount,
    },
  }
}

export async function getTransfer(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<TransferDetail> {
  const row = await ownedOr404(findTransfer(ctx.db, principal.orgId, id), 'transfer', id)
  const proof = await findProof(ctx.db, principal.orgId, row.proof_id)
  if (!proof) throw new Error(`transfer ${id} has no proof ${row.proof_id}`)
  return { ...transferFromRow(row), proof: proofFromRow(proof) }
}

export async function listTransfers(
  ctx: AppContext,
  principal: Principal,
  query: ListTransfersQuery,
): Promise<ListTransfersResponse> {
  return listPage('transfers', await listTransferRows(ctx.db, principal.orgId, query), transferFromRow)
}

export async function getProof(ctx: AppContext, principal: Principal, id: string): Promise<Proof> {
  return proofFromRow(await ownedOr404(findProof(ctx.db, principal.orgId, id), 'proof', id))
}

/** The public keys that verify proofs. */
export function jwks(ctx: AppContext): Promise<Jwks> {
  return ctx.signingKeys.jwks()
}
