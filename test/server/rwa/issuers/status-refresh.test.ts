import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  refreshStatusLists,
  refreshTimings,
  scheduleIssuerRefresh,
} from '../../../../server/areas/rwa/issuer-documents/refresh.js'
import { claimJobLease } from '../../../../server/pipeline/events/scheduled-queries.js'
import { within } from '../../../support/concurrency.js'
import { buildWorld, expectStatus, type World } from '../../../support/governance.js'
import { createHarness, type Harness } from '../../../support/harness.js'
import { TestIssuer } from '../../../support/test-issuer.js'

/*
 * The trusted issuers' status lists fetched in the background (docs/issuers.md, "Evaluation"): at half
 * --issuer-status-max-age (1 h here), by the instance holding the job's lease, kept only when they
 * verify, a failure recorded beside the last good list; the evaluation then needs no fetch of its own.
 */

const CAROL = 'did:web:lion:carol'
const MINUTE = 60_000
const HALF = 30 * MINUTE
let h: Harness
let provider: TestIssuer
let world: World
let kyc: { id: string; index: number }

const REVOCATION = '/status/revocation'
const SUSPENSION = '/status/suspension'

beforeEach(async () => {
  h = await createHarness({ allowHttpIssuers: true })
  provider = await TestIssuer.start({ now: () => new Date(h.clock.now()) })
  world = await buildWorld(h)
  await expectStatus(
    h.post('/console/rwa/issuers', {
      issuer_id: 'acme-kyc',
      name: 'Acme KYC',
      did: provider.did,
      requirements: { kyc: ['KYCCredential'], aml: ['AMLCredential'] },
      jurisdictions: ['US'],
    }),
    201,
  )
  const submit = async (type: string) => {
    const issued = await provider.issue({
      subject: CAROL,
      types: [type],
      status: ['revocation', 'suspension'],
      validUntil: new Date(h.clock.now() + 365 * 24 * 60 * MINUTE),
    })
    const made = await expectStatus(h.post('/console/rwa/attestations', { vc_jwt: issued.vc_jwt }), 201)
    return { id: made.attestation_id as string, index: issued.index }
  }
  kyc = await submit('KYCCredential')
  await submit('AMLCredential')
})
afterEach(async () => {
  await provider.stop()
  await h.close()
})

async function decide() {
  const query = { from_jurisdiction: 'US', to_jurisdiction: 'US', recipient_did: CAROL, amount: 10 }
  const answer = await expectStatus(
    h.get(`/console/rwa/tokens/${world.tokenId}/can-transfer`, { query }),
    200,
  )
  return {
    allowed: answer.allowed as boolean,
    kyc: (answer.compliance_details.checks as any[]).find((c) => c.requirement === 'kyc'),
  }
}

const fetches = () => provider.count(REVOCATION) + provider.count(SUSPENSION)

const keptList = (url: string) =>
  h.ctx.db
    .selectFrom('issuer_status_lists')
    .selectAll()
    // The one organization of the test.
    .where('url', '=', url)
    .executeTakeFirstOrThrow()

