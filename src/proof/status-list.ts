import { gunzipSync, gzipSync } from 'node:zlib'
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK } from 'jose'
import { publicKeyOfDidKey, verificationMethodOf } from './did-key.js'
import { duplicateKeyInJws } from './strict-jws.js'

/*
 * W3C Bitstring Status List v1.0: the bitstring a status list credential publishes, and the check any
 * verifier makes of a credential's `credentialStatus`. Free of server code: the server encodes its
 * lists with these functions, the CLI and the tests check credentials with them.
 */

/** The fewest entries a list may have (16 KiB of bits), so one list says little about any one credential. */
export const STATUS_LIST_MIN_BITS = 131_072

/** An empty bitstring of `bits` entries (all 0: nothing revoked). */
export const emptyBitstring = (bits = STATUS_LIST_MIN_BITS): Uint8Array => new Uint8Array(Math.ceil(bits / 8))

/** The bit at `index`: index 0 is the left-most (most significant) bit of the first byte. */
export function statusBit(bits: Uint8Array, index: number): boolean {
  return ((bits[index >> 3]! >> (7 - (index & 7))) & 1) === 1
}

/** Sets the bit at `index` to 1. */
export function setStatusBit(bits: Uint8Array, index: number): void {
  bits[index >> 3]! |= 1 << (7 - (index & 7))
}

/** `encodedList`: the multibase (`u`) base64url, without padding, of the GZIP-compressed bitstring. */
export function encodeStatusList(bits: Uint8Array): string {
  return `u${gzipSync(bits).toString('base64url')}`
}

/**
 * The most a verifier gunzips of an `encodedList` (docs/cli.md, "Auditing offline"): a gzip bomb stops there.
 */
export const STATUS_LIST_MAX_GUNZIPPED = 16 * 1024 * 1024

/**
 * The bitstring of an `encodedList`; throws when it is not multibase base64url of GZIP data, or when it
 * would gunzip to more than `STATUS_LIST_MAX_GUNZIPPED` bytes.
 */
export function decodeStatusList(encodedList: string): Uint8Array {
  if (!encodedList.startsWith('u')) throw new Error('encodedList must start with the multibase prefix "u"')
  try {
    return new Uint8Array(
      gunzipSync(Buffer.from(encodedList.slice(1), 'base64url'), {
        maxOutputLength: STATUS_LIST_MAX_GUNZIPPED,
      }),
    )
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new Error(`it gunzips to more than ${STATUS_LIST_MAX_GUNZIPPED} bytes`)
    }
    throw error
  }
}

/** The `credentialStatus` entry of a credential, as this service writes it. */
export interface StatusEntry {
  type: string
  statusPurpose: string
  statusListIndex: string
  statusListCredential: string
}

/** What `checkRevocation` found. */
export type RevocationCheck =
  | {
      /** `suspended`: its suspension bit is set (not valid until reinstated); `revoked` wins over it. */
      status: 'active' | 'revoked' | 'suspended'
      statusListCredential: string
      statusListIndex: number
      /** The list's `validFrom`: when it was signed. */
      validFrom: string
    }
  | { status: 'unknown'; reason: string }

/**
 * How old a status list may be by default (`--max-status-age`, default 24h: docs/cli.md, "Auditing offline").
 */
export const DEFAULT_MAX_STATUS_AGE_MS = 24 * 60 * 60 * 1000

/** How far in the future a list's `validFrom` may lie (clocks differ a little). */
const CLOCK_SKEW_MS = 60_000

export interface RevocationOptions {
  /** The time of the check (default: now). */
  now?: Date
  /** The oldest list accepted, by its `validFrom` (default 24 hours). */
  maxAgeMs?: number
  /** The purpose the list must have (`verifyStatusList`; default `revocation`). */
  purpose?: 'revocation' | 'suspension'
}

