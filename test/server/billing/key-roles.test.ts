import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DAY_MS } from '../../../server/platform/clock.js'
import { ROLES, type Role } from '../../../src/contract/roles.js'
import { snapshotOf } from '../../support/db-snapshot.js'
import { buildWorld, expectStatus, transferBody } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * Least privilege on keys (docs/keys.md), as an attacker holding one key would try it: roles, who may
 * create, revoke and reroll keys, expiry, rerolls with an overlap, and what a key says of itself.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const HOUR_MS = 3_600_000

/** A key of `orgId` with `roles`, made by `by` (the admin key unless said). */
async function keyWith(orgId: string, roles: Role[], options: { by?: string; expires_at?: string } = {}) {
  const body: Record<string, unknown> = { org_id: orgId, name: roles.join('+'), roles }
  if (options.expires_at) body.expires_at = options.expires_at
  return expectStatus(h.post('/console/billing/keys', body, { key: options.by ?? h.adminKey }), 201)
}

describe('who may create, revoke and reroll keys', () => {
  it('a key without the owner role creates none, revokes none, rerolls none, and nothing changes', async () => {
    const acme = await h.createOrg('acme', { tier: 'pro' })
    for (const role of ROLES.filter((r) => r !== 'owner')) {
      const leaked = (await keyWith('acme', [role])).api_key
      const before = await snapshotOf(h.ctx.db)
      const attempts = [
        await h.post('/console/billing/keys', { name: 'second' }, { key: leaked }),
        await h.post('/console/billing/keys', { name: 'second', roles: [role] }, { key: leaked }),
        await h.request('DELETE', `/console/billing/keys/${acme.keyId}`, { key: leaked }),
        await h.post(`/console/billing/keys/${acme.keyId}/reroll`, {}, { key: leaked }),
      ]
      for (const res of attempts) {
        expect([res.status, res.body.reason, res.body.context]).toEqual([
          403,
          'role_required',
          { roles: ['owner'], key_roles: [role] },
        ])
      }
      expect(await snapshotOf(h.ctx.db)).toEqual(before)
    }
    expect((await h.get('/console/billing/keys', { key: acme.key })).status).toBe(200)
  })

  it('an owner creates keys with any roles in its organization, never in another', async () => {
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const made = await expectStatus(
      h.post(
        '/console/billing/keys',
        { name: 'ci', roles: ['transfers', 'issuer', 'transfers'] },
        { key: acme.key },
      ),
      201,
    )
    expect(made).toMatchObject({ org_id: 'acme', roles: ['issuer', 'transfers'], expires_at: null })
    const elsewhere = await h.post(
      '/console/billing/keys',
      { org_id: 'globex', name: 'x', roles: ['auditor'] },
      { key: acme.key },
    )
    expect([elsewhere.status, elsewhere.body.reason]).toEqual([403, 'other_organization'])
    expect((await h.get('/console/billing/keys', { query: { org_id: 'globex' } })).body.total).toBe(0)
  })

  it('refuses an unknown role and an empty list, naming the field', async () => {
    await h.createOrg('acme')
    for (const roles of [['root'], [], 'owner']) {
      const res = await h.post('/console/billing/keys', { org_id: 'acme', name: 'x', roles })
      expect(res.status).toBe(400)
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
        Array.isArray(roles) && roles.length ? 'roles.0' : 'roles',
      ])
    }
  })

  it('the admin key names the organization: without org_id it refuses, with "admin" it makes another admin key', async () => {
    const before = await h.get('/console/billing/stats')
    const res = await h.post('/console/billing/keys', { name: 'x' })
    expect([res.status, res.body.reason, res.body.errors]).toEqual([
      400,
      'org_id_required',
      [{ path: 'org_id', message: 'Required with the admin key' }],
    ])
    expect((await h.get('/console/billing/stats')).body.total_keys).toBe(before.body.total_keys)
    const second = await expectStatus(h.post('/console/billing/keys', { org_id: 'admin', name: 'x' }), 201)
    expect((await h.get('/console/billing/stats', { key: second.api_key })).status).toBe(200)
  })

  it('a key of the operator organization without the owner role is no admin key', async () => {
    await h.createOrg('acme')
    const auditor = (await keyWith('admin', ['auditor'])).api_key
    expect((await h.get('/console/billing/stats', { key: auditor })).body.reason).toBe('admin_key_required')
    const other = await h.get('/console/billing/keys', { key: auditor, query: { org_id: 'acme' } })
    expect([other.status, other.body.reason]).toEqual([403, 'other_organization'])
    expect((await h.get('/console/billing/keys/self', { key: auditor })).body).toMatchObject({
      org_id: 'admin',
      admin: false,
      roles: ['auditor'],
    })
  })

  it('a key minted by a key later revoked keeps only what its own roles allow', async () => {
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const world = await buildWorld(h, acme.key)
    const minted = (await keyWith('acme', ['transfers'], { by: acme.key })).api_key
    await expectStatus(h.request('DELETE', `/console/billing/keys/${acme.keyId}`), 200)
    expect((await h.get('/console/rwa/tokens', { key: acme.key })).body.reason).toBe('key_revoked')

    expect(
      (await h.post('/console/rwa/transfers', transferBody(world.tokenId, 10), { key: minted })).status,
    ).toBe(201)
    const before = await snapshotOf(h.ctx.db)
    const refused = [
      await h.post('/console/billing/keys', { name: 'again', roles: ['owner'] }, { key: minted }),
      await h.post(`/console/rwa/tokens/${world.tokenId}/pause`, {}, { key: minted }),
      await h.post(
        `/console/rwa/tokens/${world.tokenId}/forced-transfer`,
        {
          from_did: 'did:web:acme:alice',
          to_did: 'did:web:lion:bob',
          jurisdiction: 'US',
          amount: 1,
          reason: 'x',
        },
        { key: minted },
      ),
      await h.post('/console/rwa/jurisdictions', { jurisdiction_id: 'FR' }, { key: minted }),
    ]
    for (const res of refused) expect([res.status, res.body.reason]).toEqual([403, 'role_required'])
    expect(await snapshotOf(h.ctx.db)).toEqual(before)
  })
})

