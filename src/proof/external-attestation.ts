import { createHash } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import {
  externalAttestationSchema,
  type Proof,
  type TrustBundle,
  type TrustBundleExternalIssuer,
} from '../contract/rwa.js'
import { type TrustedIssuer, type VerifiedExternal, verifyExternalCredential } from './external-credential.js'

/*
 * A trusted issuer's attestation verified offline against a trust bundle (docs/issuers.md, "In the
 * trust bundle"): its VC-JWT checked by ./external-credential.ts (the server's own check) against the
 * bundle's `external_issuers`, and the record around it equal to what was signed. And the checks of a
 * proof that relied on one: each names the issuer's DID and the SHA-256 of the VC-JWT, which must be
 * well-formed, name an issuer of the bundle trusted for that requirement there, and, with the
 * attestation at hand, be its digest. Free of server code and of the network.
 */

/** The fields of a trusted issuer's attestation record, in the order the API writes them. */
export const EXTERNAL_ATTESTATION_RECORD_FIELDS = Object.keys(externalAttestationSchema.shape)

/** The lower-case hex SHA-256 of a VC-JWT, as submitted (its `vc_sha256`). */
export const vcSha256 = (vcJwt: string): string => createHash('sha256').update(vcJwt, 'utf8').digest('hex')

const HEX_SHA256 = /^[0-9a-f]{64}$/

/** The bundle's trusted issuers as the verifier of ./external-credential.ts takes them. */
export function bundleIssuers(bundle: TrustBundle): TrustedIssuer[] {
  return (bundle.external_issuers ?? []).map((i) => ({
    issuer_id: i.issuer_id,
    did: i.did,
    status: i.status,
    requirements: i.requirements,
    valid_until: i.valid_until,
    jurisdictions: i.jurisdictions,
    keys: i.keys.map((k) => ({ kid: k.kid, jwk: k.jwk, retired_at: k.retired_at })),
  }))
}

/** Whether a VC-JWT's (unverified) `iss` is one of the bundle's trusted issuers: where to send it. */
export function isExternalVc(vcJwt: string, bundle: TrustBundle): boolean {
  const dids = new Set((bundle.external_issuers ?? []).map((i) => i.did))
  try {
    const payload = JSON.parse(Buffer.from(vcJwt.split('.')[1] ?? '', 'base64url').toString('utf8'))
    return typeof payload?.iss === 'string' && dids.has(payload.iss)
  } catch {
    return false
  }
}

/** What `verifyExternalAttestation` found. */
export type ExternalAttestationVerification =
  | { valid: true; verified: VerifiedExternal; issuer: TrustedIssuer; notes: string[] }
  | { valid: false; reason: string; verified?: VerifiedExternal }

/**
 * Verifies a trusted issuer's VC-JWT against the trust bundle's `external_issuers`: signed (EdDSA) by a
 * key of that issuer (a retired key only what was signed before its `retired_at`), `iss` its DID, of a
 * VC type it is trusted for, and, unless `asRecorded`, within its validity at `now` with its issuer
 * active (see `verifyExternalCredential`). Given `jurisdiction`, the issuer must be trusted there.
 * Given the record it came with, the record must have exactly the fields of a trusted issuer's
 * attestation, each equal to what was signed: its subject, issuer (id and DID), requirement (one the
 * VC's types meet), types, digest, validity and status entries. Its status lists are not read here.
 */
