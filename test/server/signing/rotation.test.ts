import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Jwks, type Proof, proofSchema, trustBundleSchema } from '../../../src/contract/rwa.js'
import { verifyProof, verifyProofTrusted } from '../../../src/proof/verify.js'
import { buildWorld, expectStatus, transferBody } from '../../support/governance.js'
import { TEST_DIALECT } from '../../support/backends.js'
import { within } from '../../support/concurrency.js'
import { createHarness, type Harness, type TestInstance } from '../../support/harness.js'

/*
 * Rotating the proof key (README.md, "Signing keys at rest"): the admin key alone; proofs signed before keep
 * verifying (the retired key stays in the JWKS and the trust bundle); proofs signed after carry the new kid,
 * on every instance at once.
 */

let h: Harness
let owner: { key: string }
let tokenId: string
beforeEach(async () => {
  h = await createHarness()
  owner = await h.createOrg('acme', { tier: 'pro' })
  tokenId = (await buildWorld(h, owner.key)).tokenId
})
afterEach(() => h.close())

const ROTATE = '/console/rwa/signing-keys/rotate'

async function transferProof(via: TestInstance = h): Promise<Proof> {
  const transfer = await expectStatus(
    via.post('/console/rwa/transfers', transferBody(tokenId, 1), { key: owner.key }),
    201,
  )
  return proofSchema.parse(
    await expectStatus(via.get(`/console/rwa/proofs/${transfer.proof_id}`, { key: owner.key }), 200),
  )
}

const bundleOf = async (via: TestInstance = h) =>
  trustBundleSchema.parse(await expectStatus(via.get('/console/rwa/trust-bundle', { key: owner.key }), 200))
const jwksOf = async (via: TestInstance = h): Promise<Jwks> =>
  expectStatus(via.get('/console/rwa/.well-known/jwks.json', { key: null }), 200)

describe('POST /console/rwa/signing-keys/rotate', () => {
  it("is the admin key's alone: an owner key is 403 and nothing changes", async () => {
    const before = await transferProof()
    const refused = await h.post(ROTATE, {}, { key: owner.key })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ reason: 'admin_key_required' })
    expect((await transferProof()).kid).toBe(before.kid)
    expect(
      await h.ctx.db.selectFrom('rwa_service_keys').where('purpose', '=', 'proof').selectAll().execute(),
    ).toHaveLength(1)
  })

  it('proofs signed before verify after it (JWKS and trust bundle); proofs signed after carry the new kid', async () => {
    const old = await transferProof()
    h.clock.advance(1000)
    const rotated = await expectStatus(h.post(ROTATE, { reason: 'yearly rotation' }), 201)
    expect(rotated).toMatchObject({ retired: { kid: old.kid } })
    expect(rotated.kid).not.toBe(old.kid)
    expect(rotated.valid_from).toBe(rotated.retired.retired_at)

    // The JWKS: the new key first, the retired one kept and marked.
    const jwks = await jwksOf()
    expect(jwks.keys[0]).toMatchObject({ kid: rotated.kid })
    expect(jwks.keys[0]).not.toHaveProperty('retired_at')
    expect(jwks.keys.find((k) => k.kid === old.kid)).toMatchObject({ retired_at: rotated.retired.retired_at })
    // The trust bundle: the old key valid until its retirement, the new one from then on.
    const bundle = await bundleOf()
    expect(bundle.proof_keys.keys.map((k) => [k.kid, k.valid_until])).toEqual([
      [old.kid, rotated.retired.retired_at],
      [rotated.kid, null],
    ])

    expect(await verifyProof(old, jwks)).toMatchObject({ valid: true, kid: old.kid })
    expect(await verifyProofTrusted(old, bundle)).toMatchObject({ valid: true, kid: old.kid })

    h.clock.advance(1000)
    const fresh = await transferProof()
    expect(fresh.kid).toBe(rotated.kid)
    expect(await verifyProofTrusted(fresh, bundle)).toMatchObject({ valid: true, kid: rotated.kid })
    // The old key does not vouch for what is signed after its retirement.
    expect(await verifyProofTrusted({ ...fresh, kid: old.kid }, bundle)).toMatchObject({ valid: false })

    // In the operator organization's log, with the reason and both kids.
    const events = await expectStatus(
      h.get('/console/audit', { query: { org_id: 'admin', action: 'signing_key.rotated' } }),
      200,
    )
    expect(events.events).toHaveLength(1)
    expect(events.events[0]).toMatchObject({
      target: { type: 'signing_key', id: rotated.kid },
      changes: { before: { kid: old.kid }, after: { kid: rotated.kid, reason: 'yearly rotation' } },
    })
  })

  it('another instance signs with the new key from the rotation on, though it had cached the old one', async () => {
    const other = await h.newInstance()
    const old = await transferProof(other)
    h.clock.advance(1000)
    const rotated = await expectStatus(h.post(ROTATE, {}), 201)
    h.clock.advance(1000)
    const after = await transferProof(other)
    expect(after.kid).toBe(rotated.kid)
    // Its JWKS and trust bundle know both keys too.
    expect((await jwksOf(other)).keys.map((k) => k.kid)).toEqual(
      expect.arrayContaining([old.kid, rotated.kid]),
    )
    const bundle = await bundleOf(other)
    expect(await verifyProofTrusted(old, bundle)).toMatchObject({ valid: true })
    expect(await verifyProofTrusted(after, bundle)).toMatchObject({ valid: true })
    // Rotated twice: the first two keys are both retired, each valid until its own rotation.
    h.clock.advance(1000)
    const second = await expectStatus(other.post(ROTATE, {}), 201)
    expect(second.retired.kid).toBe(rotated.kid)
    const twice = await bundleOf()
    expect(twice.proof_keys.keys.filter((k) => k.valid_until === null).map((k) => k.kid)).toEqual([
      second.kid,
    ])
    expect(await verifyProofTrusted(old, twice)).toMatchObject({ valid: true })
    expect(await verifyProofTrusted(after, twice)).toMatchObject({ valid: true })
  })
})

