import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { expectStatus, OWNER } from '../support/governance.js'
import { createHarness, type Harness, type TestInstance } from '../support/harness.js'
import { identity, investorWorld, move, setRules } from '../support/investors.js'

/*
 * The rules that read identities under concurrency: transfers racing for the last places, split
 * between two instances over one PostgreSQL database and one Redis. Each transfer reads the counts
 * after taking its token's row lock, so exactly the allowed number pass whatever the order.
 */

let a: Harness
let b: TestInstance
beforeEach(async () => {
  a = await createHarness()
  b = await a.newInstance()
})
afterEach(() => a.close())

const sendSplit = (tokenId: string, n: number, recipient: (i: number) => string, amount: number) =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      (i % 2 === 0 ? a : b).post('/console/rwa/transfers', move(tokenId, recipient(i), amount)),
    ),
  )

describe('rules that read identities, across two instances', () => {
  it('max_holders_per_country: 20 new identities race for the last place, exactly one gets it', async () => {
    const { tokenId } = await investorWorld(a)
    for (let i = 0; i < 22; i++) await identity(a, `idn_de${i}`, 'DE', [`did:web:de:${i}`])
    await setRules(a, tokenId, { max_holders_per_country: { DE: 3 } })
    for (const i of [20, 21]) {
      expect(
        (await expectStatus(a.post('/console/rwa/transfers', move(tokenId, `did:web:de:${i}`, 10)), 201))
          .status,
      ).toBe('approved')
    }

    const responses = await sendSplit(tokenId, 20, (i) => `did:web:de:${i}`, 10)
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201))
    const approved = responses.filter((r) => r.body.status === 'approved')
    expect(approved).toHaveLength(1)
    for (const r of responses.filter((r) => r.body.status === 'rejected')) {
      expect(r.body.compliance_details.checks.filter((c: { satisfied: boolean }) => !c.satisfied)).toEqual([
        expect.objectContaining({
          requirement: 'rule:max_holders_per_country',
          reason: `DE would have 4 holder identities of ${tokenId}, over max_holders_per_country 3 by 1`,
        }),
      ])
    }
    const token = (await b.get(`/console/rwa/tokens/${tokenId}`)).body
    const holders = token.holdings.filter((h: { holder_did: string }) => h.holder_did !== OWNER)
    expect(holders).toHaveLength(3)
    expect(token.holdings.reduce((n: number, h: { amount: number }) => n + h.amount, 0)).toBe(1000)
    expect([...a.loggedErrors, ...b.loggedErrors]).toEqual([])
  })

  it('max_ownership_percent: 20 transfers to one identity’s DIDs race for its last 10 units, exactly two pass', async () => {
    const { tokenId } = await investorWorld(a)
    const dids = Array.from({ length: 21 }, (_, i) => `did:web:ch:wallet-${i}`)
    await identity(a, 'idn_whale', 'CH', dids)
    await setRules(a, tokenId, { max_ownership_percent: 10 })
    expect(
      (await expectStatus(a.post('/console/rwa/transfers', move(tokenId, dids[20]!, 90)), 201)).status,
    ).toBe('approved')

    const responses = await sendSplit(tokenId, 20, (i) => dids[i]!, 5)
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201))
    expect(responses.filter((r) => r.body.status === 'approved')).toHaveLength(2)
    for (const r of responses.filter((r) => r.body.status === 'rejected')) {
      expect(r.body.compliance_details.checks.filter((c: { satisfied: boolean }) => !c.satisfied)).toEqual([
        expect.objectContaining({
          requirement: 'rule:max_ownership_percent',
          reason: expect.stringMatching(
            /would hold 105 .* over max_ownership_percent 10 \(100 of 1000 units\) by 5$/,
          ),
        }),
      ])
    }
    const token = (await b.get(`/console/rwa/tokens/${tokenId}`)).body
    const whale = token.holdings
      .filter((h: { holder_did: string }) => dids.includes(h.holder_did))
      .reduce((n: number, h: { amount: number }) => n + h.amount, 0)
    expect(whale).toBe(100)
    expect([...a.loggedErrors, ...b.loggedErrors]).toEqual([])
  })
})