describe('expiry', () => {
  it('a key works until its expires_at, then is 401 key_expired', async () => {
    await h.createOrg('acme')
    const expiresAt = new Date(h.clock.now() + HOUR_MS).toISOString()
    const key = await keyWith('acme', ['auditor'], { expires_at: expiresAt })
    expect(key.expires_at).toBe(expiresAt)
    expect((await h.get('/console/billing/keys', { key: key.api_key })).status).toBe(200)
    h.clock.advance(HOUR_MS - 1)
    expect((await h.get('/console/billing/keys', { key: key.api_key })).status).toBe(200)
    h.clock.advance(1)
    const res = await h.get('/console/billing/keys', { key: key.api_key })
    expect([res.status, res.body.reason, res.body.context]).toEqual([
      401,
      'key_expired',
      { key_id: key.key_id, expired_at: expiresAt },
    ])
    const listed = (await h.get('/console/billing/keys', { query: { org_id: 'acme' } })).body.keys
    expect(listed.find((k: { key_id: string }) => k.key_id === key.key_id)).toMatchObject({
      expires_at: expiresAt,
      roles: ['auditor'],
    })
  })

  it('refuses an expires_at that is not in the future (422, naming it) and creates nothing', async () => {
    await h.createOrg('acme')
    for (const at of [new Date(h.clock.now()).toISOString(), '2020-01-01T00:00:00Z']) {
      const res = await h.post('/console/billing/keys', { org_id: 'acme', name: 'x', expires_at: at })
      expect([res.status, res.body.reason, res.body.errors?.[0]?.path]).toEqual([
        422,
        'expires_at_not_future',
        'expires_at',
      ])
    }
    expect((await h.get('/console/billing/keys', { query: { org_id: 'acme' } })).body.total).toBe(1)
  })
})

