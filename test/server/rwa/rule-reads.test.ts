import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { transferSchema } from '../../../src/contract/rwa.js'
import {
  buildWorld,
  expectStatus,
  OWNER,
  RECIPIENT,
  transferBody,
  type World,
} from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { identity } from '../../support/investors.js'

/*
 * What the rules read once per evaluation (docs/performance.md, "A transfer under every rule"): under
 * jurisdictions with requirements, the recipient's DIDs read for its attestations are the ones
 * max_ownership_percent totals, and an investor of one DID (or of no identity) totals its balance over
 * every jurisdiction; with the rules that read identities set, the windows count the sender's identity
 * they read.
 */

let h: Harness
let w: World
beforeEach(async () => {
  h = await createHarness()
  w = await buildWorld(h)
})
afterEach(() => h.close())

const COLD = 'did:web:lion:cold'
const CAROL = 'did:web:acme:carol'
const setRules = (rules: Record<string, unknown>) =>
  expectStatus(h.request('PUT', `/console/rwa/tokens/${w.tokenId}/rules`, { body: rules }), 200)
/** A transfer from OWNER (US) to `recipient` in `to`. */
const transfer = async (amount: number, to: 'US' | 'SG', extra: Record<string, unknown> = {}) =>
  transferSchema.parse(
    await expectStatus(
      h.post('/console/rwa/transfers', transferBody(w.tokenId, amount, { to_jurisdiction: to, ...extra })),
      201,
    ),
  )
const checkOf = (t: { compliance_details: { checks: any[] } }, rule: string) =>
  t.compliance_details.checks.find((c) => c.requirement === `rule:${rule}`)

describe('max_ownership_percent totals an investor over its DIDs and jurisdictions', () => {
  it.each([
    ['an identity of one DID', true, 'identity idn_bob'],
    ['a DID of no identity', false, `recipient ${RECIPIENT} (no identity)`],
  ])('%s: its units in every jurisdiction count', async (_, hasIdentity, investor) => {
    if (hasIdentity) await identity(h, 'idn_bob', 'SG', [RECIPIENT])
    await setRules({ max_ownership_percent: 10 })
    expect((await transfer(60, 'SG')).status).toBe('approved')
    const atCap = await transfer(40, 'US')
    expect(checkOf(atCap, 'max_ownership_percent').reason).toBe(
      `${investor} would hold 100 of ${w.tokenId} over its DIDs and jurisdictions, 10% of the supply, within max_ownership_percent 10 (100 of 1000 units)`,
    )
    const over = await transfer(1, 'SG')
    expect(over.status).toBe('rejected')
    expect(checkOf(over, 'max_ownership_percent')).toMatchObject({
      satisfied: false,
      reason: `${investor} would hold 101 of ${w.tokenId} over its DIDs and jurisdictions, 10.1% of the supply, over max_ownership_percent 10 (100 of 1000 units) by 1`,
    })
  })

  it('an identity of two DIDs: the DIDs read for its attestations are the ones totalled', async () => {
    // COLD has no attestation of its own: the identity's (RECIPIENT's) count for it.
    await identity(h, 'idn_bob', 'SG', [RECIPIENT, COLD])
    await setRules({ max_ownership_percent: 10 })
    expect((await transfer(60, 'SG')).status).toBe('approved')
    expect((await transfer(40, 'US', { recipient_did: COLD })).status).toBe('approved')
    const over = await transfer(1, 'SG', { recipient_did: COLD })
    expect(checkOf(over, 'max_ownership_percent')).toMatchObject({
      satisfied: false,
      reason: `identity idn_bob would hold 101 of ${w.tokenId} over its DIDs and jurisdictions, 10.1% of the supply, over max_ownership_percent 10 (100 of 1000 units) by 1`,
    })
  })
})

describe('transfer_windows with the rules that read identities', () => {
  it("count the sender's identity, as read for those rules, across its DIDs", async () => {
    await identity(h, 'idn_alice', 'US', [OWNER, CAROL])
    await identity(h, 'idn_bob', 'SG', [RECIPIENT])
    await expectStatus(
      h.post(`/console/rwa/tokens/${w.tokenId}/mint`, {
        to_did: CAROL,
        jurisdiction: 'US',
        amount: 200,
        reason: 'round 2',
      }),
      201,
    )
    await setRules({
      transfer_windows: [{ seconds: 86_400, max_volume: 100 }],
      max_ownership_percent: 100,
      country_deny: ['RU'],
    })
    expect((await transfer(60, 'SG')).status).toBe('approved')
    const fromCarol = await transfer(41, 'SG', { sender_did: CAROL })
    expect(checkOf(fromCarol, 'transfer_windows')).toMatchObject({
      satisfied: false,
      reason: `sender identity idn_alice (${CAROL})'s approved volume in the last 86400 s it would be 101 (60 before this transfer), over max_volume 100 by 1`,
    })
    expect((await transfer(40, 'SG', { sender_did: CAROL })).status).toBe('approved')
  })

  it('count a sender of no identity by its DID', async () => {
    await setRules({ transfer_windows: [{ seconds: 86_400, max_volume: 100 }], country_deny: ['RU'] })
    // The recipient has no identity: country_deny refuses; the window still reads the sender's DID.
    const refused = await transfer(60, 'SG')
    expect(checkOf(refused, 'transfer_windows').reason).toBe(
      `sender ${OWNER}'s approved volume in the last 86400 s 60 of max_volume 100`,
    )
  })
})

describe('transfer_windows summed by the database', () => {
  it("sum each window's own buckets, and forget the old ones when a new bucket of the longest starts", async () => {
    await setRules({
      transfer_windows: [
        { seconds: 60, max_volume: 1000 },
        { seconds: 120, max_volume: 1000 },
      ],
    })
    const volumes = async () =>
      (
        await h.ctx.db
          .selectFrom('transfer_window_volumes')
          .select(['window_seconds', 'bucket_start', 'volume'])
          .orderBy('window_seconds')
          .orderBy('bucket_start')
          .execute()
      ).map((r) => [Number(r.window_seconds), Number(r.bucket_start), Number(r.volume)])
    const reason = async (amount: number) => checkOf(await transfer(amount, 'SG'), 'transfer_windows').reason
    await transfer(10, 'SG')
    h.clock.advance(2_000)
    await transfer(20, 'SG')
    expect(await volumes()).toHaveLength(4)
    // 61 s after the first: it left the minute (1 s buckets), not the two minutes (2 s buckets).
    h.clock.advance(59_000)
    expect(await reason(5)).toBe(
      `sender ${OWNER}'s approved volume in the last 60 s 25 of max_volume 1000; in the last 120 s 35 of max_volume 1000`,
    )
    // Five minutes on, a new bucket of the longest window starts: every bucket older than twice its
    // window is forgotten; a second transfer in that bucket adds to it.
    h.clock.advance(300_000)
    expect(await reason(1)).toBe(
      `sender ${OWNER}'s approved volume in the last 60 s 1 of max_volume 1000; in the last 120 s 1 of max_volume 1000`,
    )
    const now = Math.floor(h.clock.now() / 1000)
    expect(await reason(2)).toBe(
      `sender ${OWNER}'s approved volume in the last 60 s 3 of max_volume 1000; in the last 120 s 3 of max_volume 1000`,
    )
    expect(await volumes()).toEqual([
      [60, now, 3],
      [120, now - (now % 2), 3],
    ])
  })
})
