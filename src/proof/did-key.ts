import { base58btc } from 'multiformats/bases/base58'

/*
 * `did:key` of an Ed25519 key, read offline: the DID itself carries the public key (multibase
 * base58btc of the multicodec 0xed 0x01 followed by the 32 key bytes), so no resolver and no network
 * is needed. https://w3c-ccg.github.io/did-method-key/
 */

/** Multicodec prefix of an Ed25519 public key (0xed, varint-encoded as 0xed 0x01). */
const ED25519_MULTICODEC = Uint8Array.of(0xed, 0x01)

/** `did:key:z…` of a raw 32-byte Ed25519 public key (multicodec ed01, multibase base58btc). */
export function didKeyOf(rawPublicKey: Uint8Array): string {
  const bytes = new Uint8Array(ED25519_MULTICODEC.length + rawPublicKey.length)
  bytes.set(ED25519_MULTICODEC)
  bytes.set(rawPublicKey, ED25519_MULTICODEC.length)
  return `did:key:${base58btc.encode(bytes)}`
}

/** The Ed25519 public key a `did:key` names, as a JWK; or why it names none. */
export type DidKeyResolution = { jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string } } | { error: string }

/**
 * Resolves `did:key:z6Mk…` to its Ed25519 public key.
 *
 * @example
 * const r = publicKeyOfDidKey('did:key:z6Mkf5rGMoatrSj1f4CyvuHBeXJELe9RPdzo2PKGNCKVtZxP')
 * if ('jwk' in r) await importJWK(r.jwk, 'EdDSA')
 */
export function publicKeyOfDidKey(did: string): DidKeyResolution {
  const match = /^did:key:(z[1-9A-HJ-NP-Za-km-z]+)$/.exec(did)
  if (!match) return { error: `${did} is not a did:key with a base58btc (z...) key` }
  let bytes: Uint8Array
  try {
    bytes = base58btc.decode(match[1]!)
  } catch {
    return { error: `${did} does not decode as base58btc` }
  }
  if (bytes[0] !== ED25519_MULTICODEC[0] || bytes[1] !== ED25519_MULTICODEC[1]) {
    return { error: `${did} is not an Ed25519 key (multicodec 0xed01)` }
  }
  if (bytes.length !== 34) return { error: `${did} does not hold a 32-byte Ed25519 key` }
  return { jwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(bytes.slice(2)).toString('base64url') } }
}

/** The verification method id of a did:key: `did:key:z…#z…` (the DID, `#`, its own multibase key). */
export const verificationMethodOf = (did: string): string => `${did}#${did.slice('did:key:'.length)}`

/** The Multikey form (`publicKeyMultibase`) of a raw Ed25519 public key: `z6Mk…`, as in its did:key. */
export const multikeyOf = (rawPublicKey: Uint8Array): string =>
  didKeyOf(rawPublicKey).slice('did:key:'.length)

/**
 * The Ed25519 public key of a Multikey `publicKeyMultibase` (`z6Mk…`: base58btc of the multicodec 0xed01
 * and the 32 key bytes), as a JWK; or why it holds none.
 */
export const publicKeyOfMultikey = (multibase: string): DidKeyResolution =>
  publicKeyOfDidKey(`did:key:${multibase}`)
