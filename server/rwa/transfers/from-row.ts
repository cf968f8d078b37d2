import type { Selectable } from 'kysely'
import type { ComplianceDetails, Proof, Transfer, TransferSummary } from '../../../src/contract/rwa.js'
import { proofFacts } from '../../../src/proof/verify.js'
import type { ProofsTable, TransfersTable } from '../../db/schema.js'

/** The API record of a stored transfer, with its evaluation's checks. */
export function transferFromRow(row: Selectable<TransfersTable>): Transfer {
  return {
    transfer_id: row.transfer_id,
    status: row.status as Transfer['status'],
    proof_id: row.proof_id,
    compliance_details: JSON.parse(row.compliance_details) as ComplianceDetails,
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

/** A transfer as a list shows it: the spec's three compliance fields, no checks (DESIGN §10). */
export function transferSummaryFromRow(row: Selectable<TransfersTable>): TransferSummary {
  const { source_requirements, target_requirements, all_satisfied } = JSON.parse(
    row.compliance_details,
  ) as ComplianceDetails
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

/** The stored canonical facts (keys sorted) back in the documented field order, plus the signature. */
export function proofFromRow(row: Selectable<ProofsTable>): Proof {
  return { ...proofFacts(JSON.parse(row.facts)), digest: row.digest, jws: row.jws, kid: row.kid }
}
