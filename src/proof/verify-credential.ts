import { isDeepStrictEqual } from 'node:util'
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose'
import type { TrustBundle } from '../contract/rwa.js'
import { publicKeyOfDidKey, verificationMethodOf } from './did-key.js'
import { duplicateKeyInJws } from './strict-jws.js'
import { untrustedIssuer } from './trust.js'

/*
 * Offline verification of the service's Verifiable Credentials (credentials and attestations carry
 * `vc_jwt`: a W3C VC 2.0 as a JOSE JWT, `typ: vc+jwt`, EdDSA, signed by the issuing jurisdiction's
 * did:key). Free of server code and of the network: the issuer's key is read from its DID.
 */

/** The claims of a VC-JWT this service issues (the VC itself plus the JWT's mirrors of it). */
export interface VcClaims {
  iss: string
  sub: string
  jti: string
  iat: number
  id: string
  type: string[]
  issuer: string
  validFrom: string
  validUntil?: string
  credentialSubject: Record<string, unknown> & { id: string }
  [claim: string]: unknown
}

/** A record of this service that carries a VC: a credential (`cred_`) or an attestation (`att_`). */
export type VcRecord = Record<string, unknown> & { vc_jwt: string }

/** The fields of each record, in the order the API writes them: a record has exactly these. */
export const CREDENTIAL_RECORD_FIELDS = [
  'credential_id',
  'type',
  'jurisdiction',
  'owner_did',
  'property_data',
  'status',
  'issuer_did',
  'issued_at',
  'valid_until',
  'revoked_at',
  'revocation_reason',
  'vc_jwt',
  'credential_status',
] as const
export const ATTESTATION_RECORD_FIELDS = [
  'attestation_id',
  'source',
  'jurisdiction',
  'subject_did',
  'type',
  'attester',
  'credential_id',
  'evidence',
  'issuer_did',
  'issued_at',
  'valid_until',
  'vc_jwt',
  'credential_status',
  'status',
  'revoked_at',
  'revocation_reason',
] as const
/** Fields an attestation saved before attestations could be revoked lacks (an older record). */
const ATTESTATION_LATER_FIELDS = new Set(['status', 'revoked_at', 'revocation_reason', 'source'])

/** What a VC says it is, by what was signed: its `type` and its id's prefix. */
export type VcKind = 'credential' | 'attestation'

/** The kind of a VC of this service by its signed type and id, or undefined for anything else. */
export function kindOf(claims: VcClaims): VcKind | undefined {
  const types = Array.isArray(claims.type) ? claims.type : []
  if (types.includes('PropertyOwnershipCredential') && String(claims.jti).startsWith('urn:rwa:credential:'))
    return 'credential'
  if (
    types.includes('RegulatoryAttestationCredential') &&
    String(claims.jti).startsWith('urn:rwa:attestation:')
  )
    return 'attestation'
  return undefined
}

/** What `verifyCredential` found: the signed claims when the signature holds, and the first problem. */
export type CredentialVerification =
  | { valid: true; claims: VcClaims; kind: VcKind; notes: string[] }
  | { valid: false; reason: string; claims?: VcClaims }

/**
 * Verifies a VC-JWT offline: its issuer is a did:key, the header's `kid` is that key's verification
 * method, the EdDSA signature holds with the key read from the DID, `iss` and the VC's `issuer` agree,
 * it is a credential or an attestation of this service, and `now` lies within `validFrom`..`validUntil`.
 * With a trust bundle, the issuer must be the bundle's issuer of the VC's jurisdiction when it signed
 * (otherwise "signature valid, issuer not trusted"). Given the record the VC came with, the record must
 * be exactly a record of the kind that was signed, equal to the signed VC field by field (a record
 * edited, with a field deleted or an unknown field added, around an untouched `vc_jwt` does not pass),
 * and not say it is revoked.
 *
 * Revocation since a record was saved is seen through the status list (`checkRevocation`).
 *
 * With `asRecorded` (an audit of records as they were kept: `rwa audit verify`), what was signed and
 * recorded is checked, not whether it may be relied on now: no validity window (a credential that
 * expired, or one issued on a server whose clock is ahead, is still the record it was), and a record
 * saying it is revoked is not a failure (the caller checks it against the status list and the log).
 *
 * @example
 * const result = await verifyCredential(credential.vc_jwt, { record: credential, trust: bundle })
 * if (!result.valid) console.error(result.reason)
 */
