import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tokenSchema } from '../../../../src/contract/rwa.js'
import { expectStatus } from '../../../support/governance.js'
import { createHarness, type Harness } from '../../../support/harness.js'
import { investorWorld, setRules } from '../../../support/investors.js'

/*
 * Country codes (docs/identities.md, "Country codes"): an identity's country, the list's filter and the
 * token rules that name countries take an assigned ISO 3166-1 alpha-2 code or XK; any other two letters
 * are a 400 naming the field and the code. What was stored before the check still reads back.
 */

const IDENTITIES = '/console/rwa/identities'
const NOT_ONE = (code: string) =>
  `expected an assigned ISO 3166-1 alpha-2 country code, e.g. US: ${code} is not one`

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

/** The 400's field errors, after checking it is the refusal of one field. */
function refusedFields(res: { status: number; body: any }): Array<{ path: string; message: string }> {
  expect(res.status, JSON.stringify(res.body)).toBe(400)
  expect(res.body.reason).toBe('invalid_field')
  return res.body.errors
}

describe('identities', () => {
  it('POST refuses an unassigned code naming country and the code; XK is taken', async () => {
    for (const country of ['XX', 'ZZ', 'AA', 'EU', 'UK', 'AN']) {
      const res = await h.post(IDENTITIES, { dids: ['did:web:acme:alice'], country })
      expect(refusedFields(res)).toEqual([{ path: 'country', message: NOT_ONE(country) }])
    }
    const kosovo = await expectStatus(
      h.post(IDENTITIES, { dids: ['did:web:acme:alice'], country: 'XK' }),
      201,
    )
    expect(kosovo.country).toBe('XK')
  })

  it('PATCH refuses an unassigned code naming country; the identity keeps its own', async () => {
    const created = await expectStatus(h.post(IDENTITIES, { dids: ['did:web:acme:a'], country: 'US' }), 201)
    const path = `${IDENTITIES}/${created.identity_id}`
    const res = await h.request('PATCH', path, { body: { country: 'QQ' } })
    expect(refusedFields(res)).toEqual([{ path: 'country', message: NOT_ONE('QQ') }])
    expect((await expectStatus(h.get(path), 200)).country).toBe('US')
    expect((await expectStatus(h.request('PATCH', path, { body: { country: 'SS' } }), 200)).country).toBe(
      'SS',
    )
  })

  it('the list refuses ?country= of an unassigned code naming country', async () => {
    const res = await h.get(IDENTITIES, { query: { country: 'XX' } })
    expect(refusedFields(res)).toEqual([{ path: 'country', message: NOT_ONE('XX') }])
    expect((await expectStatus(h.get(IDENTITIES, { query: { country: 'XK' } }), 200)).identities).toEqual([])
  })

  it('a country stored before the check reads back, and can be changed to an assigned one', async () => {
    const created = await expectStatus(h.post(IDENTITIES, { dids: ['did:web:acme:old'], country: 'US' }), 201)
    // Written directly, as an identity stored while any two upper-case letters were taken.
    await h.ctx.db
      .updateTable('identities')
      .set({ country: 'ZZ' })
      .where('identity_id', '=', created.identity_id)
      .execute()
    const path = `${IDENTITIES}/${created.identity_id}`
    expect((await expectStatus(h.get(path), 200)).country).toBe('ZZ')
    expect((await expectStatus(h.get(IDENTITIES), 200)).identities[0].country).toBe('ZZ')
    expect((await expectStatus(h.request('PATCH', path, { body: { country: 'FR' } }), 200)).country).toBe(
      'FR',
    )
  })
})

describe('token rules', () => {
  let tokenId: string
  beforeEach(async () => {
    ;({ tokenId } = await investorWorld(h))
  })
  const put = (body: Record<string, unknown>) =>
    h.request('PUT', `/console/rwa/tokens/${tokenId}/rules`, { body })

  it('country_allow, country_deny and the keys of max_holders_per_country refuse an unassigned code by path', async () => {
    for (const [body, path, code] of [
      [{ country_allow: ['US', 'XX'] }, 'country_allow.1', 'XX'],
      [{ country_deny: ['ZZ'] }, 'country_deny.0', 'ZZ'],
      [{ max_holders_per_country: { US: 10, QQ: 5 } }, 'max_holders_per_country.QQ', 'QQ'],
    ] as const) {
      expect(refusedFields(await put(body))).toEqual([{ path, message: NOT_ONE(code) }])
    }
    // A key that is not two upper-case letters is named the same way, with the contract's message.
    expect(refusedFields(await put({ max_holders_per_country: { us: 5 } }))).toEqual([
      {
        path: 'max_holders_per_country.us',
        message: 'expected an assigned ISO 3166-1 alpha-2 country code (two upper-case letters), e.g. US',
      },
    ])
    const set = await setRules(h, tokenId, {
      country_allow: ['XK', 'TW'],
      country_deny: ['EH'],
      max_holders_per_country: { XK: 3, CW: 4 },
    })
    expect(set.rules).toMatchObject({
      country_allow: ['XK', 'TW'],
      country_deny: ['EH'],
      max_holders_per_country: { XK: 3, CW: 4 },
    })
  })

  it('rules stored before the check read back, through the contract the clients parse with', async () => {
    await setRules(h, tokenId, { country_allow: ['US'], max_holders_per_country: { US: 5 } })
    const row = await h.ctx.db
      .selectFrom('tokens')
      .select('rules')
      .where('token_id', '=', tokenId)
      .executeTakeFirstOrThrow()
    // As a token's rules stored while any two upper-case letters were taken.
    await h.ctx.db
      .updateTable('tokens')
      .set({ rules: row.rules!.replaceAll('"US"', '"ZZ"') })
      .where('token_id', '=', tokenId)
      .execute()
    const token = await expectStatus(h.get(`/console/rwa/tokens/${tokenId}`), 200)
    expect(token.rules).toMatchObject({ country_allow: ['ZZ'], max_holders_per_country: { ZZ: 5 } })
    expect(tokenSchema.safeParse(token).success).toBe(true)
  })
})
