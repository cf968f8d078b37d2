import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DAY_MS } from '../../../server/platform/clock.js'
import { tokenDetailSchema, transferSchema } from '../../../src/contract/rwa.js'
import { statuses } from '../../support/concurrency.js'
import {
  buildWorld,
  expectStatus,
  OWNER,
  RECIPIENT,
  transferBody,
  type World,
} from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * Supply and the rules that keep running counts (docs/governance.md, "Supply: mint and burn" and
 * "Transfer rules"): mint and burn with max_supply, min_holding, transfer_windows (sliding, by
 * identity), lockup_days_after_receipt (first in first out), each at its boundary, on SQLite and
 * PostgreSQL alike; and the windows exact under concurrent transfers on PostgreSQL.
 */

let h: Harness
let w: World
beforeEach(async () => {
  h = await createHarness()
  w = await buildWorld(h)
})
afterEach(() => h.close())

const CAROL = 'did:web:acme:carol'
const tok = (path = '') => `/console/rwa/tokens/${w.tokenId}${path}`
const token = async () => tokenDetailSchema.parse(await expectStatus(h.get(tok()), 200))
const setRules = (rules: Record<string, unknown>) =>
  expectStatus(h.request('PUT', tok('/rules'), { body: rules }), 200)
const mint = (amount: number, to = OWNER, jurisdiction = 'US') =>
  h.post(tok('/mint'), { to_did: to, jurisdiction, amount, reason: 'round 2' })
const burn = (amount: number, from = OWNER, jurisdiction = 'US') =>
  h.post(tok('/burn'), { from_did: from, jurisdiction, amount, reason: 'redemption' })
/** Requests a transfer US → SG to RECIPIENT; the recorded transfer. */
const transfer = async (amount: number, extra: Record<string, unknown> = {}) =>
  transferSchema.parse(
    await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, amount, extra)), 201),
  )
/** The check of `rule` in a transfer's evaluation. */
const checkOf = (t: { compliance_details: { checks: any[] } }, rule: string) =>
  t.compliance_details.checks.find((c) => c.requirement === `rule:${rule}`)

