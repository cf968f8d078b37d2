import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { base58btc } from 'multiformats/bases/base58'

/** Multicodec prefix of an Ed25519 public key (0xed, varint-encoded as 0xed 0x01). */
const ED25519_MULTICODEC = Uint8Array.of(0xed, 0x01)

/** A new Ed25519 key pair, as stored: the private key (PKCS#8 DER, base64) and its did:key. */
export interface GeneratedKey {
  privateKey: string
  publicX: string
  did: string
}

/** `did:key:z…` of a raw 32-byte Ed25519 public key (multicodec ed01, multibase base58btc). */
export function didKeyOf(rawPublicKey: Uint8Array): string {
  const bytes = new Uint8Array(ED25519_MULTICODEC.length + rawPublicKey.length)
  bytes.set(ED25519_MULTICODEC)
  bytes.set(rawPublicKey, ED25519_MULTICODEC.length)
  return `did:key:${base58btc.encode(bytes)}`
}

/** The verification method id of a did:key: `did:key:z…#z…`. */
export const verificationMethodOf = (did: string): string => `${did}#${did.slice('did:key:'.length)}`

/** Generates an Ed25519 key pair for a jurisdiction or for the service. */
export function generateSigningKey(): GeneratedKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const x = publicKey.export({ format: 'jwk' }).x!
  return {
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    publicX: x,
    did: didKeyOf(Buffer.from(x, 'base64url')),
  }
}

/** The KeyObject of a stored private key (PKCS#8 DER, base64). */
export const importPrivateKey = (stored: string): KeyObject =>
  createPrivateKey({ key: Buffer.from(stored, 'base64'), format: 'der', type: 'pkcs8' })
