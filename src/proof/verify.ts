import { createHash } from 'node:crypto'
import canonicalizeModule from 'canonicalize'
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose'
import type { Jwks, Proof } from '../contract/rwa.js'

/*
 * Offline verification of compliance proofs, free of any server code: the server uses the same
 * functions to produce a proof, the CLI (`rwa proofs verify`) and the tests use them to check one.
 */

// canonicalize ships CommonJS typed as a default export; under NodeNext the callable may sit on .default.
const canonicalizeFn = ((canonicalizeModule as unknown as { default?: unknown }).default ??
  canonicalizeModule) as (input: unknown) => string | undefined

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

/** The RFC 8785 (JCS) canonical JSON of the facts: the exact bytes the JWS signs. */
export function canonicalFacts(facts: ProofFacts): string {
  const canonical = canonicalizeFn(proofFacts(facts))
  if (canonical === undefined) throw new Error('proof facts cannot be canonicalized')
  return canonical
}

/** Lower-case hex SHA-256 of the canonical JSON of the facts: a proof's `digest`. */
export function proofDigest(facts: ProofFacts): string {
  return digestOfCanonical(canonicalFacts(facts))
}

/** `proofDigest` of facts already in canonical JSON (`canonicalFacts`), without canonicalizing again. */
export function digestOfCanonical(canonical: string): string {
  return createHash('sha256').update(canonical, 'utf8').digest('hex')
}

/** The outcome of `verifyProof`: valid, or the first reason it is not. */
export type ProofVerification = { valid: true; kid: string } | { valid: false; reason: string }

/**
 * Verifies a proof offline with the service's published JWKS
 * (`GET /console/rwa/.well-known/jwks.json`):
 * 1. recomputes the digest of the evaluated facts and compares it with `digest`;
 * 2. finds the key `kid` in the JWKS and checks the EdDSA signature of `jws`;
 * 3. checks that the signed payload is exactly the canonical JSON of the facts.
 *
 * @example
 * const jwks = await (await fetch(`${base}/console/rwa/.well-known/jwks.json`)).json()
 * const result = await verifyProof(proof, jwks) // { valid: true, kid } or { valid: false, reason }
 */
export async function verifyProof(proof: Proof, jwks: Jwks): Promise<ProofVerification> {
  let canonical: string
  try {
    canonical = canonicalFacts(proof)
  } catch {
    return { valid: false, reason: 'the proof facts cannot be canonicalized' }
  }
  if (digestOfCanonical(canonical) !== proof.digest)
    return { valid: false, reason: 'digest does not match the evaluated facts' }

  let header: ReturnType<typeof decodeProtectedHeader>
  try {
    header = decodeProtectedHeader(proof.jws)
  } catch {
    return { valid: false, reason: 'jws is not a compact JWS' }
  }
  if (header.kid !== proof.kid) return { valid: false, reason: 'the JWS kid differs from the proof kid' }
  const jwk = jwks.keys.find((key) => key.kid === proof.kid)
  if (!jwk) return { valid: false, reason: `no key ${proof.kid} in the JWKS` }

  try {
    const key = await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, 'EdDSA')
    const { payload } = await compactVerify(proof.jws, key, { algorithms: ['EdDSA'] })
    if (new TextDecoder().decode(payload) !== canonical) {
      return { valid: false, reason: 'the signed payload differs from the evaluated facts' }
    }
  } catch {
    return { valid: false, reason: 'the JWS signature does not verify with the published key' }
  }
  return { valid: true, kid: proof.kid }
}
