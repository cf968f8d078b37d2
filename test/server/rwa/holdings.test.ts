import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHarness, type Harness } from '../../support/harness.js'
import { buildWorld, expectStatus, OWNER, RECIPIENT } from '../../support/governance.js'

const CAROL = 'did:web:lion:carol'
const DIDS = [OWNER, RECIPIENT, CAROL]
const PLACES = ['US', 'SG'] as const

let h: Harness
beforeAll(async () => {
  h = await createHarness()
})
afterAll(() => h.close())

const key = (did: string, place: string) => `${did}@${place}`

describe('holdings under any sequence of transfers', () => {
  it('always sum to total_supply, match a simple model, and never go negative', async () => {
    const w = await buildWorld(h, h.adminKey, { trust: false })
    // Mutual trust, and every DID attested in US for everything either side requires.
    await expectStatus(
      h.post('/console/rwa/jurisdictions/trust', {
        from_jurisdiction: 'US',
        to_jurisdiction: 'SG',
        mutual: true,
      }),
      201,
    )
    for (const did of DIDS) {
      for (const type of ['kyc', 'aml', 'investor_qualification']) {
        await expectStatus(
          h.post('/console/rwa/attestations', {
            jurisdiction: 'US',
            subject_did: did,
            type,
            attester: 'KYC Co',
          }),
          201,
        )
      }
    }
    const model = new Map<string, number>([[key(OWNER, 'US'), 1000]])

    const transfer = fc.record({
      sender: fc.constantFrom(...DIDS),
      recipient: fc.constantFrom(...DIDS, 'did:web:x:unattested'),
      from: fc.constantFrom(...PLACES),
      to: fc.constantFrom(...PLACES),
      amount: fc.integer({ min: 1, max: 600 }),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(transfer, { minLength: 1, maxLength: 6 }), async (steps) => {
        for (const s of steps) {
          const res = await h.post('/console/rwa/transfers', {
            token_id: w.tokenId,
            from_jurisdiction: s.from,
            to_jurisdiction: s.to,
            sender_did: s.sender,
            recipient_did: s.recipient,
            amount: s.amount,
          })
          const held = model.get(key(s.sender, s.from)) ?? 0
          if (s.amount > held) {
            expect(res.status).toBe(409)
            continue
          }
          expect(res.status).toBe(201)
          // Only the unattested recipient fails a requirement here.
          const expected = s.recipient === 'did:web:x:unattested' ? 'rejected' : 'approved'
          expect(res.body.status).toBe(expected)
          if (expected === 'approved') {
            model.set(key(s.sender, s.from), held - s.amount)
            model.set(key(s.recipient, s.to), (model.get(key(s.recipient, s.to)) ?? 0) + s.amount)
          }
        }
        const token = await expectStatus(h.get(`/console/rwa/tokens/${w.tokenId}`), 200)
        const holdings = token.holdings as Array<{ holder_did: string; jurisdiction: string; amount: number }>
        expect(holdings.reduce((sum, x) => sum + x.amount, 0)).toBe(1000)
        expect(holdings.every((x) => x.amount > 0)).toBe(true)
        const expected = Object.fromEntries([...model].filter(([, amount]) => amount > 0))
        expect(
          Object.fromEntries(holdings.map((x) => [key(x.holder_did, x.jurisdiction), x.amount])),
        ).toEqual(expected)
      }),
      { numRuns: 25 },
    )
  })
})

describe('amounts up to 2^53-1 (bigint on PostgreSQL)', () => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness()
  })
  afterAll(() => h.close())

  it('tokenizes and moves the largest supply the contract allows, exactly', async () => {
    const max = Number.MAX_SAFE_INTEGER
    const w = await buildWorld(h, h.adminKey)
    const credential = await expectStatus(
      h.post('/console/rwa/credentials', {
        jurisdiction: 'US',
        owner_did: OWNER,
        property_data: { address: '2 Market St', type: 'commercial', value_usd: 1, title_deed: 'X-2' },
      }),
      201,
    )
    await expectStatus(
      h.post('/console/rwa/attestations', {
        jurisdiction: 'US',
        subject_did: OWNER,
        type: 'title_verification',
        attester: 'Title Co',
        credential_id: credential.credential_id,
      }),
      201,
    )
    const token = await expectStatus(
      h.post('/console/rwa/tokenize', { credential_id: credential.credential_id, total_supply: max }),
      201,
    )
    expect(token.total_supply).toBe(max)
    const body = {
      token_id: token.token_id,
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      recipient_did: RECIPIENT,
    }
    expect(
      (await expectStatus(h.post('/console/rwa/transfers', { ...body, amount: max - 1 }), 201)).status,
    ).toBe('approved')
    const after = await expectStatus(h.get(`/console/rwa/tokens/${token.token_id}`), 200)
    expect(after.total_supply).toBe(max)
    expect(after.holdings).toMatchObject([
      { holder_did: RECIPIENT, jurisdiction: 'SG', amount: max - 1 },
      { holder_did: OWNER, jurisdiction: 'US', amount: 1 },
    ])
    expect(w.tokenId).not.toBe(token.token_id)
  })
})
