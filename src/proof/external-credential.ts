import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK } from 'jose'
import { decodeStatusList, formatAge, statusBit } from './status-list.js'
import { duplicateKeyInJws } from './strict-jws.js'

/*
 * Verification of a credential issued by a trusted issuer outside the organization (docs/issuers.md,
 * "Verification"): a VC-JWT signed with EdDSA by one of the issuer's Ed25519 keys, about a subject DID,
 * of a VC type the issuer is trusted for, within its validity, and, when it carries `credentialStatus`
 * entries (W3C Bitstring Status List, purposes `revocation` and `suspension`), neither revoked nor
 * suspended in the issuer's lists. Free of server code and of the network: the caller hands over the
 * registered issuers and a way to fetch a status list (the server's fetch under the address policy, a
 * cache, or a saved copy), so the server and an offline verifier decide alike.
 */

/** Why an external credential is refused: one of these, with a sentence. */
export type ExternalRefusal =
  | 'credential_malformed'
  | 'issuer_not_trusted'
  | 'issuer_not_trusted_for_type'
  | 'issuer_suspended'
  | 'signature_invalid'
  | 'credential_not_yet_valid'
  | 'credential_expired'
  | 'credential_revoked'
  | 'credential_suspended'
  | 'status_unavailable'

/** An issuer as the verifier needs it: the registry's record, its keys kept for life. */
export interface TrustedIssuer {
  issuer_id: string
  did: string
  status: 'active' | 'suspended' | 'removed'
  requirements: Record<string, string[]>
  valid_until: string | null
  keys: { kid: string; jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string }; retired_at: string | null }[]
  /** The jurisdictions that recognise its credentials (the registry's; an offline verifier may leave it out). */
  jurisdictions?: string[]
}

export type StatusPurpose = 'revocation' | 'suspension'

/** One `credentialStatus` entry of the credential. */
export interface ExternalStatusEntry {
  statusPurpose: StatusPurpose
  statusListCredential: string
  statusListIndex: number
}

export interface VerifiedExternal {
  ok: true
  issuer: TrustedIssuer
  subject: string
  /** Its `type`, as signed. */
  vcTypes: string[]
  /** The requirements it meets, by the issuer's requirements and its types (in the issuer's order). */
  requirements: string[]
  validFrom: string | null
  validUntil: string | null
  /** Its `credentialStatus` as signed (an entry, a list of them, or null). */
  credentialStatus: unknown
  entries: ExternalStatusEntry[]
  claims: Record<string, unknown>
}

export interface ExternalRefused {
  ok: false
  reason: ExternalRefusal
  detail: string
}

export type ExternalVerification = VerifiedExternal | ExternalRefused

const refuse = (reason: ExternalRefusal, detail: string): ExternalRefused => ({ ok: false, reason, detail })

/** A time claim of a VC (`validFrom`, or the JWT's seconds), as milliseconds, or undefined. */
function timeOf(iso: unknown, seconds: unknown): number | undefined {
  if (typeof iso === 'string' && !Number.isNaN(Date.parse(iso))) return Date.parse(iso)
  if (typeof seconds === 'number' && Number.isFinite(seconds)) return seconds * 1000
  return undefined
}

/** The entries of a `credentialStatus` (one or a list), or why they cannot be read. */
export function statusEntriesOf(status: unknown): ExternalStatusEntry[] | string {
  if (status === undefined || status === null) return []
  const list = Array.isArray(status) ? status : [status]
  const entries: ExternalStatusEntry[] = []
  for (const raw of list) {
    const e = (raw ?? {}) as Record<string, unknown>
    if (e.type !== 'BitstringStatusListEntry') return `credentialStatus of type ${String(e.type)} is not read`
    if (e.statusPurpose !== 'revocation' && e.statusPurpose !== 'suspension') {
      return `credentialStatus purpose ${String(e.statusPurpose)} is not read (revocation or suspension)`
    }
    if (typeof e.statusListIndex !== 'string' || !/^(0|[1-9][0-9]{0,9})$/.test(e.statusListIndex)) {
      return `statusListIndex ${JSON.stringify(e.statusListIndex)} is not a decimal string`
    }
    if (typeof e.statusListCredential !== 'string') return 'statusListCredential is not a URL'
    entries.push({
      statusPurpose: e.statusPurpose,
      statusListCredential: e.statusListCredential,
      statusListIndex: Number(e.statusListIndex),
    })
  }
  return entries
}