describe('mint and burn', () => {
  it('mint adds units and supply (201 with the token), max_supply caps it at the cap, burning makes room', async () => {
    expect((await token()).supply).toBe(1000)
    await setRules({ max_supply: 1100 })
    const minted = tokenDetailSchema.parse(await expectStatus(mint(100, RECIPIENT, 'SG'), 201))
    expect([minted.supply, minted.total_supply]).toEqual([1100, 1000])
    expect(minted.holdings).toContainEqual({
      holder_did: RECIPIENT,
      jurisdiction: 'SG',
      amount: 100,
      frozen_amount: 0,
      frozen: false,
    })
    expect(minted.governance_history.at(-1)).toEqual({
      event: 'minted',
      at: '2026-01-15T12:00:00.000Z',
      details: {
        to_did: RECIPIENT,
        jurisdiction: 'SG',
        amount: 100,
        supply: 1100,
        reason: 'round 2',
        actor_key_id: expect.stringMatching(/^key_/),
      },
    })

    const over = await mint(1)
    expect([over.status, over.body.reason]).toEqual([422, 'max_supply_exceeded'])
    expect(over.body.detail).toBe(
      `Minting 1 would take the supply of ${w.tokenId} to 1101 (1100 now), over max_supply 1100 by 1`,
    )
    expect(over.body.context).toMatchObject({ max_supply: 1100, supply: 1100, requested: 1, over: 1 })
    expect((await token()).supply).toBe(1100)

    const burnt = tokenDetailSchema.parse(await expectStatus(burn(10), 201))
    expect(burnt.supply).toBe(1090)
    expect(burnt.governance_history.at(-1)).toMatchObject({
      event: 'burned',
      details: {
        from_did: OWNER,
        jurisdiction: 'US',
        amount: 10,
        supply: 1090,
        reason: 'redemption',
        actor_key_id: expect.stringMatching(/^key_/),
      },
    })
    expect((await expectStatus(mint(10), 201)).supply).toBe(1100)
    // The supply is the sum of the holdings.
    const all = await expectStatus(h.get(tok('/holdings')), 200)
    expect(all.holdings.reduce((sum: number, x: any) => sum + x.amount, 0)).toBe(1100)
  })

  it('a burn over the holding is 409 insufficient_holding and changes nothing; unknown places are 404', async () => {
    const over = await burn(1001)
    expect([over.status, over.body.reason]).toEqual([409, 'insufficient_holding'])
    expect(over.body.context).toMatchObject({ held: 1000, requested: 1001 })
    const none = await burn(1, RECIPIENT, 'SG')
    expect([none.status, none.body.reason]).toEqual([409, 'insufficient_holding'])
    expect((await mint(1, RECIPIENT, 'JP')).status).toBe(404)
    expect((await token()).supply).toBe(1000)
    // Burning the whole holding removes it.
    const gone = await expectStatus(burn(1000), 201)
    expect([gone.supply, gone.holdings]).toEqual([0, []])
  })

  it('each is audited against the token and is an event (token.minted, token.burned)', async () => {
    await expectStatus(mint(5), 201)
    await expectStatus(burn(3), 201)
    const audit = (await expectStatus(h.get('/console/audit', { query: { limit: 50 } }), 200)).events as any[]
    const ours = audit.filter((e) => e.action === 'token.minted' || e.action === 'token.burned')
    expect(ours.map((e) => [e.action, e.target.type, e.target.id])).toEqual(
      expect.arrayContaining([
        ['token.minted', 'token', w.tokenId],
        ['token.burned', 'token', w.tokenId],
      ]),
    )
    const events = await expectStatus(h.get('/console/events', { query: { type: 'token.minted' } }), 200)
    expect(events.events).toHaveLength(1)
    expect(events.events[0].data.object).toMatchObject({ token_id: w.tokenId, supply: 1005 })
  })

  it('a mint covered by the four-eyes policy waits (202), then applies when another agent approves', async () => {
    await expectStatus(h.request('PUT', '/console/rwa/policy', { body: { require_approval: ['mint'] } }), 200)
    const pending = await expectStatus(mint(50, RECIPIENT, 'SG'), 202)
    expect(pending).toMatchObject({ operation: 'mint', status: 'pending' })
    expect((await token()).supply).toBe(1000)
    const agent = await expectStatus(
      h.post('/console/billing/keys', { org_id: 'admin', name: 'second', roles: ['agent'] }),
      201,
    )
    // Approving answers as the operation does: 201 with the token.
    const approved = tokenDetailSchema.parse(
      await expectStatus(
        h.post(`/console/rwa/approvals/${pending.approval_id}/approve`, undefined, { key: agent.api_key }),
        201,
      ),
    )
    expect(approved.supply).toBe(1050)
    const decided = await expectStatus(h.get(`/console/rwa/approvals/${pending.approval_id}`), 200)
    expect(decided.status).toBe('approved')
    const now = await token()
    expect(now.supply).toBe(1050)
    expect(now.governance_history.at(-1)).toMatchObject({ event: 'minted', details: { amount: 50 } })
  })
})

describe('min_holding', () => {
  it("each side's total after the transfer is 0 or at least the minimum; the reason says by how much", async () => {
    await setRules({ min_holding: 100 })
    const short = await transfer(99)
    expect(short.status).toBe('rejected')
    expect(checkOf(short, 'min_holding')).toEqual({
      requirement: 'rule:min_holding',
      jurisdiction: 'US',
      satisfied: false,
      evidence: 'rules.min_holding=100',
      reason: `recipient ${RECIPIENT} would hold 99 of ${w.tokenId}, under min_holding 100 by 1 (and not 0)`,
    })
    expect((await transfer(100)).status).toBe('approved')
    const senderShort = await transfer(801)
    expect(checkOf(senderShort, 'min_holding')).toMatchObject({
      satisfied: false,
      reason: `sender ${OWNER} would hold 99 of ${w.tokenId}, under min_holding 100 by 1 (and not 0)`,
    })
    expect((await transfer(800)).status).toBe('approved')
    // Down to 0 is allowed.
    expect(checkOf(await transfer(100), 'min_holding').satisfied).toBe(true)
  })
})

