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
  // Assigned one by one: spreads of conditional objects cost some 5 µs a call, twice or more per
  // transfer (docs/performance.md, "Fifth pass: the batch").
  const facts = {} as { -readonly [K in keyof ProofFacts]: ProofFacts[K] }
  if (proof.version !== undefined) facts.version = proof.version
  if (proof.org_id !== undefined) facts.org_id = proof.org_id
  if (proof.issuers !== undefined) facts.issuers = proof.issuers
  facts.proof_id = proof.proof_id
  if (proof.transfer_id !== undefined) facts.transfer_id = proof.transfer_id
  facts.token_id = proof.token_id
  facts.decision = proof.decision
  facts.evaluated_at = proof.evaluated_at
  if (proof.transfer !== undefined) facts.transfer = proof.transfer
  if (proof.recovery !== undefined) facts.recovery = proof.recovery
  if (proof.reason !== undefined) facts.reason = proof.reason
  facts.compliance_details = proof.compliance_details
  return facts
}

/** Every jurisdiction a proof names: a transfer's source and target, where a recovery moved units. */
export function jurisdictionsNamedBy(proof: Pick<Proof, 'transfer' | 'recovery'>): string[] {
  const ids = new Set<string>()
  if (proof.transfer) ids.add(proof.transfer.from_jurisdiction).add(proof.transfer.to_jurisdiction)
  for (const h of proof.recovery?.moved ?? []) ids.add(h.jurisdiction)
  return [...ids].sort()
}
