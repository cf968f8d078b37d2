import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Jwks, type Proof, proofSchema } from '../../../src/contract/rwa.js'
import { trustBundleSchema } from '../../../src/contract/rwa.js'
import {
  canonicalFacts,
  digestOfCanonical,
  proofDigest,
  proofFacts,
  verifyProof,
  verifyProofTrusted,
} from '../../../src/proof/verify.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { buildWorld, expectStatus, OWNER, RECIPIENT, transferBody } from '../../support/governance.js'

let h: Harness
let approved: Proof
let rejected: Proof
let jwks: Jwks
let tokenId: string
beforeAll(async () => {
  h = await createHarness()
  const w = await buildWorld(h)
  tokenId = w.tokenId
  const ok = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 100)), 201)
  const no = await expectStatus(
    h.post('/console/rwa/transfers', { ...transferBody(w.tokenId, 1), recipient_did: 'did:web:x:nobody' }),
    201,
  )
  expect(no.status).toBe('rejected')
  approved = proofSchema.parse(await expectStatus(h.get(`/console/rwa/proofs/${ok.proof_id}`), 200))
  rejected = proofSchema.parse(await expectStatus(h.get(`/console/rwa/proofs/${no.proof_id}`), 200))
  jwks = await expectStatus(h.get('/console/rwa/.well-known/jwks.json', { key: null }), 200)
})
afterAll(() => h.close())

/** Every leaf of the evaluated facts, as a path. */
function leafPaths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      leafPaths(v, [...prefix, Array.isArray(value) ? Number(k) : k]),
    )
  }
  return [prefix]
}

function setPath(target: any, path: Array<string | number>, value: unknown): void {
  let node = target
  for (const step of path.slice(0, -1)) node = node[step]
  node[path.at(-1)!] = value
}

function getPath(target: any, path: Array<string | number>): unknown {
  return path.reduce((node, step) => node[step], target)
}

describe('compliance proofs', () => {
  it('verify offline with the published JWKS, approved and rejected alike', async () => {
    expect(await verifyProof(approved, jwks)).toEqual({ valid: true, kid: approved.kid })
    expect(await verifyProof(rejected, jwks)).toEqual({ valid: true, kid: rejected.kid })
    expect(rejected.decision).toBe('rejected')
    expect(approved.digest).toBe(proofDigest(approved))
    expect(approved.digest).toMatch(/^[0-9a-f]{64}$/)
    // The JWS payload is the canonical JSON of the facts, keys sorted (RFC 8785).
    const payload = Buffer.from(approved.jws.split('.')[1]!, 'base64url').toString('utf8')
    expect(payload).toBe(canonicalFacts(approved))
    expect(JSON.parse(payload)).toEqual(proofFacts(approved))
    expect(Object.keys(JSON.parse(payload))).toEqual([
      'compliance_details',
      'decision',
      'evaluated_at',
      'issuers',
      'org_id',
      'proof_id',
      'token_id',
      'transfer',
      'transfer_id',
      'version',
    ])
    // Version 2 (docs/verification.md, "Version-2 proofs"): the organization and both jurisdictions' issuers
    // are signed.
    const us = await expectStatus(h.get('/console/rwa/jurisdictions/US'), 200)
    const sg = await expectStatus(h.get('/console/rwa/jurisdictions/SG'), 200)
    expect(approved).toMatchObject({
      version: 2,
      org_id: 'admin',
      issuers: { US: us.issuer_did, SG: sg.issuer_did },
    })
    expect(approved.transfer).toEqual({
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      sender_did: OWNER,
      recipient_did: RECIPIENT,
      amount: 100,
    })
    expect(approved.token_id).toBe(tokenId)
  })

  it('fails when any evaluated fact is changed, even if the digest is recomputed', async () => {
    const paths = leafPaths(proofFacts(approved))
    expect(paths.length).toBeGreaterThan(30)
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
        fc.boolean(),
        async (path, value, recomputeDigest) => {
          fc.pre(getPath(approved, path) !== value)
          const forged = structuredClone(approved)
          setPath(forged, path, value)
          if (recomputeDigest) forged.digest = proofDigest(forged)
          const result = await verifyProof(forged, jwks)
          expect(result.valid).toBe(false)
        },
      ),
      { numRuns: 200 },
    )
  })

  it('fails for a forged decision, a swapped signature, a wrong key or an unknown kid', async () => {
    const flipped = { ...approved, decision: 'rejected' as const }
    expect(await verifyProof(flipped, jwks)).toEqual({
      valid: false,
      reason: 'digest does not match the evaluated facts',
    })
    const redigested = { ...flipped, digest: proofDigest(flipped) }
    expect(await verifyProof(redigested, jwks)).toEqual({
      valid: false,
      reason: 'the signed payload differs from the evaluated facts',
    })
    // The other proof's JWS is genuine but about other facts.
    expect((await verifyProof({ ...approved, jws: rejected.jws }, jwks)).valid).toBe(false)
    const otherKey = {
      keys: [{ ...jwks.keys[0]!, x: Buffer.alloc(32, 7).toString('base64url') }],
    }
    expect(await verifyProof(approved, otherKey)).toEqual({
      valid: false,
      reason: 'the JWS signature does not verify with the published key',
    })
    expect(await verifyProof(approved, { keys: [] })).toEqual({
      valid: false,
      reason: `no key ${approved.kid} in the JWKS`,
    })
    expect((await verifyProof({ ...approved, kid: 'other' }, jwks)).valid).toBe(false)
    expect((await verifyProof({ ...approved, jws: 'not-a-jws' }, jwks)).valid).toBe(false)
  })

  it('is signed by one service key per database, kept across app restarts', async () => {
    const row = await h.ctx.db
      .selectFrom('rwa_service_keys')
      .selectAll()
      .where('purpose', '=', 'proof')
      .execute()
    expect(row).toHaveLength(1)
    expect(row[0]!.kid).toBe(approved.kid)
    // A new app over the same database publishes the same key and still verifies old proofs.
    const restarted = await h.newInstance()
    const again = (await restarted.get('/console/rwa/.well-known/jwks.json')).body as Jwks
    expect(again).toEqual(jwks)
    expect((await verifyProof(approved, again)).valid).toBe(true)
  })
})

