import { createPublicKey } from 'node:crypto'
import { CompactSign, compactVerify, jwtVerify, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import {
  attachPayload,
  detachPayload,
  signCompactEdDsa,
} from '../../../server/platform/signing/compact-jws.js'
import { generateSigningKey, importPrivateKey } from '../../../server/platform/signing/did-key.js'

const { privateKey } = generateSigningKey()
const key = importPrivateKey(Buffer.from(privateKey, 'base64'))
const publicKey = createPublicKey(key)

describe('a compact EdDSA JWS signed with node:crypto', () => {
  it('is byte for byte the JWS jose signs, and verifies with jose', async () => {
    const payload = '{"a":1,"b":"ü ✓","c":[true,null]}'
    const header = { alg: 'EdDSA', kid: 'k1', typ: 'rwa-proof+jws' } as const
    const ours = signCompactEdDsa(header, payload, key)
    const theirs = await new CompactSign(new TextEncoder().encode(payload))
      .setProtectedHeader(header)
      .sign(key)
    expect(ours).toBe(theirs)
    const verified = await compactVerify(ours, publicKey, { algorithms: ['EdDSA'] })
    expect(new TextDecoder().decode(verified.payload)).toBe(payload)
  })

  it('signs a JWT as jose SignJWT does with the same claims in the same order', async () => {
    const header = { alg: 'EdDSA', typ: 'vc+jwt', kid: 'did:key:z#z' } as const
    const vc = { '@context': ['x'], type: ['VerifiableCredential', 'T'], credentialSubject: { id: 's' } }
    const ours = signCompactEdDsa(
      header,
      JSON.stringify({ ...vc, id: 'urn:1', iss: 'did:i', sub: 's', jti: 'urn:1', iat: 1700000000 }),
      key,
    )
    const theirs = await new SignJWT({ ...vc, id: 'urn:1' })
      .setProtectedHeader(header)
      .setIssuer('did:i')
      .setSubject('s')
      .setJti('urn:1')
      .setIssuedAt(1700000000)
      .sign(key)
    expect(ours).toBe(theirs)
    expect((await jwtVerify(ours, publicKey)).payload.iss).toBe('did:i')
  })

  it('is stored without its payload and restored from the payload kept beside it', () => {
    const payload = '{"facts":true}'
    const jws = signCompactEdDsa({ alg: 'EdDSA' }, payload, key)
    const detached = detachPayload(jws)
    expect(detached).toMatch(/^[\w-]+\.\.[\w-]+$/)
    expect(attachPayload(detached, payload)).toBe(jws)
    // A JWS stored whole (before migration 0006) is returned as it is.
    expect(attachPayload(jws, 'ignored')).toBe(jws)
  })
})
