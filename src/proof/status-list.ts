import { gunzipSync, gzipSync } from 'node:zlib'
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK } from 'jose'
import { publicKeyOfDidKey } from './did-key.js'

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

/** The bitstring of an `encodedList`; throws when it is not multibase base64url of GZIP data. */
export function decodeStatusList(encodedList: string): Uint8Array {
  if (!encodedList.startsWith('u')) throw new Error('encodedList must start with the multibase prefix "u"')
  return new Uint8Array(gunzipSync(Buffer.from(encodedList.slice(1), 'base64url')))
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
  | { status: 'active' | 'revoked'; statusListCredential: string; statusListIndex: number }
  | { status: 'unknown'; reason: string }

/**
 * Checks whether a VC-JWT has been revoked, as any verifier would: read its `credentialStatus`, fetch
 * the status list credential it names (`fetchList(url)` returns the raw VC-JWT), verify that list's
 * EdDSA signature with the key of its issuer's did:key, require the same issuer as the credential and
 * the purpose `revocation`, decode `encodedList` and read the bit. The credential's own signature is
 * not checked here (verify it separately).
 *
 * @example
 * const result = await checkRevocation(credential.vc_jwt, async (url) => (await fetch(url)).text())
 * // { status: 'revoked', statusListCredential, statusListIndex } | { status: 'active', ... } | { status: 'unknown', reason }
 */
export async function checkRevocation(
  vcJwt: string,
  fetchList: (url: string) => Promise<string>,
): Promise<RevocationCheck> {
  let vc: Record<string, unknown>
  try {
    vc = decodeJwt(vcJwt)
  } catch {
    return { status: 'unknown', reason: 'not a JWT' }
  }
  const entry = vc.credentialStatus as StatusEntry | undefined
  if (!entry)
    return {
      status: 'unknown',
      reason: 'the credential carries no credentialStatus (issued before status lists)',
    }
  if (entry.type !== 'BitstringStatusListEntry' || entry.statusPurpose !== 'revocation') {
    return { status: 'unknown', reason: `unsupported credentialStatus ${entry.type}/${entry.statusPurpose}` }
  }
  if (!/^(0|[1-9][0-9]*)$/.test(entry.statusListIndex)) {
    return {
      status: 'unknown',
      reason: `statusListIndex ${JSON.stringify(entry.statusListIndex)} is not a decimal string`,
    }
  }
  const index = Number(entry.statusListIndex)
  let listJwt: string
  try {
    listJwt = (await fetchList(entry.statusListCredential)).trim()
  } catch (error) {
    return {
      status: 'unknown',
      reason: `cannot fetch ${entry.statusListCredential}: ${(error as Error).message}`,
    }
  }
  let list: Record<string, unknown>
  try {
    const issuer = String(decodeJwt(listJwt).iss)
    const kid = decodeProtectedHeader(listJwt).kid
    if (typeof kid !== 'string' || kid.split('#')[0] !== issuer)
      throw new Error('kid is not the issuer’s key')
    const resolved = publicKeyOfDidKey(issuer)
    if ('error' in resolved) throw new Error(resolved.error)
    const key = await importJWK(resolved.jwk, 'EdDSA')
    const { payload } = await compactVerify(listJwt, key, { algorithms: ['EdDSA'] })
    list = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>
  } catch (error) {
    return {
      status: 'unknown',
      reason: `the status list credential does not verify: ${(error as Error).message}`,
    }
  }
  if (list.issuer !== vc.issuer) {
    return {
      status: 'unknown',
      reason: `the status list was issued by ${String(list.issuer)}, not by the credential's issuer ${String(vc.issuer)}`,
    }
  }
  const types = list.type as string[] | undefined
  const subject = list.credentialSubject as { statusPurpose?: string; encodedList?: string } | undefined
  if (!types?.includes('BitstringStatusListCredential') || subject?.statusPurpose !== 'revocation') {
    return { status: 'unknown', reason: 'not a revocation BitstringStatusListCredential' }
  }
  let bits: Uint8Array
  try {
    bits = decodeStatusList(String(subject.encodedList))
  } catch (error) {
    return { status: 'unknown', reason: `encodedList cannot be decoded: ${(error as Error).message}` }
  }
  if (bits.length * 8 < STATUS_LIST_MIN_BITS || index >= bits.length * 8) {
    return { status: 'unknown', reason: `index ${index} is outside a list of ${bits.length * 8} entries` }
  }
  return {
    status: statusBit(bits, index) ? 'revoked' : 'active',
    statusListCredential: entry.statusListCredential,
    statusListIndex: index,
  }
}
