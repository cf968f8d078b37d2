import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { didKeyOf } from '../../../src/proof/did-key.js'

// did:key encoding lives with its decoding in src/proof (the CLI verifies credentials offline with it).
export { didKeyOf, verificationMethodOf } from '../../../src/proof/did-key.js'

/** A new Ed25519 key pair: the private key (PKCS#8 DER, base64; sealed before it is stored) and its did:key. */
export interface GeneratedKey {
  privateKey: string
  publicX: string
  did: string
}

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

/** The KeyObject of a private key's PKCS#8 DER (as opened from its sealed stored form). */
export const importPrivateKey = (der: Buffer): KeyObject =>
  createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
