import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Jwks, proofSchema } from '../../../src/contract/rwa.js'
import { verifyProof } from '../../../src/proof/verify.js'
import { buildWorld, expectStatus, transferBody } from '../../support/governance.js'
import { createHarness, type Harness, type TestInstance } from '../../support/harness.js'

/*
 * The service's signing keys exist before the first write that signs with them. Made lazily inside
 * that write, a key whose write rolled back (the first transfer refused) stayed cached and kept
 * signing, while no row held it: the JWKS of any other instance, or of this one after a restart,
 * published another key, and every proof signed meanwhile verified against nothing.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const jwksOf = async (via: TestInstance): Promise<Jwks> =>
  expectStatus(via.get('/console/rwa/.well-known/jwks.json', { key: null }), 200)

describe('service signing keys', () => {
  it("a proof signed after the first transfer was refused verifies against another instance's JWKS", async () => {
    const owner = await h.createOrg('acme', { tier: 'pro' })
    const { tokenId } = await buildWorld(h, owner.key, { supply: 10 })
    // The first write that would sign a proof is refused and rolls back.
    const refused = await h.post('/console/rwa/transfers', transferBody(tokenId, 11), { key: owner.key })
    expect(refused.status).toBe(409)

    const transfer = await expectStatus(
      h.post('/console/rwa/transfers', transferBody(tokenId, 1), { key: owner.key }),
      201,
    )
    const proof = proofSchema.parse(
      await expectStatus(h.get(`/console/rwa/proofs/${transfer.proof_id}`, { key: owner.key }), 200),
    )
    // A fresh instance knows only what the database holds.
    const jwks = await jwksOf(await h.newInstance())
    expect(jwks.keys.map((k) => k.kid)).toContain(proof.kid)
    expect(await verifyProof(proof, jwks)).toMatchObject({ valid: true, kid: proof.kid })
  })
})