export async function verifyCredential(
  vcJwt: string,
  options: { record?: unknown; trust?: TrustBundle; now?: Date; asRecorded?: boolean } = {},
): Promise<CredentialVerification> {
  let header: ReturnType<typeof decodeProtectedHeader>
  try {
    header = decodeProtectedHeader(vcJwt)
  } catch {
    return { valid: false, reason: 'vc_jwt is not a compact JWS' }
  }
  const duplicate = duplicateKeyInJws(vcJwt)
  if (duplicate) return { valid: false, reason: `the VC-JWT is refused: ${duplicate}` }
  if (header.alg !== 'EdDSA')
    return { valid: false, reason: `unexpected alg ${String(header.alg)} (EdDSA expected)` }
  if (header.typ !== 'vc+jwt')
    return { valid: false, reason: `unexpected typ ${String(header.typ)} (vc+jwt expected)` }
  const kid = typeof header.kid === 'string' ? header.kid : ''
  const did = kid.split('#')[0]!
  const key = keyOfDid(did)
  if ('error' in key) return { valid: false, reason: `the signing key cannot be resolved: ${key.error}` }
  if (kid !== verificationMethodOf(did)) {
    return { valid: false, reason: `kid ${kid} is not the verification method of ${did}` }
  }

  let claims: VcClaims
  try {
    const { payload } = await compactVerify(vcJwt, await key.imported, { algorithms: ['EdDSA'] })
    claims = JSON.parse(new TextDecoder().decode(payload)) as VcClaims
  } catch {
    return { valid: false, reason: `the signature does not verify with the key of ${did}` }
  }
  if (claims.iss !== did || claims.issuer !== did) {
    return {
      valid: false,
      reason: `the issuer (iss ${claims.iss}, issuer ${claims.issuer}) is not the signer ${did}`,
      claims,
    }
  }
  const kind = kindOf(claims)
  if (!kind) {
    return {
      valid: false,
      reason: 'not a credential or attestation of this service (its signed type and id)',
      claims,
    }
  }
  const subject = (claims.credentialSubject ?? {}) as Record<string, unknown>
  if (options.trust) {
    const jurisdiction = typeof subject.jurisdiction === 'string' ? subject.jurisdiction : undefined
    const untrusted = untrustedIssuer(options.trust, did, jurisdiction, String(claims.validFrom))
    if (untrusted) return { valid: false, reason: untrusted, claims }
  }

  const now = (options.now ?? new Date()).getTime()
  if (!options.asRecorded && claims.validFrom && Date.parse(claims.validFrom) > now) {
    return { valid: false, reason: `not valid before ${claims.validFrom}`, claims }
  }
  if (!options.asRecorded && claims.validUntil && Date.parse(claims.validUntil) <= now) {
    return { valid: false, reason: `expired at ${claims.validUntil}`, claims }
  }

  const notes: string[] = []
  if (options.trust) notes.push(`issuer trusted by the bundle of organization ${options.trust.org_id}`)
  if (options.record !== undefined) {
    const mismatch = recordMismatch(options.record, vcJwt, kind, claims)
    if (mismatch) return { valid: false, reason: mismatch, claims }
    const record = options.record as Record<string, unknown>
    if (record.status === 'revoked' && !options.asRecorded) {
      const why = record.revocation_reason ? ` (${String(record.revocation_reason)})` : ''
      return {
        valid: false,
        reason: `the signature holds, but the record says it was revoked at ${String(record.revoked_at ?? '?')}${why}`,
        claims,
      }
    }
    if (record.status === 'suspended' && !options.asRecorded) {
      return {
        valid: false,
        reason: 'the signature holds, but the record says it is suspended (not valid until reinstated)',
        claims,
      }
    }
    notes.push('the record equals the signed facts, field by field')
  }
  return { valid: true, claims, kind, notes }
}

/** The keys of the issuers seen last, imported once: an audit bundle has thousands of VCs of a few. */
const importedKeys = new Map<string, { imported: ReturnType<typeof importJWK> } | { error: string }>()
const IMPORTED_KEYS_KEPT = 64

/** The Ed25519 key a did:key names, imported for jose (or why it names none), from the cache. */
function keyOfDid(did: string): { imported: ReturnType<typeof importJWK> } | { error: string } {
  let key = importedKeys.get(did)
  if (!key) {
    const resolved = publicKeyOfDidKey(did)
    key = 'error' in resolved ? resolved : { imported: importJWK(resolved.jwk, 'EdDSA') }
    // A key that does not import is a signature that does not verify (caught there), not a cached one.
    if ('imported' in key) key.imported.catch(() => importedKeys.delete(did))
    if (importedKeys.size >= IMPORTED_KEYS_KEPT) importedKeys.delete(importedKeys.keys().next().value!)
    importedKeys.set(did, key)
  }
  return key
}

