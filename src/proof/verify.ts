import { createHash } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import canonicalizeModule from 'canonicalize'
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose'
import {
  type Jwks,
  type Proof,
  proofSchema,
  type TrustBundle,
  transferDetailSchema,
  transferSummarySchema,
} from '../contract/rwa.js'
import { externalRelianceProblems } from './external-attestation.js'
import { jurisdictionsNamedBy, PROOF_JWS_TYPE, type ProofFacts, proofFacts } from './facts.js'
import { duplicateKeyInJws } from './strict-jws.js'
import { issuerOf, trustedProofKey } from './trust.js'

export { jurisdictionsNamedBy, PROOF_JWS_TYPE, type ProofFacts, proofFacts } from './facts.js'

/*
 * Offline verification of compliance proofs, free of any server code: the server uses the same
 * functions to produce a proof, the CLI (`rwa proofs verify`) and the tests use them to check one.
 */

// canonicalize ships CommonJS typed as a default export; under NodeNext the callable may sit on .default.
const canonicalizeFn = ((canonicalizeModule as unknown as { default?: unknown }).default ??
  canonicalizeModule) as (input: unknown) => string | undefined

/**
 * The RFC 8785 (JCS) canonical JSON of a JSON value (proof facts, a log's audit event). A value of plain
 * JSON is copied with every object's keys in canonical order (`canonicalOrder`) and given to
 * `JSON.stringify`, whose strings and numbers are JCS's (RFC 8785 §3.2.2 defines both by ECMAScript's
 * serialization): about two thirds of the `canonicalize` package's CPU, which serializes anything else.
 */
export function canonicalJson(value: unknown, what = 'the value'): string {
  const ordered = canonicalOrder(value)
  const canonical = ordered !== undefined ? JSON.stringify(ordered) : canonicalizeFn(value)
  if (canonical === undefined) throw new Error(`${what} cannot be canonicalized`)
  return canonical
}

/**
 * A copy of a value of plain JSON with each object's keys inserted in RFC 8785 order (UTF-16 code
 * units, which is `Array.prototype.sort`'s), its `undefined` members left out and -0 made 0: what `JSON.parse` of
 * its canonical JSON gives, without making and parsing the text (docs/performance.md, "Fifth pass: the
 * batch"). `undefined` for anything else, which only `canonicalize` serializes as JCS says: a number
 * that is not finite, an object with `toJSON`, an `undefined` array element, a symbol, function or
 * bigint, a key that is an array index (an object lists those first, whatever order they are set in)
 * or `__proto__`.
 */
export function canonicalOrder(value: unknown): unknown {
  if (value === null) return value
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      // -0 + 0 is 0, as JSON gives it back.
      return Number.isFinite(value) ? value + 0 : undefined
    case 'object':
      return Array.isArray(value) ? orderedArray(value) : orderedObject(value as Record<string, unknown>)
    default:
      return undefined
  }
}

function orderedArray(values: unknown[]): unknown[] | undefined {
  const copy = new Array<unknown>(values.length)
  for (let i = 0; i < values.length; i++) {
    const ordered = canonicalOrder(values[i])
    if (ordered === undefined) return undefined
    copy[i] = ordered
  }
  return copy
}

/**
 * An object's keys in UTF-16 code unit order: by insertion for the few keys of most objects, which
 * spares `Array.prototype.sort`'s work array (8 % of the bytes a transfer in a batch allocated).
 */
function sortedKeys(object: object): string[] {
  const keys = Object.keys(object)
  if (keys.length > 16) return keys.sort()
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!
    let j = i - 1
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!
      j--
    }
    keys[j + 1] = key
  }
  return keys
}

/** An array index as a property key: `0`, or a digit 1–9 followed by digits. */
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/

function orderedObject(object: Record<string, unknown>): Record<string, unknown> | undefined {
  if (typeof object.toJSON === 'function') return undefined
  const copy: Record<string, unknown> = {}
  for (const key of sortedKeys(object)) {
    const member = object[key]
    if (member === undefined) continue
    const first = key.charCodeAt(0)
    if (first >= 48 && first <= 57 && INDEX_KEY.test(key)) return undefined
    // Assigned, `__proto__` would set the copy's prototype instead of a member.
    if (key === '__proto__') return undefined
    const ordered = canonicalOrder(member)
    if (ordered === undefined) return undefined
    copy[key] = ordered
  }
  return copy
}