describe('transfer_windows', () => {
  it('slides: at the cap passes, one over fails by 1, and the volume leaves the window as it slides', async () => {
    await setRules({
      transfer_windows: [
        { seconds: 60, max_volume: 100 },
        { seconds: 3600, max_volume: 150 },
      ],
    })
    const first = await transfer(100)
    expect(first.status).toBe('approved')
    expect(checkOf(first, 'transfer_windows')).toMatchObject({
      satisfied: true,
      evidence: 'rules.transfer_windows=60s:100,3600s:150',
    })
    h.clock.advance(1_000)
    const over = await transfer(1)
    expect(checkOf(over, 'transfer_windows')).toEqual({
      requirement: 'rule:transfer_windows',
      jurisdiction: 'US',
      satisfied: false,
      evidence: 'rules.transfer_windows=60s:100,3600s:150',
      reason: `sender ${OWNER}'s approved volume in the last 60 s it would be 101 (100 before this transfer), over max_volume 100 by 1`,
    })
    // Refused transfers add nothing; 61 s on, the first 100 left the 60 s window, not the hour's.
    h.clock.advance(60_000)
    expect((await transfer(50)).status).toBe('approved')
    const hour = await transfer(1)
    expect(checkOf(hour, 'transfer_windows').reason).toBe(
      `sender ${OWNER}'s approved volume in the last 3600 s it would be 151 (150 before this transfer), over max_volume 150 by 1`,
    )
    // An hour and a bucket (60 s) later the first 100 left the hour too; the 50 stays in it.
    h.clock.advance(3_600_000)
    const later = await transfer(101)
    expect(checkOf(later, 'transfer_windows').reason).toContain(
      'in the last 3600 s it would be 151 (50 before this transfer), over max_volume 150 by 1',
    )
    expect((await transfer(100)).status).toBe('approved')
  })

  it("counts the sender's identity across its DIDs, and not forced transfers", async () => {
    await h.ctx.db
      .insertInto('identities')
      .values({
        org_id: 'admin',
        identity_id: 'idn_alice',
        seq: 'idn_0001',
        country: 'US',
        category: null,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      })
      .execute()
    await h.ctx.db
      .insertInto('identity_dids')
      .values(
        [OWNER, CAROL].map((did) => ({
          org_id: 'admin',
          did,
          identity_id: 'idn_alice',
          added_at: '2026-01-01T00:00:00.000Z',
        })),
      )
      .execute()
    await expectStatus(mint(200, CAROL), 201)
    await setRules({ transfer_windows: [{ seconds: 86_400, max_volume: 100 }] })
    // A forced transfer does not count.
    await expectStatus(
      h.post(tok('/forced-transfer'), {
        from_did: OWNER,
        from_jurisdiction: 'US',
        to_did: RECIPIENT,
        to_jurisdiction: 'SG',
        amount: 500,
        reason: 'court order',
      }),
      201,
    )
    expect((await transfer(60)).status).toBe('approved')
    const fromCarol = await transfer(41, { sender_did: CAROL })
    expect(checkOf(fromCarol, 'transfer_windows')).toMatchObject({
      satisfied: false,
      reason: `sender identity idn_alice (${CAROL})'s approved volume in the last 86400 s it would be 101 (60 before this transfer), over max_volume 100 by 1`,
    })
    expect((await transfer(40, { sender_did: CAROL })).status).toBe('approved')
  })

  it('refuses invalid windows with 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [[], 'transfer_windows'],
      [Array.from({ length: 5 }, (_, i) => ({ seconds: i + 1, max_volume: 1 })), 'transfer_windows'],
      [[{ seconds: 0, max_volume: 1 }], 'transfer_windows.0.seconds'],
      [[{ seconds: 60, max_volume: -1 }], 'transfer_windows.0.max_volume'],
      [
        [
          { seconds: 60, max_volume: 1 },
          { seconds: 60, max_volume: 2 },
        ],
        'transfer_windows.1.seconds',
      ],
    ]
    for (const [windows, path] of cases) {
      const res = await h.request('PUT', tok('/rules'), { body: { transfer_windows: windows } })
      expect(res.status).toBe(400)
      expect(res.body.errors.map((e: any) => e.path)).toContain(path)
    }
    for (const [field, value] of [
      ['min_holding', -1],
      ['lockup_days_after_receipt', 0],
      ['max_supply', -5],
    ] as const) {
      const res = await h.request('PUT', tok('/rules'), { body: { [field]: value } })
      expect([res.status, res.body.errors.map((e: any) => e.path)]).toEqual([400, [field]])
    }
  })
})