export async function verifyExternalAttestation(
  vcJwt: string,
  options: {
    trust: TrustBundle
    record?: unknown
    now?: Date
    asRecorded?: boolean
    jurisdiction?: string
  },
): Promise<ExternalAttestationVerification> {
  const { trust } = options
  if (trust.external_issuers === undefined) {
    return {
      valid: false,
      reason: `the trust bundle of organization ${trust.org_id} lists no trusted issuers (saved before they existed): save a fresh one with \`rwa trust-bundle > trust.json\``,
    }
  }
  const verified = await verifyExternalCredential(vcJwt, bundleIssuers(trust), options.now ?? new Date(), {
    asRecorded: options.asRecorded === true,
  })
  if (!verified.ok) return { valid: false, reason: `${verified.detail} (${verified.reason})` }
  const issuer = verified.issuer
  if (options.jurisdiction !== undefined && !(issuer.jurisdictions ?? []).includes(options.jurisdiction)) {
    return {
      valid: false,
      reason: `issuer ${issuer.issuer_id} is trusted in ${(issuer.jurisdictions ?? []).join(', ') || 'no jurisdiction'}, not in ${options.jurisdiction} (issuer_not_trusted)`,
      verified,
    }
  }
  const notes = [
    `signed by ${issuer.issuer_id} (${issuer.did}), a trusted issuer of organization ${trust.org_id}'s bundle, for ${verified.requirements.join(', ')}`,
  ]
  if (options.record !== undefined) {
    const mismatch = externalRecordMismatch(options.record, vcJwt, verified)
    if (mismatch) return { valid: false, reason: mismatch, verified }
    notes.push('the record equals the signed facts, field by field')
  }
  return { valid: true, verified, issuer, notes }
}

const sameTime = (a: unknown, b: unknown) =>
  (a ?? null) === null || (b ?? null) === null
    ? (a ?? null) === null && (b ?? null) === null
    : typeof a === 'string' && typeof b === 'string' && Date.parse(a) === Date.parse(b)

/** The first way a record is not the record of the verified VC, or undefined. */
function externalRecordMismatch(
  input: unknown,
  vcJwt: string,
  verified: VerifiedExternal,
): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return 'the record is not an object'
  const record = input as Record<string, unknown>
  const fields = EXTERNAL_ATTESTATION_RECORD_FIELDS
  const unknown = Object.keys(record).filter((k) => !fields.includes(k))
  if (unknown.length > 0) {
    return `the record has field ${unknown.join(', ')}, which a trusted issuer's attestation record does not: refused`
  }
  const missing = fields.filter((k) => !(k in record))
  if (missing.length > 0)
    return `the record lacks ${missing.join(', ')}: an attestation record has every field`
  const claims = verified.claims
  type Check = [string, unknown, unknown, (a: unknown, b: unknown) => boolean]
  const checks: Check[] = [
    ['source', record.source, 'external', isDeepStrictEqual],
    ['vc_jwt', record.vc_jwt, vcJwt, isDeepStrictEqual],
    ['vc_sha256', record.vc_sha256, vcSha256(vcJwt), isDeepStrictEqual],
    ['issuer_did', record.issuer_did, verified.issuer.did, isDeepStrictEqual],
    ['issuer_id', record.issuer_id, verified.issuer.issuer_id, isDeepStrictEqual],
    ['subject_did', record.subject_did, verified.subject, isDeepStrictEqual],
    ...(claims.sub === undefined
      ? []
      : [['subject_did', record.subject_did, claims.sub, isDeepStrictEqual] as Check]),
    ['vc_types', record.vc_types, verified.vcTypes, isDeepStrictEqual],
    ['valid_from', record.valid_from, verified.validFrom, sameTime],
    ['valid_until', record.valid_until, verified.validUntil, sameTime],
    ['credential_status', record.credential_status, verified.credentialStatus, isDeepStrictEqual],
    ['jurisdiction', record.jurisdiction, null, isDeepStrictEqual],
  ]
  for (const [field, inRecord, signed, equal] of checks) {
    if (!equal(inRecord, signed)) {
      return `the record's ${field} (${JSON.stringify(inRecord)}) differs from the signed credential (${JSON.stringify(signed)})`
    }
  }
  if (typeof record.type !== 'string' || !verified.requirements.includes(record.type)) {
    return `the record's type ${JSON.stringify(record.type)} is not a requirement its issuer ${verified.issuer.issuer_id} is trusted for by its VC types (${verified.requirements.join(', ')})`
  }
  if (!['active', 'revoked', 'suspended'].includes(String(record.status))) {
    return `the record's status ${JSON.stringify(record.status)} is not a status`
  }
  if (typeof record.submitted_at !== 'string' || Number.isNaN(Date.parse(record.submitted_at))) {
    return `the record's submitted_at ${JSON.stringify(record.submitted_at)} is not a time`
  }
  return undefined
}

