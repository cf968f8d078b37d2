import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { expectStatus, OWNER } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { failing, identity, investorWorld, move, setRules } from '../../support/investors.js'

/*
 * The token rules that read identities, through the API: each at its boundary, a recipient of no
 * identity, and units moving between one identity's own DIDs.
 */

let h: Harness
let tokenId: string
beforeEach(async () => {
  h = await createHarness()
  ;({ tokenId } = await investorWorld(h))
})
afterEach(() => h.close())

const transfer = (recipient: string, amount: number, sender = OWNER) =>
  expectStatus(h.post('/console/rwa/transfers', move(tokenId, recipient, amount, sender)), 201)
const rule = (t: any, name: string) =>
  t.compliance_details.checks.find((c: any) => c.requirement === `rule:${name}`)

describe('PUT rules with the rules that read identities', () => {
  it('shows them on the token, and refuses invalid values naming the field', async () => {
    const set = await setRules(h, tokenId, {
      country_allow: ['US', 'GB', 'US'],
      country_deny: ['RU'],
      max_holders_per_country: { US: 2000 },
      max_ownership_percent: 12.5,
      allowed_categories: ['accredited', 'institutional'],
    })
    expect(set.rules).toMatchObject({
      country_allow: ['US', 'GB'],
      country_deny: ['RU'],
      max_holders_per_country: { US: 2000 },
      max_ownership_percent: 12.5,
      allowed_categories: ['accredited', 'institutional'],
    })
    for (const [body, path] of [
      [{ country_allow: ['usa'] }, 'country_allow.0'],
      [{ country_deny: ['U1'] }, 'country_deny.0'],
      [{ allowed_categories: ['whale'] }, 'allowed_categories.0'],
      [{ max_holders_per_country: { US: -1 } }, 'max_holders_per_country.US'],
      [{ max_ownership_percent: 101 }, 'max_ownership_percent'],
      [{ max_ownership_percent: -0.5 }, 'max_ownership_percent'],
    ] as const) {
      const bad = await h.request('PUT', `/console/rwa/tokens/${tokenId}/rules`, { body })
      expect(bad.status).toBe(400)
      expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual([path])
    }
    // Nothing changed by the refusals.
    expect((await expectStatus(h.get(`/console/rwa/tokens/${tokenId}`), 200)).rules).toEqual(set.rules)
  })
})

describe('country and category rules read the recipient’s identity', () => {
  it('country_allow and country_deny name the country; a recipient without an identity fails', async () => {
    await identity(h, 'idn_fr', 'FR', ['did:web:fr:a'], 'retail')
    await identity(h, 'idn_gb', 'GB', ['did:web:gb:a'], 'professional')
    await setRules(h, tokenId, { country_allow: ['GB', 'FR'], country_deny: ['FR'] })

    const gb = await transfer('did:web:gb:a', 10)
    expect(gb.status).toBe('approved')
    const fr = await transfer('did:web:fr:a', 10)
    expect(fr.status).toBe('rejected')
    expect(failing(fr)).toEqual([
      expect.objectContaining({
        requirement: 'rule:country_deny',
        reason: "recipient did:web:fr:a's identity idn_fr is of FR, which country_deny refuses",
      }),
    ])
    const nobody = await transfer('did:web:nowhere:x', 10)
    expect(nobody.status).toBe('rejected')
    expect(failing(nobody).map((c: any) => [c.requirement, c.reason])).toEqual([
      [
        'rule:country_allow',
        'did:web:nowhere:x has no identity: country_allow admits only identities of GB, FR',
      ],
      [
        'rule:country_deny',
        'did:web:nowhere:x has no identity: country_deny admits only identities of a country not in FR',
      ],
    ])
  })

  it('allowed_categories names the category', async () => {
    await identity(h, 'idn_r', 'FR', ['did:web:fr:r'], 'retail')
    await identity(h, 'idn_i', 'FR', ['did:web:fr:i'], 'institutional')
    await setRules(h, tokenId, { allowed_categories: ['institutional'] })
    expect((await transfer('did:web:fr:i', 10)).status).toBe('approved')
    const retail = await transfer('did:web:fr:r', 10)
    expect(rule(retail, 'allowed_categories')).toMatchObject({
      satisfied: false,
      reason:
        "recipient did:web:fr:r's identity idn_r is of category retail, not in allowed_categories (institutional)",
    })
  })
})