describe('batches', () => {
  it('tokens.rules takes the new rules; mint and burn are no batch operations', async () => {
    const done = await expectStatus(
      h.post('/console/rwa/batch', {
        operations: [
          {
            op: 'tokens.rules',
            body: { token_id: w.tokenId, min_holding: 5, transfer_windows: [{ seconds: 60, max_volume: 9 }] },
          },
        ],
      }),
      200,
    )
    expect(done.results[0].status).toBe(200)
    expect((await token()).rules).toMatchObject({
      min_holding: 5,
      transfer_windows: [{ seconds: 60, max_volume: 9 }],
    })
    const refused = await h.post('/console/rwa/batch', {
      operations: [{ op: 'tokens.mint', body: { token_id: w.tokenId } }],
    })
    expect(refused.status).toBe(400)
  })
})

describe('lockup_days_after_receipt', () => {
  it('locks units received by mint or transfer, first in first out across two receipts; tokenized units are free', async () => {
    await setRules({ lockup_days_after_receipt: 30 })
    await expectStatus(mint(100), 201) // receipt 1, day 0
    h.clock.advance(10 * DAY_MS)
    await expectStatus(mint(50), 201) // receipt 2, day 10
    // Day 10: the 1000 tokenized units are free, the 150 received are not.
    const over = await transfer(1001)
    expect(checkOf(over, 'lockup_days_after_receipt')).toMatchObject({
      satisfied: false,
      evidence: 'rules.lockup_days_after_receipt=30',
      reason: `150 of the sender's 1150 units in US were received in the last 30 days and are locked: only 1000 can be sent, 1 fewer than the 1001 requested; the next unlock at 2026-02-15T00:00:00.000Z`,
    })
    // Day 31: receipt 1 is free; sending 1050 takes the 1000, then 50 of it; receipt 2's 50 stay locked.
    h.clock.advance(21 * DAY_MS)
    expect((await transfer(1050)).status).toBe('approved')
    const locked = await transfer(51)
    expect(checkOf(locked, 'lockup_days_after_receipt').reason).toContain(
      "50 of the sender's 100 units in US were received in the last 30 days and are locked: only 50 can be sent, 1 fewer than the 51 requested",
    )
    expect((await transfer(50)).status).toBe('approved')
    // The recipient's units came by transfer: locked for it.
    const onward = await expectStatus(
      h.get(tok('/can-transfer'), {
        query: {
          from_jurisdiction: 'SG',
          to_jurisdiction: 'SG',
          recipient_did: CAROL,
          sender_did: RECIPIENT,
          amount: '1',
        },
      }),
      200,
    )
    expect(checkOf(onward, 'lockup_days_after_receipt')).toMatchObject({
      satisfied: false,
      reason: expect.stringContaining(
        `1100 of the sender's 1100 units in SG were received in the last 30 days`,
      ),
    })
    // Day 41: receipt 2 is free too; so is everything once the rule is cleared.
    h.clock.advance(10 * DAY_MS)
    expect(checkOf(await transfer(50), 'lockup_days_after_receipt').satisfied).toBe(true)
  })
})

describe('concurrency', () => {
  it.skipIf(process.env.RWA_TEST_DIALECT !== 'postgres')(
    '20 concurrent transfers across two instances against a window cap: exactly the allowed volume passes',
    async () => {
      const b = await h.newInstance()
      await setRules({ transfer_windows: [{ seconds: 3600, max_volume: 70 }] })
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? h : b).post('/console/rwa/transfers', transferBody(w.tokenId, 10)),
        ),
      )
      expect(statuses(responses)).toEqual({ 201: 20 })
      const decided = responses.map((r) => r.body.status)
      expect(decided.filter((s) => s === 'approved')).toHaveLength(7)
      expect(decided.filter((s) => s === 'rejected')).toHaveLength(13)
      const rows = await h.ctx.db.selectFrom('transfer_window_volumes').select('volume').execute()
      expect(rows.reduce((sum, r) => sum + Number(r.volume), 0)).toBe(70)
      expect((await token()).holdings.find((x) => x.holder_did === RECIPIENT)?.amount).toBe(70)
    },
  )
})
