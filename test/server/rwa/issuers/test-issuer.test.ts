import { Bitstring } from '@digitalbazaar/bitstring'
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK } from 'jose'
import { afterEach, describe, expect, it } from 'vitest'
import { publicKeyOfMultikey } from '../../../../src/proof/did-key.js'
import { TestIssuer } from '../../../support/test-issuer.js'

/*
 * The test issuer every issuer test relies on (test/support/test-issuer.ts), checked against what a
 * verifier reads: its DID document over HTTP, its VC-JWTs verified with the published keys, and its
 * status lists decoded by an independent implementation (Digital Bazaar's bitstring, W3C bit order).
 */

let issuer: TestIssuer | undefined
afterEach(async () => {
  await issuer?.stop()
  issuer = undefined
})

const getJson = async (url: string) => {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  return (await res.json()) as any
}

/** The bits of a served list, decoded by Digital Bazaar's library. */
async function servedBits(url: string): Promise<{ bits: Bitstring; buffer: Uint8Array; claims: any }> {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('application/vc+jwt')
  const claims = decodeJwt(await res.text()) as any
  expect(claims.credentialSubject.encodedList.startsWith('u')).toBe(true)
  const buffer = await Bitstring.decodeBits({ encoded: claims.credentialSubject.encodedList.slice(1) })
  return { bits: new Bitstring({ buffer }), buffer, claims }
}

/** The Ed25519 JWK of a verification method in either form. */
function jwkOf(method: any) {
  if (method.type === 'JsonWebKey') return method.publicKeyJwk
  const resolved = publicKeyOfMultikey(method.publicKeyMultibase)
  if ('error' in resolved) throw new Error(resolved.error)
  return resolved.jwk
}

describe('the test issuer', () => {
  it('serves a did:web document at /.well-known/did.json with its key as a JWK', async () => {
    issuer = await TestIssuer.start({ withP256Key: true })
    expect(issuer.did).toMatch(/^did:web:127\.0\.0\.1%3A\d+$/)
    const doc = await getJson(
      `http://${decodeURIComponent(issuer.did.slice('did:web:'.length))}/.well-known/did.json`,
    )
    expect(doc.id).toBe(issuer.did)
    expect(doc.verificationMethod[0]).toEqual({
      id: `${issuer.did}#key-1`,
      type: 'JsonWebKey',
      controller: issuer.did,
      publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: expect.any(String) },
    })
    expect(doc.verificationMethod[1]).toMatchObject({
      id: `${issuer.did}#p256`,
      publicKeyJwk: { crv: 'P-256' },
    })
  })

  it('serves a DID with a path at /<path>/did.json, its key as a Multikey', async () => {
    issuer = await TestIssuer.start({ path: ['providers', 'kyc'], keyForm: 'multikey' })
    expect(issuer.did).toMatch(/^did:web:127\.0\.0\.1%3A\d+:providers:kyc$/)
    const doc = await getJson(`${issuer.base}/did.json`)
    expect(issuer.base).toMatch(/\/providers\/kyc$/)
    expect(doc.verificationMethod).toEqual([
      {
        id: `${issuer.did}#key-1`,
        type: 'Multikey',
        controller: issuer.did,
        publicKeyMultibase: expect.stringMatching(/^z6Mk/),
      },
    ])
    expect(jwkOf(doc.verificationMethod[0])).toEqual(issuer.currentKey.publicJwk)
  })

  it('issues EdDSA VC-JWTs that verify with the published key', async () => {
    issuer = await TestIssuer.start()
    const { vc_jwt, index } = await issuer.issue({
      subject: 'did:web:lion:bob',
      status: ['revocation', 'suspension'],
    })
    const header = decodeProtectedHeader(vc_jwt)
    expect(header).toEqual({ alg: 'EdDSA', typ: 'vc+jwt', kid: `${issuer.did}#key-1` })
    const doc = await getJson(issuer.documentUrl)
    const method = doc.verificationMethod.find((m: any) => m.id === header.kid)
    const { payload } = await compactVerify(vc_jwt, await importJWK(jwkOf(method), 'EdDSA'))
    const vc = JSON.parse(new TextDecoder().decode(payload))
    expect(vc).toMatchObject({
      type: ['VerifiableCredential', 'KYCCredential'],
      iss: issuer.did,
      issuer: issuer.did,
      credentialSubject: { id: 'did:web:lion:bob' },
      credentialStatus: [
        { type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: String(index) },
        { type: 'BitstringStatusListEntry', statusPurpose: 'suspension', statusListIndex: String(index) },
      ],
    })
    expect(Date.parse(vc.validUntil)).toBeGreaterThan(Date.parse(vc.validFrom))
  })

  it('publishes revocation and suspension in W3C status lists, most significant bit first', async () => {
    issuer = await TestIssuer.start()
    const a = await issuer.issue({ subject: 'did:web:a' })
    const b = await issuer.issue({ subject: 'did:web:b' })
    issuer.revoke(a.index)
    issuer.suspend(b.index)
    const revocation = await servedBits(issuer.statusListUrl('revocation'))
    expect(revocation.bits.length).toBe(131_072)
    expect(revocation.claims).toMatchObject({
      id: issuer.statusListUrl('revocation'),
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: issuer.did,
      credentialSubject: { type: 'BitstringStatusList', statusPurpose: 'revocation' },
    })
    expect([revocation.bits.get(a.index), revocation.bits.get(b.index)]).toEqual([true, false])
    const suspension = await servedBits(issuer.statusListUrl('suspension'))
    expect(suspension.claims.credentialSubject.statusPurpose).toBe('suspension')
    expect([suspension.bits.get(a.index), suspension.bits.get(b.index)]).toEqual([false, true])
    // Index 7 is the last bit of the first byte: 0x01 when the order is most significant bit first.
    expect(a.index).toBe(7)
    expect(revocation.buffer[0]).toBe(0x01)
    issuer.reinstate(b.index)
    expect((await servedBits(issuer.statusListUrl('suspension'))).bits.get(b.index)).toBe(false)
  })

  it('rotates its key: the new one signs and is published, the old one leaves the document', async () => {
    issuer = await TestIssuer.start()
    const old = issuer.currentKey
    const rotated = issuer.rotateKey()
    expect(rotated.kid).toBe(`${issuer.did}#key-2`)
    const doc = await getJson(issuer.documentUrl)
    expect(doc.verificationMethod.map((m: any) => [m.id, m.type])).toEqual([[rotated.kid, 'Multikey']])
    const { vc_jwt } = await issuer.issue({ subject: 'did:web:a' })
    expect(decodeProtectedHeader(vc_jwt).kid).toBe(rotated.kid)
    const listJwt = await (await fetch(issuer.statusListUrl('revocation'))).text()
    await expect(
      compactVerify(listJwt, await importJWK(jwkOf(doc.verificationMethod[0]), 'EdDSA')),
    ).resolves.toBeDefined()
    await expect(compactVerify(vc_jwt, await importJWK(old.publicJwk, 'EdDSA'))).rejects.toThrow()
  })

  it('answers 503 to everything while unreachable, and counts what was asked', async () => {
    issuer = await TestIssuer.start()
    issuer.unreachable = true
    expect((await fetch(issuer.documentUrl)).status).toBe(503)
    issuer.unreachable = false
    expect((await fetch(issuer.documentUrl)).status).toBe(200)
    expect(issuer.count('/.well-known/did.json')).toBe(2)
  })
})
