import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { identitySchema } from '../../../../src/contract/identities.js'
import { expectStatus } from '../../../support/governance.js'
import { createHarness, type Harness } from '../../../support/harness.js'

/*
 * Investors' identities (docs/identities.md): creating and reading them, the fields refused by name, a
 * DID in at most one identity of an organization (also when two requests claim it at once), changes of
 * the country, category and DIDs, roles, and another organization seeing none of them.
 */

const IDENTITIES = '/console/rwa/identities'
let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const alice = {
  dids: ['did:web:acme:alice', 'did:web:acme:alice-cold'],
  country: 'US',
  category: 'accredited',
}

describe('POST /console/rwa/identities', () => {
  it('creates an identity with an idn_ id, its DIDs in order; GET answers the same', async () => {
    const created = await expectStatus(h.post(IDENTITIES, alice), 201)
    expect(identitySchema.parse(created)).toEqual(created)
    expect(created.identity_id).toMatch(/^idn_[0-9A-Z]{26}$/)
    expect(created).toMatchObject({ dids: alice.dids, country: 'US', category: 'accredited' })
    expect(created.created_at).toBe(created.updated_at)
    expect(await expectStatus(h.get(`${IDENTITIES}/${created.identity_id}`), 200)).toEqual(created)
  })

  it('takes a chosen id and no category (null); the same id twice is 409 identity_exists', async () => {
    const body = { identity_id: 'investor-42', dids: ['did:web:acme:bob'], country: 'SG' }
    const created = await expectStatus(h.post(IDENTITIES, body), 201)
    expect(created).toMatchObject({ identity_id: 'investor-42', category: null })
    const again = await h.post(IDENTITIES, { ...body, dids: ['did:web:acme:bob2'] })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ reason: 'identity_exists', context: { identity_id: 'investor-42' } })
  })

  it.each([
    [{ ...alice, country: 'us' }, 'country'],
    [{ ...alice, country: 'USA' }, 'country'],
    [{ ...alice, country: undefined }, 'country'],
    [{ ...alice, category: 'whale' }, 'category'],
    [{ ...alice, dids: [] }, 'dids'],
    [{ ...alice, dids: ['not-a-did'] }, 'dids.0'],
    [{ ...alice, dids: ['did:web:a:b', 'did:web:a:b'] }, 'dids'],
    [{ ...alice, identity_id: 'has space' }, 'identity_id'],
    [{ ...alice, extra: 1 }, ''],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const res = await h.post(IDENTITIES, body)
    expect(res.status).toBe(400)
    expect(res.body.reason).toBe('invalid_field')
    if (field) expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field)
  })

  it('refuses a DID of another identity with 409 did_in_use naming it; the first identity is unchanged', async () => {
    const first = await expectStatus(h.post(IDENTITIES, alice), 201)
    const res = await h.post(IDENTITIES, {
      dids: ['did:web:acme:carol', 'did:web:acme:alice-cold'],
      country: 'FR',
    })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({
      reason: 'did_in_use',
      context: { did: 'did:web:acme:alice-cold', identity_id: first.identity_id },
    })
    const list = await expectStatus(h.get(IDENTITIES), 200)
    expect(list.total).toBe(1)
    // Nothing of the refused one was kept: its other DID is free.
    await expectStatus(h.post(IDENTITIES, { dids: ['did:web:acme:carol'], country: 'FR' }), 201)
  })

  it('of concurrent creates claiming one DID, exactly one wins; the others are 409 did_in_use', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        h.post(IDENTITIES, { dids: [`did:web:acme:own-${i}`, 'did:web:acme:shared'], country: 'DE' }),
      ),
    )
    const statuses = results.map((r) => r.status).sort()
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409])
    const winner = results.find((r) => r.status === 201)!.body
    for (const lost of results.filter((r) => r.status === 409)) {
      expect(lost.body).toMatchObject({
        reason: 'did_in_use',
        context: { did: 'did:web:acme:shared', identity_id: winner.identity_id },
      })
    }
    const list = await expectStatus(h.get(IDENTITIES, { query: { did: 'did:web:acme:shared' } }), 200)
    expect(list.identities.map((i: { identity_id: string }) => i.identity_id)).toEqual([winner.identity_id])
    expect((await expectStatus(h.get(IDENTITIES), 200)).total).toBe(1)
  })
})

describe('GET /console/rwa/identities', () => {
  it('lists newest first, filters by country, category and did, and pages with next_cursor', async () => {
    const a = await expectStatus(h.post(IDENTITIES, alice), 201)
    const b = await expectStatus(h.post(IDENTITIES, { dids: ['did:web:acme:bob'], country: 'SG' }), 201)
    const c = await expectStatus(
      h.post(IDENTITIES, {
        identity_id: 'zz-chosen',
        dids: ['did:web:acme:carol'],
        country: 'US',
        category: 'retail',
      }),
      201,
    )
    const ids = (body: { identities: { identity_id: string }[] }) => body.identities.map((i) => i.identity_id)
    const all = await expectStatus(h.get(IDENTITIES), 200)
    expect(ids(all)).toEqual([c.identity_id, b.identity_id, a.identity_id])
    expect(all).toMatchObject({ total: 3, next_cursor: null })
    expect(ids(await expectStatus(h.get(IDENTITIES, { query: { country: 'US' } }), 200))).toEqual([
      c.identity_id,
      a.identity_id,
    ])
    expect(ids(await expectStatus(h.get(IDENTITIES, { query: { category: 'accredited' } }), 200))).toEqual([
      a.identity_id,
    ])
    expect(
      ids(await expectStatus(h.get(IDENTITIES, { query: { did: 'did:web:acme:alice-cold' } }), 200)),
    ).toEqual([a.identity_id])
    const first = await expectStatus(h.get(IDENTITIES, { query: { limit: 2 } }), 200)
    expect(ids(first)).toEqual([c.identity_id, b.identity_id])
    expect(first.total).toBe(3)
    const second = await expectStatus(
      h.get(IDENTITIES, { query: { limit: 2, cursor: first.next_cursor } }),
      200,
    )
    expect(ids(second)).toEqual([a.identity_id])
    expect(second.next_cursor).toBeNull()
    for (const query of [{ country: 'usa' }, { category: 'whale' }, { did: 'x' }, { cursor: 'zz' }]) {
      const res = await h.get(IDENTITIES, { query })
      expect(res.status).toBe(400)
      expect(res.body.errors[0].path).toBe(Object.keys(query)[0])
    }
  })

  it('answers 404 identity_not_found for an unknown id', async () => {
    const res = await h.get(`${IDENTITIES}/idn_01JD5Z8Q4N7T0000000000ABCD`)
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ reason: 'identity_not_found' })
  })
})