/**
 * Verifies a VC-JWT of an outside issuer, at `now`, against the registered issuers: the first refusal,
 * or what it is. Its status lists are not consulted here (`checkExternalStatus`).
 *
 * With `asRecorded` (an audit of records as they were kept: `rwa audit verify`), what was signed is
 * checked, not whether it may be relied on now: an issuer suspended or removed since still vouches for
 * what it signed, its `valid_until` is judged at the credential's signing (`validFrom`, else `iat`),
 * and the credential's own validity window is not.
 */
export async function verifyExternalCredential(
  vcJwt: string,
  issuers: readonly TrustedIssuer[],
  now: Date,
  options: { asRecorded?: boolean } = {},
): Promise<ExternalVerification> {
  const asRecorded = options.asRecorded === true
  let header: ReturnType<typeof decodeProtectedHeader>
  let unverified: Record<string, unknown>
  try {
    header = decodeProtectedHeader(vcJwt)
    unverified = decodeJwt(vcJwt) as Record<string, unknown>
  } catch {
    return refuse('credential_malformed', 'vc_jwt is not a compact JWS with a JSON payload')
  }
  const duplicate = duplicateKeyInJws(vcJwt)
  if (duplicate) return refuse('credential_malformed', `the VC-JWT is refused: ${duplicate}`)
  if (header.alg !== 'EdDSA') return refuse('signature_invalid', `alg ${String(header.alg)} (EdDSA expected)`)
  const iss = unverified.iss
  if (typeof iss !== 'string') return refuse('credential_malformed', 'the VC-JWT has no iss')
  const issuer = issuers.find((i) => i.did === iss && (asRecorded || i.status !== 'removed'))
  if (!issuer) return refuse('issuer_not_trusted', `${iss} is not a trusted issuer of the organization`)
  if (issuer.status === 'suspended' && !asRecorded) {
    return refuse('issuer_suspended', `issuer ${issuer.issuer_id} (${iss}) is suspended`)
  }
  if (!asRecorded && issuer.valid_until !== null && Date.parse(issuer.valid_until) <= now.getTime()) {
    return refuse('issuer_not_trusted', `issuer ${issuer.issuer_id} was trusted until ${issuer.valid_until}`)
  }
  const kid = typeof header.kid === 'string' ? header.kid : ''
  const key = issuer.keys.find((k) => k.kid === kid)
  if (!key) return refuse('signature_invalid', `kid ${kid || '(none)'} is not a key of ${iss}`)

  let claims: Record<string, unknown>
  try {
    const { payload } = await compactVerify(vcJwt, await importJWK(key.jwk, 'EdDSA'), {
      algorithms: ['EdDSA'],
    })
    claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>
  } catch {
    return refuse('signature_invalid', `the signature does not verify with ${kid}`)
  }
  const declaredIssuer =
    typeof claims.issuer === 'string' ? claims.issuer : (claims.issuer as { id?: unknown } | undefined)?.id
  if (declaredIssuer !== undefined && declaredIssuer !== iss) {
    return refuse('issuer_not_trusted', `its issuer ${String(declaredIssuer)} is not its iss ${iss}`)
  }
  const signedAt = timeOf(claims.validFrom, claims.iat)
  if (key.retired_at !== null && (signedAt === undefined || signedAt >= Date.parse(key.retired_at))) {
    return refuse('signature_invalid', `${kid} was retired at ${key.retired_at}, before this credential`)
  }
  if (
    asRecorded &&
    issuer.valid_until !== null &&
    (signedAt === undefined || signedAt >= Date.parse(issuer.valid_until))
  ) {
    return refuse(
      'issuer_not_trusted',
      `issuer ${issuer.issuer_id} was trusted until ${issuer.valid_until}, before this credential`,
    )
  }
  const subject = (claims.credentialSubject as { id?: unknown } | undefined)?.id
  if (typeof subject !== 'string' || !subject.startsWith('did:')) {
    return refuse('credential_malformed', 'credentialSubject.id is not a DID')
  }
  const vcTypes = Array.isArray(claims.type)
    ? claims.type.filter((t): t is string => typeof t === 'string')
    : []
  const requirements = Object.entries(issuer.requirements)
    .filter(([, types]) => types.some((t) => vcTypes.includes(t)))
    .map(([name]) => name)
  if (requirements.length === 0) {
    const trusted = [...new Set(Object.values(issuer.requirements).flat())]
    return refuse(
      'issuer_not_trusted_for_type',
      `issuer ${issuer.issuer_id} is trusted for ${trusted.join(', ')}, not for ${vcTypes.join(', ') || 'no type'}`,
    )
  }
  const validFrom = timeOf(claims.validFrom, claims.nbf)
  if (!asRecorded && validFrom !== undefined && validFrom > now.getTime()) {
    return refuse('credential_not_yet_valid', `valid only from ${new Date(validFrom).toISOString()}`)
  }
  const validUntil = timeOf(claims.validUntil, claims.exp)
  if (!asRecorded && validUntil !== undefined && validUntil <= now.getTime()) {
    return refuse('credential_expired', `expired at ${new Date(validUntil).toISOString()}`)
  }
  const entries = statusEntriesOf(claims.credentialStatus)
  if (typeof entries === 'string') return refuse('credential_malformed', entries)
  return {
    ok: true,
    issuer,
    subject,
    vcTypes,
    requirements,
    validFrom: validFrom === undefined ? null : new Date(validFrom).toISOString(),
    validUntil: validUntil === undefined ? null : new Date(validUntil).toISOString(),
    credentialStatus: claims.credentialStatus ?? null,
    entries,
    claims,
  }
}

