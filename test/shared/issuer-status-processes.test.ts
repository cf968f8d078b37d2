import { afterEach, expect, it } from 'vitest'
import { buildWorld, expectStatus } from '../support/governance.js'
import type { ApiCaller } from '../support/harness.js'
import { clientOf, sharedInstances } from '../support/server-process.js'
import { TestIssuer } from '../support/test-issuer.js'

/*
 * The background fetch of trusted issuers' status lists in two real `rwa server start` processes over
 * one PostgreSQL database and one Redis (docs/issuers.md, "Lists fetched ahead of time"), with
 * --issuer-status-max-age 6s: the list is fetched again every 3 s or so by one of them (never twice
 * within those 3 s), a revocation at the provider shows in both processes' decisions, and both stop
 * cleanly with the job running.
 */

const deployment = sharedInstances()
const CAROL = 'did:web:lion:carol'
let provider: TestIssuer | undefined
afterEach(async () => {
  await provider?.stop()
  provider = undefined
})

it('two processes: the list fetched ahead of time by one, a revocation seen by both, a clean stop', {
  timeout: 120_000,
}, async () => {
  const [a, b] = await deployment.pair({ RWA_ALLOW_HTTP_ISSUERS: 'true', RWA_ISSUER_STATUS_MAX_AGE: '6s' })
  provider = await TestIssuer.start()
  const admin = clientOf(a)
  const made = await expectStatus(admin.post('/console/billing/keys', { org_id: 'acme', name: 'acme' }), 201)
  await expectStatus(admin.post('/console/billing/subscription', { org_id: 'acme', tier: 'pro' }), 200)
  const [onA, onB] = [clientOf(a, made.api_key), clientOf(b, made.api_key)]
  const world = await buildWorld(onA, made.api_key)
  await expectStatus(
    onA.post('/console/rwa/issuers', {
      issuer_id: 'acme-kyc',
      name: 'Acme KYC',
      did: provider.did,
      requirements: { kyc: ['KYCCredential'], aml: ['AMLCredential'] },
      jurisdictions: ['US'],
    }),
    201,
  )
  let kycIndex = 0
  for (const type of ['KYCCredential', 'AMLCredential']) {
    const issued = await provider.issue({ subject: CAROL, types: [type], status: ['revocation'] })
    if (type === 'KYCCredential') kycIndex = issued.index
    await expectStatus(onB.post('/console/rwa/attestations', { vc_jwt: issued.vc_jwt }), 201)
  }
  const decide = async (on: ApiCaller) => {
    const query = { from_jurisdiction: 'US', to_jurisdiction: 'US', recipient_did: CAROL, amount: 10 }
    const answer = await expectStatus(
      on.get(`/console/rwa/tokens/${world.tokenId}/can-transfer`, { query }),
      200,
    )
    return answer.allowed as boolean
  }

  // When each fetch of the list came, as the provider saw it.
  const times: number[] = []
  let seen = provider.count('/status/revocation')
  const watch = setInterval(() => {
    const now = provider!.count('/status/revocation')
    for (; seen < now; seen++) times.push(Date.now())
  }, 20)
  try {
    // 10 s: three or so background fetches, 3 s (half the max age) apart at least, never two at once.
    const start = Date.now()
    while (Date.now() - start < 10_000) {
      for (const on of [onA, onB]) expect(await decide(on)).toBe(true)
      await new Promise((r) => setTimeout(r, 250))
    }
    expect(times.length).toBeGreaterThanOrEqual(2)
    expect(times.length).toBeLessThanOrEqual(4)
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThan(2500)

    provider.revoke(kycIndex)
    const revokedAt = Date.now()
    let flipped = [false, false]
    while (!flipped.every(Boolean)) {
      if (Date.now() - revokedAt > 6_000) throw new Error(`not seen by both within 6 s: ${flipped}`)
      flipped = [!(await decide(onA)), !(await decide(onB))]
      await new Promise((r) => setTimeout(r, 100))
    }
  } finally {
    clearInterval(watch)
  }
  // Both stop cleanly with the job scheduled (a run under way is waited for).
  expect(await a.stop()).toBe(0)
  expect(await b.stop()).toBe(0)
})