describe('max_holders_per_country counts identities, not DIDs', () => {
  it('at the cap passes, one more identity fails by 1; a second DID of a holder identity passes', async () => {
    await identity(h, 'idn_1', 'DE', ['did:web:de:1', 'did:web:de:1b'])
    await identity(h, 'idn_2', 'DE', ['did:web:de:2'])
    await identity(h, 'idn_3', 'DE', ['did:web:de:3'])
    await setRules(h, tokenId, { max_holders_per_country: { DE: 2 } })

    expect((await transfer('did:web:de:1', 10)).status).toBe('approved')
    const second = await transfer('did:web:de:2', 10)
    expect(rule(second, 'max_holders_per_country')).toMatchObject({
      satisfied: true,
      reason: 'DE would have 2 holder identities of ' + tokenId + ', within max_holders_per_country 2',
    })
    const third = await transfer('did:web:de:3', 10)
    expect(third.status).toBe('rejected')
    expect(failing(third)).toEqual([
      expect.objectContaining({
        requirement: 'rule:max_holders_per_country',
        evidence: 'rules.max_holders_per_country.DE=2',
        reason: `DE would have 3 holder identities of ${tokenId}, over max_holders_per_country 2 by 1`,
      }),
    ])
    // Another DID of idn_1 adds no holder identity.
    expect((await transfer('did:web:de:1b', 10)).status).toBe('approved')
    // idn_2 sends all it holds to idn_3: idn_3 takes its place.
    expect((await transfer('did:web:de:3', 10, 'did:web:de:2')).status).toBe('approved')
  })
  it('reads identities as they are at the transfer: a DID added to a holder identity adds no holder', async () => {
    await identity(h, 'idn_a', 'DE', ['did:web:de:a1'])
    await identity(h, 'idn_b', 'DE', ['did:web:de:b1'])
    await setRules(h, tokenId, { max_holders_per_country: { DE: 1 } })
    expect((await transfer('did:web:de:a1', 10)).status).toBe('approved')
    expect((await transfer('did:web:de:b1', 10)).status).toBe('rejected')
    // A fresh DID is of no identity, so of no country: not capped.
    expect(rule(await transfer('did:web:de:a2', 1), 'max_holders_per_country')).toBeUndefined()
    await expectStatus(h.post('/console/rwa/identities/idn_a/dids', { add: ['did:web:de:a3'] }), 200)
    const added = await transfer('did:web:de:a3', 10)
    expect(added.status).toBe('approved')
    expect(rule(added, 'max_holders_per_country').reason).toMatch(
      /^the transfer adds no holder identity to DE/,
    )
  })
})

describe('max_ownership_percent is of the supply, over all an identity’s DIDs', () => {
  it('at the cap passes, one unit over fails by 1; moving between its own DIDs never fails', async () => {
    await identity(h, 'idn_big', 'CH', ['did:web:ch:hot', 'did:web:ch:cold'])
    await setRules(h, tokenId, { max_ownership_percent: 10 })

    expect((await transfer('did:web:ch:hot', 60)).status).toBe('approved')
    const atCap = await transfer('did:web:ch:cold', 40)
    expect(atCap.status).toBe('approved')
    const over = await transfer('did:web:ch:cold', 1)
    expect(over.status).toBe('rejected')
    expect(failing(over)).toEqual([
      expect.objectContaining({
        requirement: 'rule:max_ownership_percent',
        reason: `identity idn_big would hold 101 of ${tokenId} over its DIDs and jurisdictions, 10.1% of the supply, over max_ownership_percent 10 (100 of 1000 units) by 1`,
      }),
    ])
    // Lowered below what it holds: moving between its own DIDs still passes.
    await setRules(h, tokenId, { max_ownership_percent: 5 })
    const own = await transfer('did:web:ch:cold', 60, 'did:web:ch:hot')
    expect(own.status).toBe('approved')
    expect(rule(own, 'max_ownership_percent').reason).toMatch(
      /between identity idn_big's own holdings: its total stays 100/,
    )
    // can-transfer says the same without recording anything.
    const can = await expectStatus(
      h.get(`/console/rwa/tokens/${tokenId}/can-transfer`, {
        query: { from_jurisdiction: 'US', to_jurisdiction: 'US', recipient_did: 'did:web:ch:hot', amount: 1 },
      }),
      200,
    )
    expect(can.allowed).toBe(false)
    expect(
      can.compliance_details.checks.find((c: any) => c.requirement === 'rule:max_ownership_percent').reason,
    ).toMatch(/over max_ownership_percent 5 \(50 of 1000 units\) by 51$/)
  })
})