describe('status lists refreshed in the background', () => {
  it('times the refresh by the max age: due at half of it, a failure tried again at a tenth', () => {
    expect(refreshTimings(3_600_000)).toEqual({
      refreshAfterMs: 1_800_000,
      retryAfterMs: 360_000,
      everyMs: 60_000,
    })
    expect(refreshTimings(4000)).toEqual({ refreshAfterMs: 2000, retryAfterMs: 1000, everyMs: 1000 })
  })

  it('fetches a list again at half the max age, so a decision finds it young and fetches nothing', async () => {
    const before = fetches()
    // Just fetched (when the credentials were submitted): not due.
    expect(await refreshStatusLists(h.ctx, 'inst_a')).toEqual({ fetched: 0, failed: 0 })
    expect(fetches()).toBe(before)
    provider.revoke(kyc.index)
    h.clock.advance(HALF + 1000)
    expect(await refreshStatusLists(h.ctx, 'inst_a')).toEqual({ fetched: 2, failed: 0 })
    expect(fetches()).toBe(before + 2)
    expect((await keptList(provider.statusListUrl('revocation'))).fetched_at).toBe(
      new Date(h.clock.now()).toISOString(),
    )
    // Past the max age of the lists fetched at submission, not of those fetched in the background.
    h.clock.advance(HALF + 1000)
    const decision = await decide()
    expect(decision.allowed).toBe(false)
    expect(decision.kyc.reason).toContain(`${kyc.id} is revoked in ${provider.statusListUrl('revocation')}`)
    expect(fetches()).toBe(before + 2)
    expect(h.loggedErrors).toEqual([])
  })

  it('records a failure beside the last good list, tries again at a tenth of the max age, and fails closed past it', async () => {
    const url = provider.statusListUrl('revocation')
    const good = await keptList(url)
    h.clock.advance(HALF + 1000)
    provider.unreachable = true
    expect(await refreshStatusLists(h.ctx, 'inst_a')).toEqual({ fetched: 0, failed: 2 })
    const failed = await keptList(url)
    expect(failed).toMatchObject({
      list_jwt: good.list_jwt,
      fetched_at: good.fetched_at,
      failed_at: new Date(h.clock.now()).toISOString(),
      failure: `${url} answered 503`,
    })
    // The list kept is young enough still: relied on, nothing fetched by the decision.
    const asked = provider.requests.length
    expect((await decide()).allowed).toBe(true)
    expect(provider.requests.length).toBe(asked)
    // Not tried again at every run...
    expect(await refreshStatusLists(h.ctx, 'inst_a')).toEqual({ fetched: 0, failed: 0 })
    expect(provider.requests.length).toBe(asked)
    // ...but a tenth of the max age later.
    h.clock.advance(6 * MINUTE)
    expect(await refreshStatusLists(h.ctx, 'inst_a')).toEqual({ fetched: 0, failed: 2 })
    // Past the max age the decision fetches itself, fails, and fails closed.
    h.clock.advance(HALF)
    const unknown = await decide()
    expect(unknown.allowed).toBe(false)
    expect(unknown.kyc.reason).toContain(`status of ${kyc.id} unknown since ${good.fetched_at}`)
    // Once the provider answers, the next run after the decision's own failure fetches it (and forgets
    // the failure).
    provider.unreachable = false
    h.clock.advance(6 * MINUTE)
    expect(await refreshStatusLists(h.ctx, 'inst_a')).toEqual({ fetched: 2, failed: 0 })
    expect(await keptList(url)).toMatchObject({ failed_at: null, failure: null })
    expect((await decide()).allowed).toBe(true)
  })

  it('keeps a list only when it verifies as the issuer’s: one signed by a key it does not know is a failure', async () => {
    const url = provider.statusListUrl('revocation')
    const good = await keptList(url)
    // The provider signs with a new key the organization has not fetched (no refresh of the issuer).
    provider.rotateKey()
    h.clock.advance(HALF + 1000)
    expect(await refreshStatusLists(h.ctx, 'inst_a')).toEqual({ fetched: 0, failed: 2 })
    const kept = await keptList(url)
    expect(kept.list_jwt).toBe(good.list_jwt)
    expect(kept.failure).toBe(
      `the status list ${url} does not verify: kid ${provider.currentKey.kid} is not a key of ${provider.did}`,
    )
    await expectStatus(h.post('/console/rwa/issuers/acme-kyc/refresh'), 200)
    h.clock.advance(6 * MINUTE)
    expect(await refreshStatusLists(h.ctx, 'inst_a')).toEqual({ fetched: 2, failed: 0 })
  })

  it('fetches nothing no credential relies on any more: a suspended or removed issuer’s lists', async () => {
    const before = fetches()
    await expectStatus(
      h.request('PATCH', '/console/rwa/issuers/acme-kyc', { body: { status: 'suspended' } }),
      200,
    )
    h.clock.advance(HALF + 1000)
    expect(await refreshStatusLists(h.ctx, 'inst_a')).toEqual({ fetched: 0, failed: 0 })
    await expectStatus(h.request('DELETE', '/console/rwa/issuers/acme-kyc'), 200)
    h.clock.advance(HALF + 1000)
    expect(await refreshStatusLists(h.ctx, 'inst_a')).toEqual({ fetched: 0, failed: 0 })
    expect(fetches()).toBe(before)
  })

  it('runs on one instance at a time: the one holding the lease; the other takes it once it lapses', async () => {
    const other = await h.newInstance({ allowHttpIssuers: true })
    const before = fetches()
    h.clock.advance(HALF + 1000)
    const outcomes = await Promise.all([
      refreshStatusLists(h.ctx, 'inst_a'),
      refreshStatusLists(other.ctx, 'inst_b'),
    ])
    expect(outcomes.map((o) => o.fetched).sort()).toEqual([0, 2])
    expect(fetches()).toBe(before + 2)
    // The holder keeps it while it runs; the other takes it two minutes after its last renewal.
    const at = (ms: number) => new Date(h.clock.now() + ms).toISOString()
    const holder = outcomes[0]!.fetched === 2 ? 'inst_a' : 'inst_b'
    const idle = holder === 'inst_a' ? 'inst_b' : 'inst_a'
    expect(await claimJobLease(h.ctx.db, 'issuer-status-lists', idle, at(0), at(120_000))).toBe(false)
    h.clock.advance(2 * MINUTE + 1000)
    expect(await claimJobLease(h.ctx.db, 'issuer-status-lists', idle, at(0), at(120_000))).toBe(true)
  })

  it('runs by itself in the server, and stops: no run after stop()', async () => {
    const before = fetches()
    h.clock.advance(HALF + 1000)
    const job = scheduleIssuerRefresh(h.ctx)
    try {
      // The first run comes a second after the start.
      await within(5000, async () => fetches() === before + 2)
    } finally {
      await job.stop()
    }
    h.clock.advance(HALF + 1000)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(fetches()).toBe(before + 2)
    expect(h.loggedErrors).toEqual([])
  })
})
