import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TOKEN_FROZEN_HOLDERS_SHOWN, TOKEN_HOLDINGS_SHOWN } from '../../../src/contract/rwa.js'
import { buildWorld, expectStatus, OWNER, RECIPIENT, SG, transferBody } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * Data that once broke a route (issue 22), each tried over HTTP as an attacker or a large customer
 * would, on SQLite and PostgreSQL alike.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const tokenPath = (id: string, rest = '') => `/console/rwa/tokens/${id}${rest}`

describe('a token with more holders than a statement can take parameters (32,766 on SQLite)', () => {
  it('lists and details it with its largest holdings and holdings_total, and pages through all of them', async () => {
    const w = await buildWorld(h)
    const HOLDERS = 33_000
    // Written directly: 33,000 transfers through the API would take minutes. Each holds one unit,
    // moved out of the owner's holding so that the amounts still sum to the supply.
    await h.ctx.db
      .updateTable('tokens')
      .set({ total_supply: 1000 + HOLDERS })
      .where('token_id', '=', w.tokenId)
      .execute()
    const did = (i: number) => `did:web:holder:${String(i).padStart(5, '0')}`
    for (let start = 0; start < HOLDERS; start += 500) {
      const rows = Array.from({ length: Math.min(500, HOLDERS - start) }, (_, k) => ({
        token_id: w.tokenId,
        holder_did: did(start + k),
        jurisdiction: 'SG',
        amount: 1,
      }))
      await h.ctx.db.insertInto('holdings').values(rows).execute()
    }
    await h.ctx.db
      .insertInto('holder_freezes')
      .values({
        token_id: w.tokenId,
        holder_did: OWNER,
        org_id: 'admin',
        frozen_at: '2026-01-15T12:00:00.000Z',
      })
      .execute()

    const list = await expectStatus(h.get('/console/rwa/tokens'), 200)
    const token = list.tokens.find((t: { token_id: string }) => t.token_id === w.tokenId)
    expect(token.holdings_total).toBe(HOLDERS + 1)
    expect(token.holdings).toHaveLength(TOKEN_HOLDINGS_SHOWN)
    // Largest first: the owner's 1000, frozen as a whole holder; then the one-unit holders by DID.
    expect(token.holdings[0]).toEqual({
      holder_did: OWNER,
      jurisdiction: 'US',
      amount: 1000,
      frozen_amount: 0,
      frozen: true,
    })
    expect(token.holdings[1]).toMatchObject({ holder_did: did(0), amount: 1, frozen: false })

    const detail = await h.get(tokenPath(w.tokenId))
    expect(detail.status).toBe(200)
    expect(detail.body.holdings).toEqual(token.holdings)
    expect(detail.body.holdings_total).toBe(HOLDERS + 1)
    expect(detail.text.length).toBeLessThan(100_000)

    const page = await expectStatus(h.get(tokenPath(w.tokenId, '/holdings'), { query: { limit: 500 } }), 200)
    expect(page.total).toBe(HOLDERS + 1)
    expect(page.holdings).toHaveLength(500)
    expect(page.next_cursor).not.toBeNull()
  }, 120_000)
})

describe('a token with thousands of DIDs frozen as a whole', () => {
  it('details it with the first of them and frozen_holders_total, and pages through all of them', async () => {
    const w = await buildWorld(h)
    const FROZEN = 5_000
    // Written directly, as 5,000 freezes through the API would take minutes; a frozen DID need not hold.
    const did = (i: number) => `did:web:frozen:${String(i).padStart(5, '0')}`
    for (let start = 0; start < FROZEN; start += 500) {
      const rows = Array.from({ length: Math.min(500, FROZEN - start) }, (_, k) => ({
        token_id: w.tokenId,
        holder_did: did(start + k),
        org_id: 'admin',
        frozen_at: '2026-01-15T12:00:00.000Z',
      }))
      await h.ctx.db.insertInto('holder_freezes').values(rows).execute()
    }

    const detail = await h.get(tokenPath(w.tokenId))
    expect(detail.status).toBe(200)
    expect(detail.body.frozen_holders_total).toBe(FROZEN)
    expect(detail.body.frozen_holders).toEqual(
      Array.from({ length: TOKEN_FROZEN_HOLDERS_SHOWN }, (_, i) => did(i)),
    )
    expect(detail.text.length).toBeLessThan(50_000)

    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await expectStatus(
        h.get(tokenPath(w.tokenId, '/frozen-holders'), { query: { limit: 500, cursor } }),
        200,
      )
      expect(page.total).toBe(FROZEN)
      seen.push(...page.frozen_holders)
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
    expect(seen).toEqual(Array.from({ length: FROZEN }, (_, i) => did(i)))

    // Not base64url of text, and the base64url of three NULs (which PostgreSQL would refuse as text).
    for (const cursor of ['AAAA_', 'AAAA']) {
      const garbage = await h.get(tokenPath(w.tokenId, '/frozen-holders'), { query: { cursor } })
      expect(garbage.status, cursor).toBe(400)
      expect(garbage.body.reason, cursor).toBe('invalid_cursor')
    }
    expect((await h.get(tokenPath('tok_01JD0000000000000000000000', '/frozen-holders'))).status).toBe(404)
    // The holdings cursor likewise: JSON of a NUL and a jurisdiction.
    const nul = Buffer.from(JSON.stringify(['\u0000', 'US'])).toString('base64url')
    const holdings = await h.get(tokenPath(w.tokenId, '/holdings'), { query: { cursor: nul } })
    expect(holdings.status).toBe(400)
    expect(holdings.body.reason).toBe('invalid_cursor')
  }, 120_000)
})

