import type {
  ComplianceDetails,
  GovernanceEvent,
  Proof,
  ProofTransfer,
  Transfer,
  TransferStatus,
} from '../../../../src/contract/rwa.js'
import {
  canonicalFacts,
  canonicalOrder,
  digestOfCanonical,
  type ProofFacts,
  proofFacts,
} from '../../../../src/proof/verify.js'
import type { AppContext } from '../../../pipeline/context.js'
import { SerializedAnswer } from '../../../pipeline/writes/change.js'
import type { Executor } from '../../../platform/db/queries.js'
import { detachPayload } from '../../../platform/signing/compact-jws.js'
import { recordTokenEvent } from '../history/history.js'
import { findJurisdictions } from '../jurisdictions/queries.js'
import { proofRecord, transferFromRow } from './from-row.js'
import { insertProof, insertTransfer } from './queries.js'

/*
 * Recording what moves (or was refused): a signed proof of the evaluated facts, and the transfer row.
 * Both run inside the caller's transaction, with the holdings and the token's history.
 */

/**
 * Signs the proof's canonical facts with the service key and stores it, each thing once: the JWS
 * without its payload (the facts), and the facts themselves only when `factsOf` is `'proof'` — a
 * transfer's proof leaves them to its transfer row, which holds every one of them.
 */
export async function storeProof(
  ctx: AppContext,
  trx: Executor,
  orgId: string,
  facts: Omit<ProofFacts, 'version' | 'org_id' | 'issuers'>,
  factsOf: 'proof' | 'transfer' = 'proof',
  /** The issuers of the jurisdictions the facts name, when the caller has just read them. */
  knownIssuers?: Record<string, string>,
): Promise<Proof> {
  const issuers = knownIssuers ?? (await issuersNamedBy(trx, orgId, facts))
  const proof: ProofFacts = { version: PROOF_VERSION, org_id: orgId, issuers, ...facts }
  // The facts with their keys in canonical order are both what the JWS signs (as text) and the
  // answer's facts (as JSON.parse of that text would give them, without parsing it).
  const ordered = canonicalOrder(proofFacts(proof)) as ProofFacts | undefined
  const canonical = ordered !== undefined ? JSON.stringify(ordered) : canonicalFacts(proof)
  const { jws, kid } = await ctx.signingKeys.signProof(canonical, trx)
  const row = {
    proof_id: proof.proof_id,
    org_id: orgId,
    transfer_id: proof.transfer_id ?? null,
    facts: factsOf === 'proof' ? canonical : null,
    digest: digestOfCanonical(canonical),
    jws: detachPayload(jws),
    kid,
    // A transfer's proof rebuilds its facts from the transfer row: what the row lacks is kept here.
    issuers: factsOf === 'transfer' ? JSON.stringify(issuers) : null,
  }
  await insertProof(trx, row)
  // The API record, from the facts at hand rather than rebuilt from the transfer row, and the JWS as
  // signed (its payload the canonical facts, which the stored one leaves out).
  return proofRecord(ordered ?? (JSON.parse(canonical) as ProofFacts), row.digest, jws, kid)
}

/** The version of new proofs: they sign `org_id` and `issuers` (docs/verification.md, "Version-2 proofs"). */
export const PROOF_VERSION = 2

/**
 * jurisdiction_id → issuer_did of every jurisdiction a proof names: a transfer's source and target, the
 * jurisdictions a recovery moved units in.
 */
async function issuersNamedBy(
  trx: Executor,
  orgId: string,
  facts: Pick<ProofFacts, 'transfer' | 'recovery'>,
): Promise<Record<string, string>> {
  const ids = new Set<string>()
  if (facts.transfer) ids.add(facts.transfer.from_jurisdiction).add(facts.transfer.to_jurisdiction)
  for (const h of facts.recovery?.moved ?? []) ids.add(h.jurisdiction)
  if (ids.size === 0) return {}
  const rows = await findJurisdictions(trx, orgId, [...ids].sort())
  const issuers: Record<string, string> = {}
  for (const row of rows.sort((a, b) => (a.jurisdiction_id < b.jurisdiction_id ? -1 : 1))) {
    issuers[row.jurisdiction_id] = row.issuer_did
  }
  return issuers
}

