import type { Proof } from '../contract/rwa.js'

/*
 * What a compliance proof signs, as plain functions free of Node and of zod: the server and the CLI
 * (./verify.ts) and the console's page (src/console/verify/proof.ts) read a proof's facts alike.
 */

/** The evaluated facts of a proof: every field except `digest`, `jws` and `kid`. */
export type ProofFacts = Omit<Proof, 'digest' | 'jws' | 'kid'>

/** The `typ` header of a proof JWS. */
export const PROOF_JWS_TYPE = 'rwa-proof+jws'

/**
 * The evaluated facts of `proof`, field by field (extra fields of the record are ignored). The fields
 * only some proofs have (`version`, `org_id` and `issuers` of a version-2 proof, `transfer_id` and
 * `transfer` of a transfer, `recovery`, an agent's `reason`) are left out when absent, so a proof signed before they existed keeps its canonical bytes.
 */
export function proofFacts(proof: ProofFacts): ProofFacts {
  return {
    ...(proof.version !== undefined ? { version: proof.version } : {}),
    ...(proof.org_id !== undefined ? { org_id: proof.org_id } : {}),
    ...(proof.issuers !== undefined ? { issuers: proof.issuers } : {}),
    proof_id: proof.proof_id,
    ...(proof.transfer_id !== undefined ? { transfer_id: proof.transfer_id } : {}),
    token_id: proof.token_id,
    decision: proof.decision,
    evaluated_at: proof.evaluated_at,
    ...(proof.transfer !== undefined ? { transfer: proof.transfer } : {}),
    ...(proof.recovery !== undefined ? { recovery: proof.recovery } : {}),
    ...(proof.reason !== undefined ? { reason: proof.reason } : {}),
    compliance_details: proof.compliance_details,
  }
}

/** Every jurisdiction a proof names: a transfer's source and target, where a recovery moved units. */
export function jurisdictionsNamedBy(proof: Pick<Proof, 'transfer' | 'recovery'>): string[] {
  const ids = new Set<string>()
  if (proof.transfer) ids.add(proof.transfer.from_jurisdiction).add(proof.transfer.to_jurisdiction)
  for (const h of proof.recovery?.moved ?? []) ids.add(h.jurisdiction)
  return [...ids].sort()
}