describe("a sender's daily volume past 2^53", () => {
  it('keeps every further transfer of that sender answered (not a 500 for the rest of the day)', async () => {
    const w = await buildWorld(h, h.adminKey, { supply: Number.MAX_SAFE_INTEGER })
    const send = async (amount: number) => {
      const t = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, amount)), 201)
      expect(t.status).toBe('approved')
    }
    // The owner sends its whole supply (2^53 - 1) in two transfers: the day's volume is at the limit.
    await send(2 ** 52)
    await send(2 ** 52 - 1)
    // An agent moves some back (a forced transfer counts in no one's volume), and the owner sends again:
    // the day's volume passes 2^53, which PostgreSQL's int8 could hold but a JavaScript number cannot.
    await expectStatus(
      h.post('/console/rwa/attestations', {
        jurisdiction: 'US',
        subject_did: OWNER,
        type: 'kyc',
        attester: 'Acme KYC Ltd',
      }),
      201,
    )
    await expectStatus(
      h.post(tokenPath(w.tokenId, '/forced-transfer'), {
        from_did: RECIPIENT,
        from_jurisdiction: 'SG',
        to_did: OWNER,
        to_jurisdiction: 'US',
        amount: 10,
        reason: 'court order 2026-79',
      }),
      201,
    )
    await send(2)
    await send(1)
    await send(1)
    // The sum (2^53 + 1) is past the contract's integers: a daily limit still refuses what exceeds it.
    await expectStatus(
      h.request('PUT', tokenPath(w.tokenId, '/rules'), {
        body: { daily_volume_per_holder: Number.MAX_SAFE_INTEGER },
      }),
      200,
    )
    const refused = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 1)), 201)
    expect(refused.status).toBe('rejected')
    expect(
      refused.compliance_details.checks.find(
        (c: { requirement: string }) => c.requirement === 'rule:daily_volume_per_holder',
      ),
    ).toMatchObject({ satisfied: false })
  })
})

describe('a jurisdiction named like an Object.prototype member', () => {
  it('is a jurisdiction like any other to the holder cap (no cap read from Object.prototype)', async () => {
    const w = await buildWorld(h)
    const CONSTRUCTOR = { ...SG, jurisdiction_id: 'constructor', name: 'Constructor' }
    await expectStatus(h.post('/console/rwa/jurisdictions', CONSTRUCTOR), 201)
    await expectStatus(
      h.post('/console/rwa/jurisdictions/trust', { from_jurisdiction: 'US', to_jurisdiction: 'constructor' }),
      201,
    )
    await expectStatus(
      h.request('PUT', tokenPath(w.tokenId, '/rules'), { body: { max_holders: { SG: 5 } } }),
      200,
    )
    const res = await h.post(
      '/console/rwa/transfers',
      transferBody(w.tokenId, 10, { to_jurisdiction: 'constructor' }),
    )
    expect(res.status).toBe(201)
    expect(res.text).not.toMatch(/function|native code|NaN/)
    const cap = res.body.compliance_details.checks.find(
      (c: { requirement: string }) => c.requirement === 'rule:max_holders',
    )
    expect(cap === undefined || cap.satisfied === true).toBe(true)
    expect(res.body.status).toBe('approved')
  })
})

describe('a forced transfer from a holding to itself', () => {
  it('is refused 422 same_holding, and the frozen units stay frozen', async () => {
    const w = await buildWorld(h)
    await expectStatus(
      h.post(tokenPath(w.tokenId, '/freeze'), { holder_did: OWNER, jurisdiction: 'US', amount: 400 }),
      200,
    )
    const res = await h.post(tokenPath(w.tokenId, '/forced-transfer'), {
      from_did: OWNER,
      from_jurisdiction: 'US',
      to_did: OWNER,
      to_jurisdiction: 'US',
      amount: 1000,
      reason: 'court order 2026-78',
    })
    expect(res.status).toBe(422)
    expect(res.body).toMatchObject({
      reason: 'same_holding',
      context: { token_id: w.tokenId, holder_did: OWNER, jurisdiction: 'US' },
    })
    const holdings = await expectStatus(h.get(tokenPath(w.tokenId, '/holdings')), 200)
    expect(holdings.holdings).toEqual([
      { holder_did: OWNER, jurisdiction: 'US', amount: 1000, frozen_amount: 400, frozen: false },
    ])
    expect((await expectStatus(h.get('/console/rwa/transfers'), 200)).total).toBe(0)
  })
})