/**
 * Checks whether a VC-JWT has been revoked, as any verifier would (the W3C Bitstring Status List
 * validation algorithm, fail-closed): read its `credentialStatus`, fetch the status list credential it
 * names (`fetchList(url)` returns the raw VC-JWT), and accept the list only when
 * - it is an EdDSA `vc+jwt` whose `kid` is the verification method of its `iss`, and the signature
 *   holds with the key of that did:key;
 * - its `iss`, its `issuer` and the credential's issuer are one DID (a list signed by any other key,
 *   even served at the URL, is refused);
 * - its `id` is the `statusListCredential` URL the credential names (a list of another URL is refused);
 * - its `validFrom` (the signing time) is no older than `maxAgeMs` and not in the future, and its
 *   `validUntil`, if any, has not passed (an old genuine list cannot be replayed);
 * - it is a `revocation` BitstringStatusListCredential whose `encodedList` decodes (at most 16 MiB
 *   gunzipped) to at least 131,072 entries, the index among them;
 * - and when the VC carries a `suspension` entry too (docs/governance.md, "Suspension"), the same of
 *   that list, a `suspension` one: a set bit there is `suspended` (not valid while set).
 * Anything else is `unknown` with the reason: the caller fails closed on it. The credential's own
 * signature is not checked here: verify it first (`verifyCredential`, with a trust bundle), since an
 * unsigned VC names whatever URL its forger likes, and this fetches it.
 *
 * @example
 * const result = await checkRevocation(credential.vc_jwt, async (url) => (await fetch(url)).text())
 * // { status: 'revoked' | 'suspended' | 'active', ... } | { status: 'unknown', reason }
 */
export async function checkRevocation(
  vcJwt: string,
  fetchList: (url: string) => Promise<string>,
  options: RevocationOptions = {},
): Promise<RevocationCheck> {
  let vc: Record<string, unknown>
  try {
    vc = decodeJwt(vcJwt)
  } catch {
    return { status: 'unknown', reason: 'not a JWT' }
  }
  const entry = statusEntryOf(vc)
  if ('reason' in entry) return { status: 'unknown', reason: entry.reason }
  let listJwt: string
  try {
    listJwt = (await fetchList(entry.url)).trim()
  } catch (error) {
    return { status: 'unknown', reason: `cannot fetch ${entry.url}: ${(error as Error).message}` }
  }
  const list = await verifyStatusList(listJwt, entry.url, options)
  if ('reason' in list) return { status: 'unknown', reason: list.reason }
  const revocation = statusInList(vc, entry, list)
  if (revocation.status !== 'active') return revocation
  // Its suspension entry, when it carries one (docs/governance.md, "Suspension"): the same checks of
  // its list, a `suspension` list; a set bit is `suspended`, a list that does not verify is unknown.
  const suspension = suspensionEntryOf(vc)
  if (suspension === undefined) return revocation
  if ('reason' in suspension) return { status: 'unknown', reason: suspension.reason }
  let suspensionJwt: string
  try {
    suspensionJwt = (await fetchList(suspension.url)).trim()
  } catch (error) {
    return { status: 'unknown', reason: `cannot fetch ${suspension.url}: ${(error as Error).message}` }
  }
  const suspensionList = await verifyStatusList(suspensionJwt, suspension.url, {
    ...options,
    purpose: 'suspension',
  })
  if ('reason' in suspensionList) return { status: 'unknown', reason: suspensionList.reason }
  const bit = statusInList(vc, suspension, suspensionList)
  if (bit.status === 'unknown') return bit
  return bit.status === 'revoked' ? { ...bit, status: 'suspended' } : revocation
}

/** The entries of a `credentialStatus` as signed: one entry or a list of them (none when absent). */
export function statusEntriesOf(credentialStatus: unknown): StatusEntry[] {
  if (credentialStatus === undefined || credentialStatus === null) return []
  return (Array.isArray(credentialStatus) ? credentialStatus : [credentialStatus]) as StatusEntry[]
}