/** A status list of an issuer that verified: its purpose, when it was signed, its bits. */
export interface ExternalStatusList {
  url: string
  purpose: StatusPurpose
  validFrom: string
  bits: Uint8Array
}

/**
 * Verifies the status list credential `listJwt` served at `url` as the issuer's: EdDSA, signed by one of
 * its keys (not one retired before the list's `validFrom`), its `iss` and `issuer` the issuer's DID, its
 * `id` the URL, a BitstringStatusListCredential of `purpose`, whose `encodedList` decodes. Its age is the
 * caller's to judge (it knows when it fetched it).
 */
export async function verifyExternalStatusList(
  listJwt: string,
  url: string,
  purpose: StatusPurpose,
  issuer: TrustedIssuer,
): Promise<ExternalStatusList | { reason: string }> {
  let list: Record<string, unknown>
  try {
    const duplicate = duplicateKeyInJws(listJwt)
    if (duplicate) throw new Error(duplicate)
    const header = decodeProtectedHeader(listJwt)
    if (header.alg !== 'EdDSA') throw new Error(`alg ${String(header.alg)} (EdDSA expected)`)
    const key = issuer.keys.find((k) => k.kid === header.kid)
    if (!key) throw new Error(`kid ${String(header.kid)} is not a key of ${issuer.did}`)
    const { payload } = await compactVerify(listJwt, await importJWK(key.jwk, 'EdDSA'), {
      algorithms: ['EdDSA'],
    })
    list = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>
    const signedAt = timeOf(list.validFrom, list.iat)
    if (key.retired_at !== null && (signedAt === undefined || signedAt >= Date.parse(key.retired_at))) {
      throw new Error(`${key.kid} was retired at ${key.retired_at}, before this list`)
    }
  } catch (error) {
    return { reason: `the status list ${url} does not verify: ${(error as Error).message}` }
  }
  const declaredIssuer =
    typeof list.issuer === 'string' ? list.issuer : (list.issuer as { id?: unknown } | undefined)?.id
  if (list.iss !== issuer.did || declaredIssuer !== issuer.did) {
    return { reason: `the status list ${url} is not the issuer's (iss ${String(list.iss)})` }
  }
  if (list.id !== url) return { reason: `the status list served at ${url} is ${String(list.id)}` }
  const types = Array.isArray(list.type) ? list.type : []
  const subject = (list.credentialSubject ?? {}) as { statusPurpose?: unknown; encodedList?: unknown }
  if (!types.includes('BitstringStatusListCredential') || subject.statusPurpose !== purpose) {
    return { reason: `${url} is not a ${purpose} BitstringStatusListCredential` }
  }
  let bits: Uint8Array
  try {
    bits = decodeStatusList(String(subject.encodedList))
  } catch (error) {
    return { reason: `the encodedList of ${url} cannot be decoded: ${(error as Error).message}` }
  }
  const validFrom = timeOf(list.validFrom, list.iat)
  return {
    url,
    purpose,
    validFrom: validFrom === undefined ? '' : new Date(validFrom).toISOString(),
    bits,
  }
}

