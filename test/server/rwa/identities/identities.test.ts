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

describe('PATCH /console/rwa/identities/{id} and POST .../dids', () => {
  it('changes the country and category (null clears it), audited with before and after', async () => {
    const created = await expectStatus(h.post(IDENTITIES, alice), 201)
    const path = `${IDENTITIES}/${created.identity_id}`
    h.clock.advance(1000)
    const updated = await expectStatus(h.request('PATCH', path, { body: { country: 'SG' } }), 200)
    expect(updated).toMatchObject({ country: 'SG', category: 'accredited', dids: alice.dids })
    expect(updated.updated_at > created.updated_at).toBe(true)
    const cleared = await expectStatus(h.request('PATCH', path, { body: { category: null } }), 200)
    expect(cleared.category).toBeNull()
    expect(await expectStatus(h.get(path), 200)).toEqual(cleared)
    for (const [body, field] of [
      [{}, ''],
      [{ country: 'sg' }, 'country'],
      [{ category: 'whale' }, 'category'],
      [{ dids: ['did:web:a:b'] }, ''],
    ] as const) {
      const res = await h.request('PATCH', path, { body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      if (field) expect(res.body.errors[0].path).toBe(field)
    }
    expect((await h.request('PATCH', `${IDENTITIES}/nobody`, { body: { country: 'FR' } })).status).toBe(404)
    const audit = await expectStatus(h.get('/console/audit', { query: { action: 'identity.updated' } }), 200)
    expect(audit.events.map((e: any) => e.changes)).toEqual([
      { before: { country: 'SG', category: 'accredited' }, after: { country: 'SG', category: null } },
      { before: { country: 'US', category: 'accredited' }, after: { country: 'SG', category: 'accredited' } },
    ])
  })

  it('adds and removes DIDs; a removed DID is free for another identity; refusals name the field', async () => {
    const a = await expectStatus(h.post(IDENTITIES, alice), 201)
    const b = await expectStatus(
      h.post(IDENTITIES, { identity_id: 'bob', dids: ['did:web:acme:bob'], country: 'SG' }),
      201,
    )
    const dids = (id: string) => `${IDENTITIES}/${id}/dids`
    const changed = await expectStatus(
      h.post(dids(a.identity_id), {
        add: ['did:web:acme:alice-new', 'did:web:acme:alice'],
        remove: ['did:web:acme:alice-cold'],
      }),
      200,
    )
    expect(changed.dids).toEqual(['did:web:acme:alice', 'did:web:acme:alice-new'])
    // The removed DID is free: bob takes it.
    expect((await expectStatus(h.post(dids('bob'), { add: ['did:web:acme:alice-cold'] }), 200)).dids).toEqual(
      ['did:web:acme:bob', 'did:web:acme:alice-cold'],
    )
    const taken = await h.post(dids(a.identity_id), { add: ['did:web:acme:bob'] })
    expect(taken.status).toBe(409)
    expect(taken.body).toMatchObject({
      reason: 'did_in_use',
      context: { did: 'did:web:acme:bob', identity_id: b.identity_id },
    })
    for (const [body, field] of [
      [{ remove: ['did:web:acme:nope'] }, 'remove'],
      [{ remove: ['did:web:acme:alice', 'did:web:acme:alice-new'] }, 'remove'],
      [{ add: ['x'] }, 'add.0'],
      [{ add: ['did:web:a:b'], remove: ['did:web:a:b'] }, 'remove'],
      [{}, ''],
    ] as const) {
      const res = await h.post(dids(a.identity_id), body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      if (field) expect(res.body.errors.map((e: any) => e.path)).toContain(field)
    }
    expect((await expectStatus(h.get(`${IDENTITIES}/${a.identity_id}`), 200)).dids).toEqual([
      'did:web:acme:alice',
      'did:web:acme:alice-new',
    ])
    expect((await h.post(dids('nobody'), { add: ['did:web:a:b'] })).status).toBe(404)
  })
})

describe('roles, organizations, audit and events, batches', () => {
  it('writes need issuer or owner (403 role_required); every role reads', async () => {
    const created = await expectStatus(h.post(IDENTITIES, alice), 201)
    const keyOf: Record<string, string> = {}
    for (const role of ['issuer', 'agent', 'transfers', 'auditor']) {
      const key = await expectStatus(
        h.post('/console/billing/keys', { org_id: 'admin', name: role, roles: [role] }),
        201,
      )
      keyOf[role] = key.api_key
    }
    const path = `${IDENTITIES}/${created.identity_id}`
    for (const role of ['agent', 'transfers', 'auditor']) {
      const key = keyOf[role]!
      for (const res of [
        await h.post(IDENTITIES, { dids: ['did:web:x:y'], country: 'US' }, { key }),
        await h.request('PATCH', path, { key, body: { country: 'FR' } }),
        await h.post(`${path}/dids`, { add: ['did:web:x:z'] }, { key }),
      ]) {
        expect(res.status, role).toBe(403)
        expect(res.body.reason).toBe('role_required')
      }
      await expectStatus(h.get(path, { key }), 200)
      await expectStatus(h.get(IDENTITIES, { key }), 200)
    }
    const key = keyOf.issuer!
    await expectStatus(h.post(IDENTITIES, { dids: ['did:web:x:y'], country: 'US' }, { key }), 201)
    await expectStatus(h.request('PATCH', path, { key, body: { country: 'FR' } }), 200)
    await expectStatus(h.post(`${path}/dids`, { add: ['did:web:x:z'] }, { key }), 200)
  })

  it('another organization sees none of them, and its own DIDs are its own', async () => {
    const created = await expectStatus(h.post(IDENTITIES, alice), 201)
    const other = await h.createOrg('other', { trial: true })
    const key = other.key
    expect((await h.get(`${IDENTITIES}/${created.identity_id}`, { key })).status).toBe(404)
    expect(
      (await h.request('PATCH', `${IDENTITIES}/${created.identity_id}`, { key, body: { country: 'FR' } }))
        .status,
    ).toBe(404)
    expect(
      (await h.post(`${IDENTITIES}/${created.identity_id}/dids`, { add: ['did:web:q:r'] }, { key })).status,
    ).toBe(404)
    expect((await expectStatus(h.get(IDENTITIES, { key }), 200)).total).toBe(0)
    // The same DIDs in an identity of its own.
    await expectStatus(h.post(IDENTITIES, { ...alice, identity_id: created.identity_id }, { key }), 201)
    expect((await expectStatus(h.get(`${IDENTITIES}/${created.identity_id}`), 200)).country).toBe('US')
  })

  it('audits and events each change with the identity as GET answers it', async () => {
    const created = await expectStatus(h.post(IDENTITIES, alice), 201)
    const path = `${IDENTITIES}/${created.identity_id}`
    await expectStatus(h.request('PATCH', path, { body: { category: 'qualified' } }), 200)
    const last = await expectStatus(h.post(`${path}/dids`, { remove: ['did:web:acme:alice-cold'] }), 200)
    const audit = await expectStatus(
      h.get('/console/audit', { query: { target_id: created.identity_id } }),
      200,
    )
    expect(audit.events.map((e: any) => e.action)).toEqual([
      'identity.dids_changed',
      'identity.updated',
      'identity.created',
    ])
    expect(audit.events[2].changes.after).toEqual({ dids: alice.dids, country: 'US', category: 'accredited' })
    expect(audit.events[0].changes).toEqual({
      before: { dids: alice.dids },
      after: { dids: ['did:web:acme:alice'], added: [], removed: ['did:web:acme:alice-cold'] },
    })
    const events = await expectStatus(h.get('/console/events', { query: { limit: 10 } }), 200)
    const mine = events.events.filter((e: any) => e.type.startsWith('identity.'))
    expect(mine.map((e: any) => e.type)).toEqual([
      'identity.dids_changed',
      'identity.updated',
      'identity.created',
    ])
    expect(mine[0].data.object).toEqual(last)
    expect(mine[2].data.object).toEqual(created)
  })

  it('identities.create and identities.update are batch operations, refs and all', async () => {
    const res = await expectStatus(
      h.post('/console/rwa/batch', {
        operations: [
          { ref: 'a', op: 'identities.create', body: { dids: ['did:web:acme:a1'], country: 'US' } },
          { op: 'identities.create', body: { dids: ['did:web:acme:b1'], country: 'DE', category: 'retail' } },
          {
            op: 'identities.update',
            body: { identity_id: { $result: 'a.identity_id' }, category: 'institutional' },
          },
        ],
      }),
      200,
    )
    expect(res.results.map((r: any) => r.status)).toEqual([201, 201, 200])
    const a = await expectStatus(h.get(`${IDENTITIES}/${res.results[0].body.identity_id}`), 200)
    expect(a).toMatchObject({ country: 'US', category: 'institutional' })
    // All or nothing: a DID claimed twice in one batch fails it whole.
    const refused = await h.post('/console/rwa/batch', {
      operations: [
        { op: 'identities.create', body: { dids: ['did:web:acme:c1'], country: 'US' } },
        { op: 'identities.create', body: { dids: ['did:web:acme:c1'], country: 'US' } },
      ],
    })
    expect(refused.status).toBe(422)
    expect(refused.body).toMatchObject({
      reason: 'batch_operation_failed',
      operation_problem: { reason: 'did_in_use' },
    })
    expect((await expectStatus(h.get(IDENTITIES), 200)).total).toBe(2)
  })
})

describe('concurrent changes of DIDs', () => {
  it('two identities adding one DID at once: exactly one has it, the other is 409 did_in_use', async () => {
    const a = await expectStatus(
      h.post(IDENTITIES, { identity_id: 'a', dids: ['did:web:acme:a'], country: 'US' }),
      201,
    )
    const b = await expectStatus(
      h.post(IDENTITIES, { identity_id: 'b', dids: ['did:web:acme:b'], country: 'US' }),
      201,
    )
    const results = await Promise.all(
      [a, b, a, b].map((i) => h.post(`${IDENTITIES}/${i.identity_id}/dids`, { add: ['did:web:acme:both'] })),
    )
    const owners = await expectStatus(h.get(IDENTITIES, { query: { did: 'did:web:acme:both' } }), 200)
    expect(owners.total).toBe(1)
    const winner = owners.identities[0].identity_id
    for (const [i, res] of results.entries()) {
      const id = [a, b, a, b][i]!.identity_id
      // The winner's own second request finds the DID its own already: nothing changes, 200.
      if (id === winner) expect(res.status).toBe(200)
      else
        expect(res.body).toMatchObject({
          reason: 'did_in_use',
          context: { did: 'did:web:acme:both', identity_id: winner },
        })
    }
  })
})