describe('reroll', () => {
  it('answers a new key with the same name, roles and expiry; the old one works through the overlap, then reads rerolled', async () => {
    const acme = await h.createOrg('acme')
    const expiresAt = new Date(h.clock.now() + DAY_MS).toISOString()
    const old = await keyWith('acme', ['issuer', 'transfers'], { expires_at: expiresAt })
    const res = await h.post(
      `/console/billing/keys/${old.key_id}/reroll`,
      { overlap_seconds: 3600 },
      { key: acme.key },
    )
    expect(res.status).toBe(201)
    const fresh = res.body
    expect(fresh).toMatchObject({
      org_id: 'acme',
      name: old.name,
      roles: ['issuer', 'transfers'],
      expires_at: expiresAt,
      previous_key_id: old.key_id,
      previous_key_revoked_at: new Date(h.clock.now() + HOUR_MS).toISOString(),
    })
    expect(fresh.api_key).not.toBe(old.api_key)
    expect(fresh.key_id).not.toBe(old.key_id)

    // Through the overlap both work, so a deployment switches without a failed request.
    h.clock.advance(HOUR_MS - 1)
    for (const key of [old.api_key, fresh.api_key])
      expect((await h.get('/console/billing/keys/self', { key })).status).toBe(200)
    const during = (await h.get('/console/billing/keys', { query: { org_id: 'acme' } })).body.keys
    expect(during.find((k: { key_id: string }) => k.key_id === old.key_id)).toMatchObject({
      revoked: false,
      revoked_reason: null,
    })

    h.clock.advance(1)
    const refused = await h.get('/console/billing/keys/self', { key: old.api_key })
    expect([refused.status, refused.body.reason, refused.body.context]).toEqual([
      401,
      'key_revoked',
      { key_id: old.key_id, revoked_reason: 'rerolled' },
    ])
    expect((await h.get('/console/billing/keys/self', { key: fresh.api_key })).body.key_id).toBe(fresh.key_id)
    const after = (await h.get('/console/billing/keys', { query: { org_id: 'acme' } })).body.keys
    expect(after.find((k: { key_id: string }) => k.key_id === old.key_id)).toMatchObject({
      revoked: true,
      revoked_reason: 'rerolled',
    })
    expect((await h.get('/console/billing/stats')).body.active_keys).toBe(3) // admin, acme's, the new one
  })

  it('with no overlap the old key stops at once; an owner may reroll its own key', async () => {
    const acme = await h.createOrg('acme')
    const res = await expectStatus(
      h.post(`/console/billing/keys/${acme.keyId}/reroll`, undefined, { key: acme.key }),
      201,
    )
    expect(res.previous_key_revoked_at).toBe(new Date(h.clock.now()).toISOString())
    expect((await h.get('/console/billing/keys/self', { key: acme.key })).body.reason).toBe('key_revoked')
    expect((await h.get('/console/billing/keys/self', { key: res.api_key })).body.roles).toEqual(['owner'])
  })

  it('refuses a second reroll, a revoked key, an expired key, another organization and an overlap past 30 days', async () => {
    const acme = await h.createOrg('acme')
    await h.createOrg('globex')
    const reroll = (keyId: string, body: unknown = {}, key = acme.key) =>
      h.post(`/console/billing/keys/${keyId}/reroll`, body, { key })

    const once = await keyWith('acme', ['auditor'])
    const first = await expectStatus(reroll(once.key_id, { overlap_seconds: 60 }), 201)
    const again = await reroll(once.key_id)
    expect([again.status, again.body.reason, again.body.context]).toEqual([
      409,
      'key_already_rerolled',
      { key_id: once.key_id, replaced_by: first.key_id },
    ])

    const revoked = await keyWith('acme', ['auditor'])
    await expectStatus(h.request('DELETE', `/console/billing/keys/${revoked.key_id}`), 200)
    expect((await reroll(revoked.key_id)).body.reason).toBe('key_already_revoked')

    const short = await keyWith('acme', ['auditor'], {
      expires_at: new Date(h.clock.now() + 1000).toISOString(),
    })
    h.clock.advance(1000)
    expect((await reroll(short.key_id)).body.reason).toBe('key_already_expired')

    const theirs = (await h.get('/console/billing/keys', { query: { org_id: 'globex' } })).body.keys[0].key_id
    expect((await reroll(theirs)).body.reason).toBe('key_not_found')

    const big = await reroll(once.key_id, { overlap_seconds: 2_592_001 })
    expect([big.status, big.body.errors[0].path]).toEqual([400, 'overlap_seconds'])
    expect((await h.get('/console/billing/keys', { query: { org_id: 'acme' } })).body.total).toBe(5)
  })

  it('a rerolled key revoked during its overlap reads revoked, and a key past its overlap cannot be revoked again', async () => {
    const acme = await h.createOrg('acme')
    const a = await keyWith('acme', ['auditor'])
    await expectStatus(
      h.post(`/console/billing/keys/${a.key_id}/reroll`, { overlap_seconds: 60 }, { key: acme.key }),
      201,
    )
    await expectStatus(h.request('DELETE', `/console/billing/keys/${a.key_id}`), 200)
    expect((await h.get('/console/billing/keys/self', { key: a.api_key })).body.context.revoked_reason).toBe(
      'revoked',
    )

    const b = await keyWith('acme', ['auditor'])
    await expectStatus(h.post(`/console/billing/keys/${b.key_id}/reroll`, {}, { key: acme.key }), 201)
    expect((await h.request('DELETE', `/console/billing/keys/${b.key_id}`)).body.reason).toBe(
      'key_already_revoked',
    )
  })
})