/**
 * Stores a transfer, its signed proof and its event in the token's history (`transfer_id`, `proof_id`,
 * the parties and amount, then `history.details`, then `actor_key_id`); returns the API record, whose
 * `log_index` is set once the write appends the transfer's audit event (before its answer is
 * serialized): absent until then.
 */
export async function storeTransfer(
  ctx: AppContext,
  trx: Executor,
  record: {
    orgId: string
    transferId: string
    proofId: string
    tokenId: string
    status: TransferStatus
    transfer: ProofTransfer
    compliance_details: ComplianceDetails
    reason: string | null
    now: string
    /** jurisdiction_id → issuer_did of the transfer's two jurisdictions, read by its evaluation. */
    issuers?: Record<string, string>
  },
  history: { event: GovernanceEvent['event']; details: Record<string, unknown>; actorKeyId: string },
): Promise<Transfer> {
  const proof = await storeProof(
    ctx,
    trx,
    record.orgId,
    {
      proof_id: record.proofId,
      transfer_id: record.transferId,
      token_id: record.tokenId,
      decision: record.status,
      evaluated_at: record.now,
      transfer: record.transfer,
      // undefined when there is none: proofFacts leaves it out (no spread of a conditional object).
      reason: record.reason ?? undefined,
      compliance_details: record.compliance_details,
    },
    'transfer',
    record.issuers,
  )
  const { source_requirements, target_requirements, all_satisfied, checks } = record.compliance_details
  const row = {
    transfer_id: record.transferId,
    org_id: record.orgId,
    token_id: record.tokenId,
    ...record.transfer,
    status: record.status,
    proof_id: record.proofId,
    created_at: record.now,
    reason: record.reason,
    // Apart, so that a list reads the summary without the checks (migration 0008).
    compliance_summary: JSON.stringify({ source_requirements, target_requirements, all_satisfied }),
    compliance_checks: JSON.stringify(checks),
  }
  const answer: Transfer = transferFromRow(row, {
    source_requirements,
    target_requirements,
    all_satisfied,
    checks,
  })
  // The proof as its event will carry it, serialized now: its facts, reordered for the signature, and
  // its JWS die here instead of living until the write appends its changes (`SerializedAnswer`).
  const proofJson = JSON.stringify(proof)
  ctx.record({
    orgId: record.orgId,
    action: `transfer.${record.status}`,
    target: { type: 'transfer', id: record.transferId },
    after: { token_id: record.tokenId, ...record.transfer, proof_id: record.proofId },
    // As GET answers it: the transfer and its proof with its event's log position, the text of
    // `{ ...answer, log_index, proof: { ...proof, log_index } }`.
    answer: (logIndex) => {
      const transfer = JSON.stringify({ ...answer, log_index: logIndex })
      return new SerializedAnswer(
        `${transfer.slice(0, -1)},"proof":${withLastField(proofJson, 'log_index', logIndex)}}`,
      )
    },
    // Its event's position in the organization's log
    // (docs/governance.md, "The verifiable log"), known once the write appends its events,
    // before its answer is serialized (server/pipeline/writes/run-write.ts, `appendRecorded`).
    appended: (logIndex) => {
      answer.log_index = logIndex
    },
  })
  await insertTransfer(trx, row)
  await recordTokenEvent(ctx, trx, record.orgId, record.tokenId, history.event, record.now, {
    transfer_id: record.transferId,
    proof_id: record.proofId,
    ...record.transfer,
    ...history.details,
    actor_key_id: history.actorKeyId,
  })
  return answer
}

/**
 * The JSON text of a non-empty object (`json`, serialized, without `name`) with `name` added as its last
 * field, as `JSON.stringify({ ...object, [name]: value })` writes it: left out when `value` is undefined.
 */
function withLastField(json: string, name: string, value: number | undefined): string {
  if (value === undefined) return json
  return `${json.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`
}
