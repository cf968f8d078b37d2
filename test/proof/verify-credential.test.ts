import { generateKeyPairSync, sign } from 'node:crypto'
import { SignJWT } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { didKeyOf, publicKeyOfDidKey, verificationMethodOf } from '../../src/proof/did-key.js'
import { verifyCredential } from '../../src/proof/verify-credential.js'
import { createHarness, type Harness } from '../support/harness.js'
import { expectStatus, OWNER, PROPERTY, RECIPIENT, US } from '../support/governance.js'

/*
 * Offline verification of the VCs the server really issues (credentials and attestations over the
 * in-process app), and of VCs altered or signed by someone else.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
  await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
})
afterEach(() => h.close())

const issue = (extra: Record<string, unknown> = {}) =>
  expectStatus(
    h.post('/console/rwa/credentials', {
      jurisdiction: 'US',
      owner_did: OWNER,
      property_data: PROPERTY,
      ...extra,
    }),
    201,
  )

/** Flips one character of the signature part of a compact JWS. */
const tamperSignature = (jws: string) => {
  const [header, payload, signature] = jws.split('.') as [string, string, string]
  const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`
  return `${header}.${payload}.${flipped}`
}

describe('did:key', () => {
  it("reads the Ed25519 key back from the server's did:key", () => {
    const { publicKey } = generateKeyPairSync('ed25519')
    const x = publicKey.export({ format: 'jwk' }).x!
    const did = didKeyOf(Buffer.from(x, 'base64url'))
    expect(publicKeyOfDidKey(did)).toEqual({ jwk: { kty: 'OKP', crv: 'Ed25519', x } })
    expect(verificationMethodOf(did)).toBe(`${did}#${did.slice(8)}`)
  })

  it('refuses what is not an Ed25519 did:key', () => {
    expect(publicKeyOfDidKey('did:web:acme:alice')).toHaveProperty('error')
    // A secp256k1 did:key (multicodec 0xe7).
    expect(publicKeyOfDidKey('did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme')).toHaveProperty(
      'error',
    )
  })
})

describe('verifyCredential', () => {
  it('a credential as issued holds, with its record; so does an attestation', async () => {
    const credential = await issue({ valid_until: '2030-01-01T00:00:00Z' })
    const now = new Date(h.clock.now())
    const result = await verifyCredential(credential.vc_jwt, { record: credential, now })
    expect(result).toMatchObject({
      valid: true,
      kind: 'credential',
      notes: ['the record equals the signed facts, field by field'],
    })
    if (!result.valid) return
    expect(result.claims).toMatchObject({
      iss: credential.issuer_did,
      sub: OWNER,
      validUntil: '2030-01-01T00:00:00.000Z',
    })

    const attestation = await expectStatus(
      h.post('/console/rwa/attestations', {
        jurisdiction: 'US',
        subject_did: RECIPIENT,
        type: 'kyc',
        attester: 'Onfido',
        evidence: 'case-1',
      }),
      201,
    )
    expect(await verifyCredential(attestation.vc_jwt, { record: attestation, now })).toMatchObject({
      valid: true,
    })
    // A bare VC-JWT holds too: there is no record to compare (its status list is checked apart).
    expect(await verifyCredential(credential.vc_jwt, { now })).toMatchObject({ valid: true, notes: [] })
  })

  it('an altered signature, an edited record, or a revoked record does not hold', async () => {
    const credential = await issue()
    expect(await verifyCredential(tamperSignature(credential.vc_jwt))).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/signature does not verify/),
    })
    const edited = { ...credential, property_data: { ...credential.property_data, value_usd: 1 } }
    expect(await verifyCredential(credential.vc_jwt, { record: edited })).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/record's property_data .* differs from the signed credential/),
    })
    const revoked = await expectStatus(
      h.post(`/console/rwa/credentials/${credential.credential_id}/revoke`, { reason: 'sold' }),
      200,
    )
    expect(await verifyCredential(revoked.vc_jwt, { record: revoked })).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/revoked at .* \(sold\)/),
    })
  })

  it('outside its validity it does not hold (the clock is given, not read)', async () => {
    const credential = await issue({ valid_until: '2030-01-01T00:00:00Z' })
    expect(
      await verifyCredential(credential.vc_jwt, { now: new Date('2031-01-01T00:00:00Z') }),
    ).toMatchObject({
      valid: false,
      reason: 'expired at 2030-01-01T00:00:00.000Z',
    })
    expect(
      await verifyCredential(credential.vc_jwt, { now: new Date('2020-01-01T00:00:00Z') }),
    ).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/^not valid before/),
    })
  })

  it('a VC that claims an issuer other than its signer does not hold', async () => {
    const credential = await issue()
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    const forger = didKeyOf(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'))
    // Signed by the forger's key, claiming the jurisdiction as issuer.
    const forged = await new SignJWT({ issuer: credential.issuer_did, validFrom: '2026-01-01T00:00:00Z' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'vc+jwt', kid: verificationMethodOf(forger) })
      .setIssuer(credential.issuer_did)
      .sign(privateKey)
    expect(await verifyCredential(forged)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/is not the signer/),
    })
  })

  it('a signed VC whose payload has a key twice does not hold, whichever value a reader keeps', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    const did = didKeyOf(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'))
    const b64 = (text: string) => Buffer.from(text).toString('base64url')
    const claims = {
      type: ['VerifiableCredential', 'PropertyOwnershipCredential'],
      issuer: did,
      iss: did,
      jti: 'urn:rwa:credential:cred_TWICE',
      validFrom: '2026-01-01T00:00:00Z',
      credentialSubject: { id: OWNER, jurisdiction: 'US', property: PROPERTY },
    }
    // A signature over the bytes holds; the subject is one owner to JSON.parse, another to the next reader.
    const payload = `{"sub":${JSON.stringify(RECIPIENT)},"sub":${JSON.stringify(OWNER)},${JSON.stringify(claims).slice(1)}`
    const input = `${b64(JSON.stringify({ alg: 'EdDSA', typ: 'vc+jwt', kid: verificationMethodOf(did) }))}.${b64(payload)}`
    const jwt = `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`
    expect(await verifyCredential(jwt, { asRecorded: true })).toEqual({
      valid: false,
      reason: 'the VC-JWT is refused: its payload: the key "sub" appears twice in one object (at sub)',
    })
    // The same claims with the key once hold.
    const once = `${b64(JSON.stringify({ alg: 'EdDSA', typ: 'vc+jwt', kid: verificationMethodOf(did) }))}.${b64(JSON.stringify({ sub: OWNER, ...claims }))}`
    expect(
      await verifyCredential(`${once}.${sign(null, Buffer.from(once), privateKey).toString('base64url')}`, {
        asRecorded: true,
      }),
    ).toMatchObject({ valid: true })
  })
})
