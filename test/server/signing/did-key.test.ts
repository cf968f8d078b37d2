import { createPrivateKey, createPublicKey } from 'node:crypto'
import { base58btc } from 'multiformats/bases/base58'
import { describe, expect, it } from 'vitest'
import {
  didKeyOf,
  generateSigningKey,
  verificationMethodOf,
} from '../../../server/platform/signing/did-key.js'

describe('did:key of an Ed25519 key', () => {
  it('is z + base58btc(0xed 0x01 + the 32-byte public key), starting did:key:z6Mk', () => {
    const raw = Uint8Array.from({ length: 32 }, (_, i) => i)
    const did = didKeyOf(raw)
    expect(did).toMatch(/^did:key:z6Mk/)
    const decoded = base58btc.decode(did.slice('did:key:'.length))
    expect([...decoded]).toEqual([0xed, 0x01, ...raw])
    expect(verificationMethodOf(did)).toBe(`${did}#${did.slice('did:key:'.length)}`)
  })

  it('names the public half of the generated private key', () => {
    const key = generateSigningKey()
    const privateKey = createPrivateKey({
      key: Buffer.from(key.privateKey, 'base64'),
      format: 'der',
      type: 'pkcs8',
    })
    const x = createPublicKey(privateKey).export({ format: 'jwk' }).x!
    expect(x).toBe(key.publicX)
    expect(key.did).toBe(didKeyOf(Buffer.from(x, 'base64url')))
    expect(generateSigningKey().did).not.toBe(key.did)
  })
})