/** The position an entry names, or why it names none this verifier reads. */
function positionOf(
  entry: StatusEntry,
  purpose: 'revocation' | 'suspension',
): StatusPosition | { reason: string } {
  if (
    !entry ||
    typeof entry !== 'object' ||
    entry.type !== 'BitstringStatusListEntry' ||
    entry.statusPurpose !== purpose
  ) {
    return { reason: `unsupported credentialStatus ${entry?.type}/${entry?.statusPurpose}` }
  }
  if (typeof entry.statusListIndex !== 'string' || !/^(0|[1-9][0-9]{0,9})$/.test(entry.statusListIndex)) {
    return { reason: `statusListIndex ${JSON.stringify(entry.statusListIndex)} is not a decimal string` }
  }
  const url = entry.statusListCredential
  if (typeof url !== 'string') return { reason: 'statusListCredential is not a URL' }
  return { url, index: Number(entry.statusListIndex) }
}

/**
 * The position of a VC's suspension bit (its `credentialStatus` entry of purpose `suspension`), or
 * undefined when it carries none (issued before suspension lists), or why it cannot be read.
 */
export function suspensionEntryOf(
  vc: Record<string, unknown>,
): StatusPosition | { reason: string } | undefined {
  const entry = statusEntriesOf(vc.credentialStatus).find(
    (e) => e && typeof e === 'object' && e.statusPurpose === 'suspension',
  )
  return entry === undefined ? undefined : positionOf(entry, 'suspension')
}

/** Where a VC's revocation bit is: its status list's URL and the index in it. */
export interface StatusPosition {
  url: string
  index: number
}

/**
 * The position a VC's `credentialStatus` names (the VC's claims, signed or not), or why it names none
 * this verifier reads: `absent` when the VC has no `credentialStatus` (issued before status lists).
 */
export function statusEntryOf(
  vc: Record<string, unknown>,
): StatusPosition | { reason: string; absent?: true } {
  const entries = statusEntriesOf(vc.credentialStatus)
  if (entries.length === 0 || typeof entries[0] !== 'object')
    return { reason: 'the credential carries no credentialStatus (issued before status lists)', absent: true }
  // One entry (issued before suspension lists) or a list: its revocation entry, and nothing unknown.
  const unknown = entries.find(
    (e) =>
      !e || typeof e !== 'object' || (e.statusPurpose !== 'revocation' && e.statusPurpose !== 'suspension'),
  )
  if (unknown) return { reason: `unsupported credentialStatus ${unknown?.type}/${unknown?.statusPurpose}` }
  const revocation = entries.filter((e) => e.statusPurpose === 'revocation')
  if (revocation.length !== 1 || entries.length > 2) {
    return { reason: `the credentialStatus has ${revocation.length} revocation entries (one expected)` }
  }
  return positionOf(revocation[0]!, 'revocation')
}

/** A status list credential that verified (`verifyStatusList`): who signed it, when, and its bits. */
export interface VerifiedStatusList {
  url: string
  /** Its `iss` and its `issuer`, one DID. */
  issuer: string
  /** Its `validFrom`: when it was signed. */
  validFrom: string
  bits: Uint8Array
}

/**
 * Verifies the status list credential `listJwt` served at `url`, by itself (what `checkRevocation`
 * requires of a list, except that its issuer be the credential's: `statusInList` checks that): an
 * EdDSA `vc+jwt` signed by the did:key of its `iss`, that `iss` its `issuer`, its `id` the URL, signed
 * no longer than `maxAgeMs` before `now` and not after, not expired, a BitstringStatusListCredential
 * of the purpose asked (`revocation` unless `options.purpose` says otherwise) of at least 131,072
 * entries. Or why not.
 */