/** The RFC 8785 (JCS) canonical JSON of the facts: the exact bytes the JWS signs. */
export function canonicalFacts(facts: ProofFacts): string {
  return canonicalJson(proofFacts(facts), 'proof facts')
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
  if (header.alg !== 'EdDSA')
    return { valid: false, reason: `unexpected alg ${String(header.alg)} (EdDSA expected)` }
  if (header.typ !== PROOF_JWS_TYPE)
    return { valid: false, reason: `unexpected typ ${String(header.typ)} (${PROOF_JWS_TYPE} expected)` }
  const duplicate = duplicateKeyInJws(proof.jws)
  if (duplicate) return { valid: false, reason: `the JWS is refused: ${duplicate}` }
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

/**
 * What `verifyProofTrusted` found: valid with notes, or the first reason it is not. `unknownToBundle`
 * says what the bundle lacks, the proof's key or an issuer it names: a bundle saved before a key
 * rotation (or a jurisdiction's registration) is the likely cause, more than a forgery.
 */
export type TrustedProofVerification =
  | { valid: true; kid: string; notes: string[] }
  | { valid: false; reason: string; unknownToBundle?: 'key' | 'issuer' }

/**
 * Verifies a proof against a trust bundle (docs/cli.md, "Auditing offline"): its key must be one of the
 * bundle's proof keys when it signed (`evaluated_at`), the digest and signature must hold (`verifyProof`),
 * and a version-2 proof must have been made for the bundle's organization, its `issuers` naming exactly the
 * jurisdictions of its facts, each with the bundle's issuer of that jurisdiction. A version-1 proof
 * (made before proofs named their organization) signs neither: it holds with a note saying so. A check
 * met by a trusted issuer's attestation names its issuer's DID and VC digest, which must hold against
 * the bundle (and, given `attestations` by id, be that attestation's): `externalRelianceProblems`.
 */
export async function verifyProofTrusted(
  proof: Proof,
  bundle: TrustBundle,
  options: { attestations?: ReadonlyMap<string, Record<string, unknown>> } = {},
): Promise<TrustedProofVerification> {
  const trusted = trustedProofKey(bundle, proof.kid, proof.evaluated_at)
  if ('reason' in trusted)
    return {
      valid: false,
      reason: trusted.reason,
      ...(bundle.proof_keys.keys.some((k) => k.kid === proof.kid) ? {} : { unknownToBundle: 'key' as const }),
    }
  const signature = await verifyProof(proof, bundle.proof_keys)
  if (!signature.valid) return signature
  const notes = [`key ${proof.kid} is a proof key of organization ${bundle.org_id}'s trust bundle`]
  if (proof.version === undefined) {
    notes.push('version-1 proof: it signs neither its organization nor its issuers')
    return { valid: true, kid: signature.kid, notes }
  }
  if (proof.org_id !== bundle.org_id) {
    return {
      valid: false,
      reason: `the proof was made for organization ${String(proof.org_id)}, not ${bundle.org_id} (the trust bundle's)`,
    }
  }
  const issuers = proof.issuers ?? {}
  const named = jurisdictionsNamedBy(proof)
  if (!isDeepStrictEqual(Object.keys(issuers).sort(), named)) {
    return {
      valid: false,
      reason: `the proof's issuers name ${Object.keys(issuers).sort().join(', ') || 'no jurisdiction'}, its facts ${named.join(', ')}`,
    }
  }
  for (const jurisdiction of named) {
    const expected = issuerOf(bundle, jurisdiction, proof.evaluated_at)
    if (issuers[jurisdiction] !== expected) {
      return {
        valid: false,
        reason: `the proof's issuer of ${jurisdiction} (${issuers[jurisdiction]}) is not the trust bundle's (${expected ?? 'none'})`,
        ...(expected === undefined ? { unknownToBundle: 'issuer' as const } : {}),
      }
    }
  }
  notes.push(`made for organization ${bundle.org_id}, by the issuers of ${named.join(', ')}`)
  const reliance = externalReliance(proof, bundle, options.attestations)
  if ('reason' in reliance) return { valid: false, reason: reliance.reason }
  if (reliance.note) notes.push(reliance.note)
  return { valid: true, kid: signature.kid, notes }
}

/**
 * The checks a proof met with trusted issuers' attestations (`externalRelianceProblems`): the first
 * problem, or a note on what held.
 */
function externalReliance(
  proof: Proof,
  bundle: TrustBundle,
  attestations: ReadonlyMap<string, Record<string, unknown>> | undefined,
): { reason: string } | { note?: string } {
  const [problem] = externalRelianceProblems(proof, bundle, attestations)
  if (problem) return { reason: `the proof's reliance on a trusted issuer does not hold: ${problem}` }
  const relied = proof.compliance_details.checks.filter((c) => c.vc_sha256 !== undefined).length
  if (relied === 0) return {}
  const checked = attestations
    ? 'each VC-JWT at hand with that digest'
    : 'their VC-JWTs not at hand, digests checked for form'
  return {
    note: `${relied === 1 ? '1 check' : `${relied} checks`} met by trusted issuers' attestations, each naming an issuer of the trust bundle trusted for it there and a VC digest (${checked})`,
  }
}

/** The fields of a saved transfer (`rwa transfers get ID --json`): a transfer detail has exactly these. */
export const TRANSFER_RECORD_FIELDS = Object.keys(transferDetailSchema.shape) as Array<
  keyof typeof transferDetailSchema.shape
>

/** A saved proof or transfer, read as what was signed: the proof, and the transfer record around it. */
export type ProofInput = { proof: Proof; transfer?: Record<string, unknown> } | { error: string }

/**
 * Reads a saved proof (`rwa proofs get ID --json`) or a saved transfer detail (`rwa transfers get ID
 * --json`): anything else — a wrapper of another shape, a field unknown to a proof, a missing one — is
 * refused rather than read around.
 */
export function proofInputOf(json: unknown): ProofInput {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { error: 'not a JSON object' }
  const object = json as Record<string, unknown>
  if ('proof' in object) {
    const unknown = Object.keys(object).filter(
      (k) => !(TRANSFER_RECORD_FIELDS as readonly string[]).includes(k),
    )
    if (unknown.length > 0)
      return { error: `a wrapper with field ${unknown.join(', ')} is not a saved transfer: refused` }
    const missing = TRANSFER_RECORD_FIELDS.filter((k) => !(k in object))
    if (missing.length > 0) return { error: `the saved transfer lacks ${missing.join(', ')}` }
    const proof = strictProof(object.proof)
    return 'error' in proof ? proof : { proof: proof.proof, transfer: object }
  }
  return strictProof(object)
}

function strictProof(json: unknown): { proof: Proof } | { error: string } {
  const fields = Object.keys(proofSchema.shape)
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { error: 'the proof is not an object' }
  const unknown = Object.keys(json).filter((k) => !fields.includes(k))
  if (unknown.length > 0) return { error: `field ${unknown.join(', ')} is not a field of a proof: refused` }
  const parsed = proofSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    return { error: `not a proof (${issue.path.join('.') || '(proof)'}: ${issue.message})` }
  }
  return { proof: parsed.data }
}