it('revoking the current key of a reroll chain revokes the keys before it still inside their overlap', async () => {
  const acme = await h.createOrg('acme')
  const a = await keyWith('acme', ['agent'])
  const reroll = (keyId: string) =>
    expectStatus(
      h.post(`/console/billing/keys/${keyId}/reroll`, { overlap_seconds: 3600 }, { key: acme.key }),
      201,
    )
  const a1 = await reroll(a.key_id)
  const a2 = await reroll(a1.key_id)
  // Another chain, and a key past its overlap, are left as they are.
  const b = await keyWith('acme', ['agent'])
  const b1 = await reroll(b.key_id)
  for (const key of [a.api_key, a1.api_key, a2.api_key, b.api_key, b1.api_key])
    expect((await h.get('/console/billing/keys/self', { key })).status).toBe(200)

  // Revoking A'' (a stolen key is rerolled, then revoked) must not leave A and A' working for an hour.
  await expectStatus(h.request('DELETE', `/console/billing/keys/${a2.key_id}`, { key: acme.key }), 200)
  for (const [key, id] of [
    [a.api_key, a.key_id],
    [a1.api_key, a1.key_id],
    [a2.api_key, a2.key_id],
  ]) {
    const res = await h.get('/console/billing/keys/self', { key })
    expect([res.status, res.body.reason, res.body.context], id).toEqual([
      401,
      'key_revoked',
      { key_id: id, revoked_reason: 'revoked' },
    ])
  }
  for (const key of [b.api_key, b1.api_key])
    expect((await h.get('/console/billing/keys/self', { key })).status).toBe(200)
  const listed = (await h.get('/console/billing/keys', { query: { org_id: 'acme' } })).body.keys
  const state = (id: string) => listed.find((k: { key_id: string }) => k.key_id === id).revoked_reason
  expect([a.key_id, a1.key_id, a2.key_id, b.key_id, b1.key_id].map(state)).toEqual([
    'revoked',
    'revoked',
    'revoked',
    null,
    null,
  ])
  // The audit log says each one was revoked, and why.
  const audit = (await h.get('/console/audit', { query: { org_id: 'acme', action: 'key.revoked' } })).body
    .events
  expect(audit.map((e: any) => [e.target.id, e.changes?.after?.revoked_with ?? null])).toEqual(
    expect.arrayContaining([
      [a2.key_id, null],
      [a1.key_id, a2.key_id],
      [a.key_id, a2.key_id],
    ]),
  )

  // A key whose overlap has ended reads rerolled still: only keys that still work are revoked.
  const c = await keyWith('acme', ['agent'])
  const c1 = await reroll(c.key_id)
  h.clock.advance(HOUR_MS)
  await expectStatus(h.request('DELETE', `/console/billing/keys/${c1.key_id}`, { key: acme.key }), 200)
  const after = (await h.get('/console/billing/keys', { query: { org_id: 'acme' } })).body.keys
  expect(after.find((k: { key_id: string }) => k.key_id === c.key_id).revoked_reason).toBe('rerolled')
})

describe('GET /console/billing/keys/self', () => {
  it('answers the calling key: organization, roles, plan, limits and expiry', async () => {
    await h.createOrg('acme', { trial: true })
    const expiresAt = new Date(h.clock.now() + DAY_MS).toISOString()
    const key = await keyWith('acme', ['transfers'], { expires_at: expiresAt })
    const res = await h.get('/console/billing/keys/self', { key: key.api_key })
    expect(res.body).toEqual({
      key_id: key.key_id,
      key_prefix: key.key_prefix,
      name: 'transfers',
      org_id: 'acme',
      admin: false,
      roles: ['transfers'],
      tier: 'free',
      limits: { requests_per_day: 50_000, requests_per_minute: 500, max_dids: 10_000, max_skills: 500 },
      trial_ends_at: new Date(h.clock.now() + 14 * DAY_MS).toISOString(),
      expires_at: expiresAt,
    })
    expect((await h.get('/console/billing/keys/self')).body).toMatchObject({
      org_id: 'admin',
      admin: true,
      roles: ['owner'],
    })
  })
})