/** A status list as the caller has it: fetched at `fetchedAt`, or why it could not be had. */
export type FetchedList = { listJwt: string; fetchedAt: string } | { error: string; since?: string }

/**
 * The status of a credential in its issuer's lists: each entry's list (`fetchList`) must verify and be
 * fetched at most `maxAgeMs` before `now`; a revocation bit set is `credential_revoked`, a suspension bit
 * `credential_suspended`; a list that cannot be had, or is older, `status_unavailable` (fail closed).
 */
export async function checkExternalStatus(
  verified: Pick<VerifiedExternal, 'entries' | 'issuer'>,
  fetchList: (url: string) => Promise<FetchedList>,
  options: { now: Date; maxAgeMs: number; label?: string },
): Promise<{ ok: true } | ExternalRefused> {
  const label = options.label ?? 'the credential'
  for (const entry of verified.entries) {
    const fetched = await fetchList(entry.statusListCredential)
    if ('error' in fetched) {
      return refuse(
        'status_unavailable',
        `status of ${label} unknown${fetched.since ? ` since ${fetched.since}` : ''}: ${fetched.error}`,
      )
    }
    const age = options.now.getTime() - Date.parse(fetched.fetchedAt)
    if (age > options.maxAgeMs) {
      return refuse(
        'status_unavailable',
        `status of ${label} unknown since ${fetched.fetchedAt}: its ${entry.statusPurpose} list is older than ${formatAge(options.maxAgeMs)}`,
      )
    }
    const list = await verifyExternalStatusList(
      fetched.listJwt,
      entry.statusListCredential,
      entry.statusPurpose,
      verified.issuer,
    )
    if ('reason' in list) return refuse('status_unavailable', `status of ${label} unknown: ${list.reason}`)
    if (entry.statusListIndex >= list.bits.length * 8) {
      return refuse(
        'status_unavailable',
        `status of ${label} unknown: index ${entry.statusListIndex} is outside a list of ${list.bits.length * 8} entries`,
      )
    }
    if (statusBit(list.bits, entry.statusListIndex)) {
      return entry.statusPurpose === 'revocation'
        ? refuse('credential_revoked', `${label} is revoked in ${entry.statusListCredential}`)
        : refuse('credential_suspended', `${label} is suspended in ${entry.statusListCredential}`)
    }
  }
  return { ok: true }
}
