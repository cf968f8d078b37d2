import { isDeepStrictEqual } from 'node:util'
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose'
import { publicKeyOfDidKey, verificationMethodOf } from './did-key.js'

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
export interface VcRecord {
  vc_jwt: string
  credential_id?: string | null
  attestation_id?: string
  issuer_did?: string
  owner_did?: string
  subject_did?: string
  jurisdiction?: string
  property_data?: unknown
  type?: string
  attester?: string
  evidence?: string | null
  valid_until?: string | null
  status?: string
  revoked_at?: string | null
  revocation_reason?: string | null
}

/** What `verifyCredential` found: the signed claims when the signature holds, and the first problem. */
export type CredentialVerification =
  | { valid: true; claims: VcClaims; notes: string[] }
  | { valid: false; reason: string; claims?: VcClaims }

/**
 * Verifies a VC-JWT offline: its issuer is a did:key, the header's `kid` is that key's verification
 * method, the EdDSA signature holds with the key read from the DID, `iss` and the VC's `issuer` agree,
 * and `now` lies within `validFrom`..`validUntil`. Given the record the VC came with, also checks that
 * the record says what the signed VC says (a record edited around an untouched `vc_jwt` does not pass)
 * and that the record does not say it is revoked.
 *
 * Revocation since a record was saved cannot be seen offline: fetch the record again to know.
 *
 * @example
 * const result = await verifyCredential(credential.vc_jwt, { record: credential })
 * if (!result.valid) console.error(result.reason)
 */
export async function verifyCredential(
  vcJwt: string,
  options: { record?: VcRecord; now?: Date } = {},
): Promise<CredentialVerification> {
  let header: ReturnType<typeof decodeProtectedHeader>
  try {
    header = decodeProtectedHeader(vcJwt)
  } catch {
    return { valid: false, reason: 'vc_jwt is not a compact JWS' }
  }
  if (header.alg !== 'EdDSA')
    return { valid: false, reason: `unexpected alg ${String(header.alg)} (EdDSA expected)` }
  if (header.typ !== 'vc+jwt')
    return { valid: false, reason: `unexpected typ ${String(header.typ)} (vc+jwt expected)` }
  const kid = typeof header.kid === 'string' ? header.kid : ''
  const did = kid.split('#')[0]!
  const resolved = publicKeyOfDidKey(did)
  if ('error' in resolved)
    return { valid: false, reason: `the signing key cannot be resolved: ${resolved.error}` }
  if (kid !== verificationMethodOf(did)) {
    return { valid: false, reason: `kid ${kid} is not the verification method of ${did}` }
  }

  let claims: VcClaims
  try {
    const key = await importJWK(resolved.jwk, 'EdDSA')
    const { payload } = await compactVerify(vcJwt, key, { algorithms: ['EdDSA'] })
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

  const now = (options.now ?? new Date()).getTime()
  if (claims.validFrom && Date.parse(claims.validFrom) > now) {
    return { valid: false, reason: `not valid before ${claims.validFrom}`, claims }
  }
  if (claims.validUntil && Date.parse(claims.validUntil) <= now) {
    return { valid: false, reason: `expired at ${claims.validUntil}`, claims }
  }

  const notes: string[] = []
  if (options.record) {
    const mismatch = recordMismatch(options.record, claims)
    if (mismatch) return { valid: false, reason: mismatch, claims }
    if (options.record.status === 'revoked') {
      const why = options.record.revocation_reason ? ` (${options.record.revocation_reason})` : ''
      return {
        valid: false,
        reason: `the signature holds, but the record says it was revoked at ${options.record.revoked_at ?? '?'}${why}`,
        claims,
      }
    }
    if (options.record.status) notes.push(`status ${options.record.status} per the record`)
  } else notes.push('no record given: revocation status not checked')
  return { valid: true, claims, notes }
}

/** The first field in which a record differs from the VC it carries, or undefined. */
function recordMismatch(record: VcRecord, claims: VcClaims): string | undefined {
  const subject = claims.credentialSubject ?? {}
  const checks: Array<[string, unknown, unknown]> = [['issuer_did', record.issuer_did, claims.iss]]
  if (record.attestation_id === undefined && record.credential_id !== undefined) {
    checks.push(
      ['credential_id', `urn:rwa:credential:${record.credential_id}`, claims.jti],
      ['owner_did', record.owner_did, claims.sub],
      ['jurisdiction', record.jurisdiction, subject.jurisdiction],
      ['property_data', record.property_data, subject.property],
    )
  }
  if (record.attestation_id !== undefined) {
    checks.push(
      ['attestation_id', `urn:rwa:attestation:${record.attestation_id}`, claims.jti],
      ['subject_did', record.subject_did, claims.sub],
      ['jurisdiction', record.jurisdiction, subject.jurisdiction],
      ['type', record.type, subject.requirement],
      ['attester', record.attester, subject.attester],
      // Optional in the VC: absent there is null in the record.
      ['evidence', record.evidence ?? null, subject.evidence ?? null],
      [
        'credential_id',
        record.credential_id ? `urn:rwa:credential:${record.credential_id}` : null,
        subject.credential ?? null,
      ],
    )
  }
  for (const [field, inRecord, signed] of checks) {
    if (inRecord !== undefined && !isDeepStrictEqual(inRecord, signed)) {
      return `the record's ${field} (${JSON.stringify(inRecord)}) differs from the signed credential (${JSON.stringify(signed)})`
    }
  }
  const until = record.valid_until ?? null
  const signedUntil = claims.validUntil ?? null
  if (until !== null || signedUntil !== null) {
    if (until === null || signedUntil === null || Date.parse(until) !== Date.parse(signedUntil)) {
      return `the record's valid_until (${JSON.stringify(until)}) differs from the signed credential (${JSON.stringify(signedUntil)})`
    }
  }
  return undefined
}