/** The fields of a transfer as a list shows it (`transferSummarySchema`): a summary has exactly these. */
export const TRANSFER_SUMMARY_FIELDS = Object.keys(transferSummarySchema.shape)

/**
 * The first field in which a saved transfer differs from the facts its proof signed, or undefined: a
 * transfer record is bound to a transfer's proof (`decision` approved, rejected or forced), field by
 * field, so an edited amount, recipient or status (a rejected transfer edited to approved) fails.
 * With `summary`, the transfer is as a list shows it (an audit bundle's): exactly the summary's fields,
 * its `compliance_details` the signed ones without their checks, and no `reason`.
 */
export function transferMismatch(
  transfer: Record<string, unknown>,
  proof: Proof,
  options: { summary?: boolean } = {},
): string | undefined {
  if (proof.transfer === undefined || proof.transfer_id === undefined) {
    return `the proof ${proof.proof_id} is a ${proof.decision} proof, not a transfer's: the wrapper is refused`
  }
  if (options.summary) {
    const unknown = Object.keys(transfer).filter((k) => !TRANSFER_SUMMARY_FIELDS.includes(k))
    if (unknown.length > 0) return `the transfer has field ${unknown.join(', ')}, which a transfer does not`
    const missing = TRANSFER_SUMMARY_FIELDS.filter((k) => !(k in transfer))
    if (missing.length > 0) return `the transfer lacks ${missing.join(', ')}`
  }
  const { checks: _checks, ...complianceSummary } = proof.compliance_details
  const signed: Array<[string, unknown]> = [
    ['transfer_id', proof.transfer_id],
    ['status', proof.decision],
    ['proof_id', proof.proof_id],
    ['token_id', proof.token_id],
    ['from_jurisdiction', proof.transfer.from_jurisdiction],
    ['to_jurisdiction', proof.transfer.to_jurisdiction],
    ['sender_did', proof.transfer.sender_did],
    ['recipient_did', proof.transfer.recipient_did],
    ['amount', proof.transfer.amount],
    ['created_at', proof.evaluated_at],
    ...(options.summary
      ? ([['compliance_details', complianceSummary]] as Array<[string, unknown]>)
      : ([
          ['reason', proof.reason ?? null],
          ['compliance_details', proof.compliance_details],
        ] as Array<[string, unknown]>)),
  ]
  for (const [field, value] of signed) {
    if (!isDeepStrictEqual(transfer[field], value)) {
      return `the transfer's ${field} (${JSON.stringify(transfer[field])}) differs from its signed proof (${JSON.stringify(value)})`
    }
  }
  return undefined
}