describe('GET /console/rwa/.well-known/jwks.json as prepared bytes', () => {
  const JWKS = '/console/rwa/.well-known/jwks.json'

  it('answers the bytes of the keys as the database holds them, with a strong ETag; a rotation changes both', async () => {
    const first = await h.get(JWKS, { key: null })
    expect(first.text).toBe(JSON.stringify(await h.ctx.signingKeys.jwks()))
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[\w-]{27}"$/)
    const notModified = await h.get(JWKS, { key: null, headers: { 'If-None-Match': etag } })
    expect([notModified.status, notModified.text, notModified.headers.get('etag')]).toEqual([304, '', etag])

    h.clock.advance(1000)
    const rotated = await expectStatus(h.post(ROTATE, {}), 201)
    // The next request, with the old ETag: the new bytes, not a 304.
    const after = await h.get(JWKS, { key: null, headers: { 'If-None-Match': etag } })
    expect(after.status).toBe(200)
    expect(after.headers.get('etag')).not.toBe(etag)
    expect(after.text).toBe(JSON.stringify(await h.ctx.signingKeys.jwks()))
    expect(after.body.keys[0].kid).toBe(rotated.kid)
  })

  it('an instance that signs with a key it had not cached answers a JWKS naming that key', async () => {
    const other = await h.newInstance()
    const before = await jwksOf(other)
    h.clock.advance(1000)
    const rotated = await expectStatus(h.post(ROTATE, {}), 201)
    h.clock.advance(1000)
    const proof = await transferProof(other)
    expect(proof.kid).toBe(rotated.kid)
    const after = await jwksOf(other)
    expect(after.keys.map((k) => k.kid)).toContain(rotated.kid)
    expect(before.keys.map((k) => k.kid)).not.toContain(rotated.kid)
  })

  it.runIf(TEST_DIALECT === 'postgres')(
    'a rotation on one instance changes the JWKS another had cached (the invalidation bus)',
    async () => {
      const other = await h.newInstance()
      const cached = await other.get(JWKS, { key: null })
      h.clock.advance(1000)
      const rotated = await expectStatus(h.post(ROTATE, {}), 201)
      const etag = cached.headers.get('etag')!
      // B heard nothing yet for a moment at most; then its next request answers the new bytes.
      await within(1000, async () => {
        const now = await other.get(JWKS, { key: null, headers: { 'If-None-Match': etag } })
        return now.status === 200
      })
      const now = await other.get(JWKS, { key: null, headers: { 'If-None-Match': etag } })
      expect(now.body.keys[0].kid).toBe(rotated.kid)
      expect(now.text).toBe(JSON.stringify(await h.ctx.signingKeys.jwks()))
    },
  )
})