describe('proofs against a trust bundle (docs/verification.md, "The trust bundle")', () => {
  it('a version-2 proof holds for its organization; a version-1 proof (signed before) holds with a note', async () => {
    const bundle = trustBundleSchema.parse(await expectStatus(h.get('/console/rwa/trust-bundle'), 200))
    const v2 = await verifyProofTrusted(approved, bundle)
    expect(v2).toMatchObject({ valid: true, kid: approved.kid })
    if (v2.valid) expect(v2.notes.at(-1)).toBe('made for organization admin, by the issuers of SG, US')

    // A proof as the server signed them before version 2: the facts without version, org_id, issuers.
    const { version: _v, org_id: _o, issuers: _i, ...v1Facts } = proofFacts(approved)
    const canonical = canonicalFacts(v1Facts)
    const { jws, kid } = await h.ctx.signingKeys.signProof(canonical)
    const v1: Proof = { ...v1Facts, digest: digestOfCanonical(canonical), jws, kid }
    expect(await verifyProof(v1, jwks)).toEqual({ valid: true, kid })
    const held = await verifyProofTrusted(v1, bundle)
    expect(held).toMatchObject({ valid: true })
    if (held.valid)
      expect(held.notes).toContain('version-1 proof: it signs neither its organization nor its issuers')

    // The same proof judged by another organization's bundle: made for admin, not lion.
    const lion = await h.createOrg('lion', { trial: true })
    const theirs = trustBundleSchema.parse(
      await expectStatus(h.get('/console/rwa/trust-bundle', { key: lion.key }), 200),
    )
    expect(await verifyProofTrusted(approved, theirs)).toEqual({
      valid: false,
      reason: "the proof was made for organization admin, not lion (the trust bundle's)",
    })
    // A bundle whose issuer of SG differs (another key): the proof's issuers are not the bundle's.
    const otherSg = {
      ...bundle,
      issuers: bundle.issuers.map((i) =>
        i.jurisdiction_id === 'SG' ? { ...i, issuer_did: 'did:key:z6MkOther' } : i,
      ),
    }
    expect(await verifyProofTrusted(approved, otherSg)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(
        /^the proof's issuer of SG .* is not the trust bundle's \(did:key:z6MkOther\)$/,
      ),
    })
    // A bundle without the key: not trusted, whatever the signature.
    expect(await verifyProofTrusted(approved, { ...bundle, proof_keys: { keys: [] } })).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/^signature key not trusted/),
    })
  })
})
