import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { refreshStatusLists } from '../../server/areas/rwa/issuer-documents/refresh.js'
import { buildWorld, expectStatus, type World } from '../support/governance.js'
import { type ApiCaller, createHarness, type Harness, type TestInstance } from '../support/harness.js'
import { TestIssuer } from '../support/test-issuer.js'

/*
 * A trusted issuer's status lists over PostgreSQL and Redis with two instances (docs/issuers.md,
 * "Evaluation"): both run the background refresh, one of them (the lease holder) fetches, and the list
 * it keeps serves the decisions of both; a revocation at the provider flips them on both after that one
 * fetch, with no fetch made by a decision.
 */

const CAROL = 'did:web:lion:carol'
const MINUTE = 60_000
let a: Harness
let b: TestInstance
let provider: TestIssuer
let world: World
let kyc: { id: string; index: number }

beforeEach(async () => {
  a = await createHarness({ allowHttpIssuers: true })
  b = await a.newInstance({ allowHttpIssuers: true })
  provider = await TestIssuer.start({ now: () => new Date(a.clock.now()) })
  world = await buildWorld(a)
  await expectStatus(
    a.post('/console/rwa/issuers', {
      issuer_id: 'acme-kyc',
      name: 'Acme KYC',
      did: provider.did,
      requirements: { kyc: ['KYCCredential'], aml: ['AMLCredential'] },
      jurisdictions: ['US'],
    }),
    201,
  )
  const submit = async (type: string, on: ApiCaller) => {
    const issued = await provider.issue({
      subject: CAROL,
      types: [type],
      status: ['revocation'],
      validUntil: new Date(a.clock.now() + 365 * 24 * 60 * MINUTE),
    })
    const made = await expectStatus(on.post('/console/rwa/attestations', { vc_jwt: issued.vc_jwt }), 201)
    return { id: made.attestation_id as string, index: issued.index }
  }
  kyc = await submit('KYCCredential', a)
  await submit('AMLCredential', b)
})
afterEach(async () => {
  await provider.stop()
  await a.close()
})

async function decide(on: ApiCaller) {
  const query = { from_jurisdiction: 'US', to_jurisdiction: 'US', recipient_did: CAROL, amount: 10 }
  const answer = await expectStatus(
    on.get(`/console/rwa/tokens/${world.tokenId}/can-transfer`, { query }),
    200,
  )
  return {
    allowed: answer.allowed as boolean,
    kyc: (answer.compliance_details.checks as any[]).find((c) => c.requirement === 'kyc'),
  }
}

const listFetches = () => provider.count('/status/revocation')

/** Both instances run the job at once, as their timers would; what each fetched. */
const refreshOnBoth = () =>
  Promise.all([refreshStatusLists(a.ctx, 'inst_a'), refreshStatusLists(b.ctx, 'inst_b')])

describe('status lists refreshed once for two instances', () => {
  it('one background fetch serves both; a revocation flips both decisions with no fetch of their own', async () => {
    for (const on of [a, b]) expect((await decide(on)).allowed).toBe(true)
    const before = listFetches()

    // Half the max age (1 h) later: one of the two fetches the list, once.
    a.clock.advance(30 * MINUTE + 1000)
    const first = await refreshOnBoth()
    expect(first.map((o) => o.fetched).sort()).toEqual([0, 1])
    expect(listFetches()).toBe(before + 1)

    provider.revoke(kyc.index)
    // The list kept says nothing yet: the decisions rely on it (half an hour old) without fetching.
    for (const on of [a, b]) expect((await decide(on)).allowed).toBe(true)
    expect(listFetches()).toBe(before + 1)

    a.clock.advance(30 * MINUTE + 1000)
    const second = await refreshOnBoth()
    expect(second.map((o) => o.fetched).sort()).toEqual([0, 1])
    expect(listFetches()).toBe(before + 2)

    // Past the max age of the list fetched at submission, within that of the one fetched in the
    // background: both instances see the revocation, neither fetched.
    a.clock.advance(30 * MINUTE)
    for (const on of [a, b]) {
      const decision = await decide(on)
      expect(decision.allowed).toBe(false)
      expect(decision.kyc.reason).toContain(`${kyc.id} is revoked in ${provider.statusListUrl('revocation')}`)
    }
    expect(listFetches()).toBe(before + 2)
    expect([...a.loggedErrors, ...b.loggedErrors]).toEqual([])
  })
})