export async function verifyStatusList(
  listJwt: string,
  url: string,
  options: RevocationOptions = {},
): Promise<VerifiedStatusList | { reason: string }> {
  const now = (options.now ?? new Date()).getTime()
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_STATUS_AGE_MS
  const purpose = options.purpose ?? 'revocation'
  let list: Record<string, unknown>
  try {
    const duplicate = duplicateKeyInJws(listJwt)
    if (duplicate) throw new Error(duplicate)
    const header = decodeProtectedHeader(listJwt)
    if (header.alg !== 'EdDSA') throw new Error(`alg ${String(header.alg)} (EdDSA expected)`)
    if (header.typ !== 'vc+jwt') throw new Error(`typ ${String(header.typ)} (vc+jwt expected)`)
    const issuer = String(decodeJwt(listJwt).iss)
    if (header.kid !== verificationMethodOf(issuer)) throw new Error('its kid is not the key of its iss')
    const resolved = publicKeyOfDidKey(issuer)
    if ('error' in resolved) throw new Error(resolved.error)
    const key = await importJWK(resolved.jwk, 'EdDSA')
    const { payload } = await compactVerify(listJwt, key, { algorithms: ['EdDSA'] })
    list = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>
  } catch (error) {
    return { reason: `the status list credential does not verify: ${(error as Error).message}` }
  }
  if (list.iss !== list.issuer || typeof list.issuer !== 'string') {
    return { reason: `the status list was signed by ${String(list.iss)} as issuer ${String(list.issuer)}` }
  }
  if (list.id !== url) {
    return {
      reason: `the status list's id ${JSON.stringify(list.id)} is not the URL the credential names (${url})`,
    }
  }
  const validFrom = typeof list.validFrom === 'string' ? Date.parse(list.validFrom) : Number.NaN
  if (Number.isNaN(validFrom)) return { reason: 'the status list has no validFrom' }
  if (validFrom > now + CLOCK_SKEW_MS) {
    return { reason: `the status list is valid only from ${String(list.validFrom)}` }
  }
  if (now - validFrom > maxAgeMs) {
    return {
      reason: `the status list is stale: signed at ${String(list.validFrom)}, older than the ${formatAge(maxAgeMs)} accepted (--max-status-age)`,
    }
  }
  if (typeof list.validUntil === 'string' && Date.parse(list.validUntil) <= now) {
    return { reason: `the status list expired at ${list.validUntil}` }
  }
  const types = list.type as string[] | undefined
  const subject = list.credentialSubject as { statusPurpose?: string; encodedList?: string } | undefined
  if (
    !Array.isArray(types) ||
    !types.includes('BitstringStatusListCredential') ||
    subject?.statusPurpose !== purpose
  ) {
    return { reason: `not a ${purpose} BitstringStatusListCredential` }
  }
  let bits: Uint8Array
  try {
    bits = decodeStatusList(String(subject.encodedList))
  } catch (error) {
    return { reason: `encodedList cannot be decoded: ${(error as Error).message}` }
  }
  if (bits.length * 8 < STATUS_LIST_MIN_BITS) {
    return { reason: `the list has ${bits.length * 8} entries, fewer than ${STATUS_LIST_MIN_BITS}` }
  }
  return { url, issuer: list.issuer, validFrom: String(list.validFrom), bits }
}

/**
 * A VC's status in its verified list (`verifyStatusList` of the URL `entry` names): the list must be
 * signed by the VC's issuer (its `iss` and `issuer`), and hold the index.
 */
export function statusInList(
  vc: Record<string, unknown>,
  entry: StatusPosition,
  list: VerifiedStatusList,
): RevocationCheck {
  const credentialIssuer = vc.issuer
  if (list.issuer !== credentialIssuer || vc.iss !== credentialIssuer) {
    return {
      status: 'unknown',
      reason: `the status list was signed by ${list.issuer} as issuer ${list.issuer}, not by the credential's issuer ${String(credentialIssuer)}`,
    }
  }
  if (entry.url !== list.url) {
    return { status: 'unknown', reason: `the credential names the status list ${entry.url}, not ${list.url}` }
  }
  if (entry.index >= list.bits.length * 8) {
    return {
      status: 'unknown',
      reason: `index ${entry.index} is outside a list of ${list.bits.length * 8} entries`,
    }
  }
  return {
    status: statusBit(list.bits, entry.index) ? 'revoked' : 'active',
    statusListCredential: entry.url,
    statusListIndex: entry.index,
    validFrom: list.validFrom,
  }
}

/** An age in the CLI's duration form: `24h`, `30m`, `10s`. */
export function formatAge(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`
  if (ms % 60_000 === 0) return `${ms / 60_000}m`
  return `${Math.round(ms / 1000)}s`
}