const same = (a: unknown, b: unknown) => isDeepStrictEqual(a, b)
const sameTime = (a: unknown, b: unknown) =>
  (a ?? null) === null || (b ?? null) === null
    ? (a ?? null) === null && (b ?? null) === null
    : typeof a === 'string' && typeof b === 'string' && Date.parse(a) === Date.parse(b)

/**
 * The first way a record is not the record of the signed VC, or undefined: it must be an object with
 * exactly the fields of a record of the kind that was signed (none missing, none unknown), each equal
 * to what was signed; the unsigned ones (`status`, `revoked_at`, `revocation_reason`) consistent.
 */
function recordMismatch(input: unknown, vcJwt: string, kind: VcKind, claims: VcClaims): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return 'the record is not an object'
  const record = input as Record<string, unknown>
  const fields: readonly string[] =
    kind === 'credential' ? CREDENTIAL_RECORD_FIELDS : ATTESTATION_RECORD_FIELDS
  const unknown = Object.keys(record).filter((k) => !fields.includes(k))
  if (unknown.length > 0) {
    return `the record has field ${unknown.join(', ')}, which a ${kind} record does not: refused (the signed VC is a ${kind})`
  }
  const optional = kind === 'attestation' ? ATTESTATION_LATER_FIELDS : new Set<string>()
  const missing = fields.filter((k) => !(k in record) && !optional.has(k))
  if (missing.length > 0) return `the record lacks ${missing.join(', ')}: a ${kind} record has every field`

  // An attestation of this service is the organization's own (`source: self`, absent from older records).
  if (kind === 'attestation' && 'source' in record && record.source !== 'self') {
    return `the record's source ${JSON.stringify(record.source)} is not that of an attestation the organization signed (self)`
  }
  const subject = (claims.credentialSubject ?? {}) as Record<string, unknown>
  const id = String(claims.jti).slice(`urn:rwa:${kind}:`.length)
  const checks: Array<[string, unknown, unknown, (a: unknown, b: unknown) => boolean]> = [
    ['vc_jwt', record.vc_jwt, vcJwt, same],
    ['issuer_did', record.issuer_did, claims.iss, same],
    ['jurisdiction', record.jurisdiction, subject.jurisdiction, same],
    ['issued_at', record.issued_at, claims.validFrom, sameTime],
    ['valid_until', record.valid_until, claims.validUntil ?? null, sameTime],
    ['credential_status', record.credential_status, claims.credentialStatus ?? null, same],
  ]
  if (kind === 'credential') {
    checks.unshift(
      ['credential_id', record.credential_id, id, same],
      ['type', record.type, 'PropertyOwnership', same],
      ['owner_did', record.owner_did, claims.sub, same],
      ['owner_did', record.owner_did, subject.id, same],
      ['property_data', record.property_data, subject.property, same],
    )
  } else {
    const credential = typeof subject.credential === 'string' ? subject.credential : null
    checks.unshift(
      ['attestation_id', record.attestation_id, id, same],
      ['subject_did', record.subject_did, claims.sub, same],
      ['subject_did', record.subject_did, subject.id, same],
      ['type', record.type, subject.requirement, same],
      ['attester', record.attester, subject.attester, same],
      ['evidence', record.evidence, subject.evidence ?? null, same],
      [
        'credential_id',
        record.credential_id,
        credential?.startsWith('urn:rwa:credential:') ? credential.slice('urn:rwa:credential:'.length) : null,
        same,
      ],
    )
  }
  for (const [field, inRecord, signed, equal] of checks) {
    if (!equal(inRecord, signed)) {
      return `the record's ${field} (${JSON.stringify(inRecord)}) differs from the signed ${kind} (${JSON.stringify(signed)})`
    }
  }
  const status = record.status ?? 'active'
  if (status !== 'active' && status !== 'suspended' && status !== 'revoked')
    return `the record's status ${JSON.stringify(status)} is not a status`
  if (
    status !== 'revoked' &&
    ((record.revoked_at ?? null) !== null || (record.revocation_reason ?? null) !== null)
  ) {
    return `the record says ${String(status)} but carries a revocation`
  }
  return undefined
}
