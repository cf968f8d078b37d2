import type { Selectable } from 'kysely'
import type {
  ComplianceCheck,
  ComplianceDetails,
  ComplianceSummary,
  Proof,
  Transfer,
  TransferSummary,
} from '../../../../src/contract/rwa.js'
import { canonicalFacts, type ProofFacts, proofFacts } from '../../../../src/proof/verify.js'
import type { ProofsTable, TransfersTable } from '../../../platform/db/schema.js'
import { attachPayload } from '../../../platform/signing/compact-jws.js'

/**
 * The API record of a stored transfer, with its evaluation's checks: read back from the row's JSON, or
 * given by a caller that has just written them (the same values, not parsed back from the text it
 * made of them).
 */
export function transferFromRow(
  row: Selectable<TransfersTable>,
  details: ComplianceDetails = complianceDetailsOf(row),
): Transfer {
  return {
    transfer_id: row.transfer_id,
    status: row.status as Transfer['status'],
    proof_id: row.proof_id,
    compliance_details: details,
    token_id: row.token_id,
    from_jurisdiction: row.from_jurisdiction,
    to_jurisdiction: row.to_jurisdiction,
    sender_did: row.sender_did,
    recipient_did: row.recipient_did,
    amount: Number(row.amount),
    created_at: row.created_at,
    reason: row.reason,
  }
}

/**
 * The evaluation as the API shows it: the three summary fields, then the checks (the order the server
 * has always written it in; migration 0008 stores the two parts apart).
 */
function complianceDetailsOf(row: Pick<TransfersTable, 'compliance_summary' | 'compliance_checks'>) {
  const { source_requirements, target_requirements, all_satisfied } = JSON.parse(
    row.compliance_summary,
  ) as ComplianceSummary
  const checks = JSON.parse(row.compliance_checks) as ComplianceCheck[]
  return { source_requirements, target_requirements, all_satisfied, checks } satisfies ComplianceDetails
}

/** The columns a list item needs: every one but the checks and an agent's reason. */
export const transferSummaryColumns = [
  'transfer_id',
  'status',
  'proof_id',
  'compliance_summary',
  'token_id',
  'from_jurisdiction',
  'to_jurisdiction',
  'sender_did',
  'recipient_did',
  'amount',
  'created_at',
] as const satisfies readonly (keyof TransfersTable)[]

export type TransferSummaryRow = Pick<Selectable<TransfersTable>, (typeof transferSummaryColumns)[number]>

/**
 * A transfer as a list shows it: the spec's three compliance fields, no checks
 * (docs/governance.md, "Transfers").
 */
export function transferSummaryFromRow(row: TransferSummaryRow): TransferSummary {
  const { source_requirements, target_requirements, all_satisfied } = JSON.parse(
    row.compliance_summary,
  ) as ComplianceSummary
  return {
    transfer_id: row.transfer_id,
    status: row.status as Transfer['status'],
    proof_id: row.proof_id,
    compliance_details: { source_requirements, target_requirements, all_satisfied },
    token_id: row.token_id,
    from_jurisdiction: row.from_jurisdiction,
    to_jurisdiction: row.to_jurisdiction,
    sender_did: row.sender_did,
    recipient_did: row.recipient_did,
    amount: Number(row.amount),
    created_at: row.created_at,
  }
}

/**
 * The facts a transfer's proof signs, from the transfer row: its ids, decision (the status), time,
 * parties, amount, an agent's reason and the evaluation. A transfer's proof stores no facts of its own
 * (migration 0006): they are exactly these, and for a version-2 proof its organization and the
 * `issuers` its proof row keeps (migration 0009).
 */
export function transferProofFacts(
  row: Selectable<TransfersTable>,
  issuers: string | null = null,
): ProofFacts {
  return {
    ...(issuers !== null
      ? { version: 2 as const, org_id: row.org_id, issuers: JSON.parse(issuers) as Record<string, string> }
      : {}),
    proof_id: row.proof_id,
    transfer_id: row.transfer_id,
    token_id: row.token_id,
    decision: row.status as ProofFacts['decision'],
    evaluated_at: row.created_at,
    transfer: {
      from_jurisdiction: row.from_jurisdiction,
      to_jurisdiction: row.to_jurisdiction,
      sender_did: row.sender_did,
      recipient_did: row.recipient_did,
      amount: Number(row.amount),
    },
    ...(row.reason !== null ? { reason: row.reason } : {}),
    compliance_details: complianceDetailsOf(row),
  }
}

/**
 * A stored proof as the API shows it: the canonical facts (stored, or rebuilt from its transfer) back
 * in the documented field order, the digest, the JWS with its payload restored, and the key id.
 */
export function proofFromRow(row: Selectable<ProofsTable>, transfer?: Selectable<TransfersTable>): Proof {
  let facts = row.facts
  if (facts === null) {
    if (transfer?.transfer_id !== row.transfer_id) throw new Error(`proof ${row.proof_id} needs its transfer`)
    facts = canonicalFacts(transferProofFacts(transfer, row.issuers))
  }
  return proofRecord(JSON.parse(facts), row.digest, attachPayload(row.jws, facts), row.kid)
}

/**
 * A proof as the API shows it, from its facts as `JSON.parse` of their canonical JSON gives them (each
 * nested object's keys in canonical order, as stored), put back in the documented field order.
 */
export function proofRecord(parsedFacts: ProofFacts, digest: string, jws: string, kid: string): Proof {
  return { ...proofFacts(parsedFacts), digest, jws, kid }
}