/** The bundle's trusted issuer of a DID, if it lists one. */
const issuerOfDid = (bundle: TrustBundle, did: string): TrustBundleExternalIssuer | undefined =>
  bundle.external_issuers?.find((i) => i.did === did)

/**
 * What does not hold in a proof's reliance on trusted issuers' attestations, checked against a trust
 * bundle: each check naming a `vc_sha256` names it as a lower-case hex SHA-256 beside an `issuer_did`,
 * that DID is a trusted issuer of the bundle, trusted for the check's requirement in its jurisdiction;
 * and, when `attestations` holds the check's evidence, that record is a trusted issuer's attestation by
 * that DID whose VC-JWT has that digest. A proof made before checks named them has nothing to check.
 * A bundle saved before trusted issuers existed (no `external_issuers`) can check the form only.
 */
export function externalRelianceProblems(
  proof: Pick<Proof, 'proof_id' | 'compliance_details'>,
  bundle: TrustBundle,
  attestations?: ReadonlyMap<string, Record<string, unknown>>,
): string[] {
  const problems: string[] = []
  for (const check of proof.compliance_details.checks) {
    const c = check as typeof check & { issuer_did?: unknown; vc_sha256?: unknown }
    if (c.vc_sha256 === undefined && c.issuer_did === undefined) continue
    const what = `its ${c.requirement} check in ${c.jurisdiction}`
    if (typeof c.vc_sha256 !== 'string' || !HEX_SHA256.test(c.vc_sha256)) {
      problems.push(`${what}: vc_sha256 ${JSON.stringify(c.vc_sha256)} is not a hex SHA-256`)
      continue
    }
    if (typeof c.issuer_did !== 'string') {
      problems.push(`${what}: names vc_sha256 without the issuer_did of its attestation`)
      continue
    }
    if (bundle.external_issuers !== undefined) {
      const issuer = issuerOfDid(bundle, c.issuer_did)
      if (!issuer) {
        problems.push(
          `${what}: ${c.issuer_did} is not a trusted issuer of organization ${bundle.org_id}'s trust bundle`,
        )
        continue
      }
      const types = issuer.requirements[c.requirement]
      if (!types || types.length === 0) {
        problems.push(
          `${what}: issuer ${issuer.issuer_id} is not trusted for ${c.requirement} per the trust bundle`,
        )
        continue
      }
      if (!issuer.jurisdictions.includes(c.jurisdiction)) {
        problems.push(
          `${what}: issuer ${issuer.issuer_id} is trusted in ${issuer.jurisdictions.join(', ')}, not in ${c.jurisdiction}, per the trust bundle`,
        )
        continue
      }
    }
    const record = c.evidence === null ? undefined : attestations?.get(c.evidence)
    if (attestations === undefined) continue
    if (!record) {
      problems.push(`${what}: its attestation ${String(c.evidence)} is not at hand`)
      continue
    }
    if (record.source !== 'external' || typeof record.vc_jwt !== 'string') {
      problems.push(`${what}: ${String(c.evidence)} is not a trusted issuer's attestation`)
      continue
    }
    if (vcSha256(record.vc_jwt) !== c.vc_sha256) {
      problems.push(
        `${what}: the VC-JWT of ${String(c.evidence)} has SHA-256 ${vcSha256(record.vc_jwt)}, the proof signed vc_sha256 ${c.vc_sha256}`,
      )
      continue
    }
    if (record.issuer_did !== c.issuer_did) {
      problems.push(
        `${what}: ${String(c.evidence)} is by ${String(record.issuer_did)}, the proof signed ${c.issuer_did}`,
      )
    }
  }
  return problems
}
