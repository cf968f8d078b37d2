import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createKeyResponseSchema, listKeysResponseSchema } from '../../../src/contract/billing.js'
import { DAY_MS } from '../../../server/platform/clock.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('POST /console/billing/keys', () => {
  it('creates a key with a trial: raw key shown once, tier free, trial ends 14 days after creation', async () => {
    const res = await h.post('/console/billing/keys', { org_id: 'acme', name: 'ci', start_trial: true })
    expect(res.status).toBe(201)
    const body = createKeyResponseSchema.parse(res.body)
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'api_key',
        'created_at',
        'key_id',
        'key_prefix',
        'name',
        'org_id',
        'tier',
        'trial_ends_at',
        'roles',
        'expires_at',
        'warning',
      ].sort(),
    )
    expect(body.api_key).toMatch(/^rwa_live_[A-Za-z0-9_-]{43}$/)
    expect(body.key_id).toMatch(/^key_/)
    expect(body.key_prefix).toBe(`${body.api_key!.slice(0, 12)}...`)
    expect(body).toMatchObject({
      org_id: 'acme',
      name: 'ci',
      tier: 'free',
      roles: ['owner'],
      expires_at: null,
    })
    expect(body.created_at).toBe(new Date(h.clock.now()).toISOString())
    expect(Date.parse(body.trial_ends_at!) - Date.parse(body.created_at)).toBe(14 * DAY_MS)
    expect(body.warning).toMatch(/cannot be retrieved again/)
  })

  it('has no trial unless asked for one', async () => {
    const res = await h.post('/console/billing/keys', { org_id: 'acme', name: 'ci' })
    expect(res.status).toBe(201)
    expect(res.body.trial_ends_at).toBeNull()
  })

  it('gives an organization one trial: later keys show the same end and never extend it', async () => {
    const first = await h.post('/console/billing/keys', { org_id: 'acme', name: 'a', start_trial: true })
    h.clock.advance(3 * DAY_MS)
    const second = await h.post('/console/billing/keys', { org_id: 'acme', name: 'b', start_trial: true })
    const third = await h.post('/console/billing/keys', { org_id: 'acme', name: 'c' })
    expect(second.body.trial_ends_at).toBe(first.body.trial_ends_at)
    expect(third.body.trial_ends_at).toBe(first.body.trial_ends_at)
  })

  it("defaults org_id to the caller's organization, so a member key can create a sibling", async () => {
    const acme = await h.createOrg('acme')
    const res = await h.post('/console/billing/keys', { name: 'second' }, { key: acme.key })
    expect(res.status).toBe(201)
    expect(res.body.org_id).toBe('acme')
    // The new key works on its own.
    expect((await h.get('/console/billing/keys', { key: res.body.api_key })).status).toBe(200)
  })

  it('refuses a member key creating keys for another organization (403)', async () => {
    const acme = await h.createOrg('acme')
    const res = await h.post('/console/billing/keys', { org_id: 'globex', name: 'x' }, { key: acme.key })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('forbidden')
    expect(res.body.reason).toBe('other_organization')
    // Nothing was created: the organization has no keys to list.
    const listed = await h.get('/console/billing/keys', { query: { org_id: 'globex' } })
    expect(listed.body).toEqual({ keys: [], total: 0 })
  })

  it.each([
    ['a missing name', { org_id: 'acme' }, 'name'],
    ['an empty name', { org_id: 'acme', name: '  ' }, 'name'],
    ['a name of the wrong type', { org_id: 'acme', name: 42 }, 'name'],
    ['start_trial as a string', { org_id: 'acme', name: 'x', start_trial: 'yes' }, 'start_trial'],
    ['an org_id with spaces', { org_id: 'ac me', name: 'x' }, 'org_id'],
    ['an unknown field', { org_id: 'acme', name: 'x', tier: 'pro' }, 'tier'],
  ])('answers 400 naming the field for %s', async (_, body, field) => {
    const res = await h.post('/console/billing/keys', body)
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    expect(res.body.code).toBe('invalid_request')
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field)
    expect(res.body.detail).toContain(field)
  })
})

describe('GET /console/billing/keys', () => {
  it('lists keys masked, newest first, with total, last use and revocation', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    h.clock.advance(1000)
    const second = await h.post('/console/billing/keys', { org_id: 'acme', name: 'second' })
    h.clock.advance(1000)
    await h.get('/console/billing/keys', { key: acme.key }) // uses the first key
    await h.request('DELETE', `/console/billing/keys/${second.body.key_id}`)

    const res = await h.get('/console/billing/keys', { query: { org_id: 'acme' } })
    expect(res.status).toBe(200)
    const body = listKeysResponseSchema.parse(res.body)
    expect(body.total).toBe(2)
    expect(body.keys.map((k) => k.key_id)).toEqual([second.body.key_id, acme.keyId])
    for (const key of res.body.keys) {
      expect(Object.keys(key).sort()).toEqual(
        [
          'created_at',
          'key_id',
          'key_prefix',
          'last_used_at',
          'name',
          'org_id',
          'revoked',
          'revoked_reason',
          'tier',
          'trial_ends_at',
          'roles',
          'expires_at',
        ].sort(),
      )
      expect(key.key_prefix).toMatch(/^rwa_live_.{3}\.\.\.$/)
      expect(JSON.stringify(key)).not.toMatch(/rwa_live_[A-Za-z0-9_-]{43}/)
    }
    const [revoked, first] = body.keys
    expect(revoked).toMatchObject({
      revoked: true,
      revoked_reason: 'revoked',
      last_used_at: null,
      name: 'second',
    })
    expect(first).toMatchObject({
      revoked: false,
      last_used_at: new Date(h.clock.now()).toISOString(),
      tier: 'free',
    })
    expect(first!.trial_ends_at).not.toBeNull()
  })

  it("lists the caller's own organization when org_id is left out", async () => {
    const acme = await h.createOrg('acme')
    await h.createOrg('globex')
    const res = await h.get('/console/billing/keys', { key: acme.key })
    expect(res.body.keys.map((k: { org_id: string }) => k.org_id)).toEqual(['acme'])
  })

  it('shows the subscribed tier on every key of the organization', async () => {
    await h.createOrg('acme', { tier: 'pro' })
    const res = await h.get('/console/billing/keys', { query: { org_id: 'acme' } })
    expect(res.body.keys[0].tier).toBe('pro')
  })

  it('answers an empty list for an organization nothing has named yet, like its usage (README.md, "Billing endpoints")', async () => {
    const res = await h.get('/console/billing/keys', { query: { org_id: 'nobody' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ keys: [], total: 0 })
  })
})

describe('DELETE /console/billing/keys/{key_id}', () => {
  it('revokes for good: the response says so and the key no longer authenticates', async () => {
    const acme = await h.createOrg('acme')
    const res = await h.request('DELETE', `/console/billing/keys/${acme.keyId}`, { key: acme.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'revoked', key_id: acme.keyId })
    const after = await h.get('/console/billing/keys', { key: acme.key })
    expect(after.status).toBe(401)
    expect(after.body.detail).toMatch(/revoked/)
  })

  it('answers 409 when the key is already revoked (revocation cannot be undone or repeated)', async () => {
    const acme = await h.createOrg('acme')
    await h.request('DELETE', `/console/billing/keys/${acme.keyId}`)
    const again = await h.request('DELETE', `/console/billing/keys/${acme.keyId}`)
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('conflict')
  })

  it("answers 404 for another organization's key and leaves it working", async () => {
    const acme = await h.createOrg('acme')
    const globex = await h.createOrg('globex')
    const res = await h.request('DELETE', `/console/billing/keys/${globex.keyId}`, { key: acme.key })
    expect(res.status).toBe(404)
    expect((await h.get('/console/billing/keys', { key: globex.key })).status).toBe(200)
  })

  it('answers 404 for an unknown key id and 400 for a malformed one', async () => {
    expect((await h.request('DELETE', '/console/billing/keys/key_nope')).status).toBe(404)
    const bad = await h.request('DELETE', '/console/billing/keys/nope')
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0].path).toBe('key_id')
  })

  it('refuses to revoke the last active admin key', async () => {
    const keys = await h.get('/console/billing/keys')
    const adminKeyId = keys.body.keys[0].key_id
    const res = await h.request('DELETE', `/console/billing/keys/${adminKeyId}`)
    expect(res.status).toBe(409)
    expect(res.body.detail).toMatch(/last active admin key/)
    // Keys of the operator organization that are not admin keys (an auditor, an expired owner) do not
    // count: with only those beside it, it is still the last.
    await h.post('/console/billing/keys', { org_id: 'admin', name: 'audit', roles: ['auditor'] })
    await h.post('/console/billing/keys', {
      org_id: 'admin',
      name: 'short-lived',
      expires_at: new Date(h.clock.now() + 60_000).toISOString(),
    })
    h.clock.advance(120_000)
    const still = await h.request('DELETE', `/console/billing/keys/${adminKeyId}`)
    expect(still.status).toBe(409)
    expect(still.body.reason).toBe('last_admin_key')
    // With a second admin key it can go.
    const second = await h.post('/console/billing/keys', { org_id: 'admin', name: 'admin-2' })
    expect(
      (await h.request('DELETE', `/console/billing/keys/${adminKeyId}`, { key: second.body.api_key })).status,
    ).toBe(200)
  })

  it('refuses to reroll the last active admin key with no overlap: a lost answer would leave no admin key', async () => {
    const adminKeyId = (await h.get('/console/billing/keys')).body.keys[0].key_id
    const reroll = (keyId: string, body: unknown, key = h.adminKey) =>
      h.post(`/console/billing/keys/${keyId}/reroll`, body, { key })
    for (const body of [{ overlap_seconds: 0 }, {}, undefined]) {
      const res = await reroll(adminKeyId, body)
      expect([res.status, res.body.reason, res.body.context], JSON.stringify(body)).toEqual([
        409,
        'last_admin_key',
        { key_id: adminKeyId, min_overlap_seconds: 300 },
      ])
    }
    expect((await h.get('/console/billing/keys/self')).status).toBe(200)
    expect((await h.get('/console/billing/keys')).body.total).toBe(1)

    // With an overlap it may: the old key still works should the answer be lost.
    const rerolled = await reroll(adminKeyId, { overlap_seconds: 300 })
    expect(rerolled.status, rerolled.text).toBe(201)
    // The key it replaced stops when its overlap ends, so it does not count as another admin key: the
    // new key is now the last one, for a reroll with no overlap and for a revocation alike.
    const newest = rerolled.body.key_id
    const again = await reroll(newest, { overlap_seconds: 0 }, rerolled.body.api_key)
    expect([again.status, again.body.reason]).toEqual([409, 'last_admin_key'])
    const revoked = await h.request('DELETE', `/console/billing/keys/${newest}`, {
      key: rerolled.body.api_key,
    })
    expect([revoked.status, revoked.body.reason]).toEqual([409, 'last_admin_key'])

    // With a second admin key, a reroll with no overlap goes through.
    const second = await h.post(
      '/console/billing/keys',
      { org_id: 'admin', name: 'admin-2' },
      {
        key: rerolled.body.api_key,
      },
    )
    expect(second.status).toBe(201)
    expect((await reroll(newest, { overlap_seconds: 0 }, second.body.api_key)).status).toBe(201)
  })

  it('counts no admin key that will soon be gone: one expiring within 5 minutes, or one alive only inside a reroll overlap', async () => {
    const adminKeyId = (await h.get('/console/billing/keys')).body.keys[0].key_id
    const inSeconds = (s: number) => new Date(h.clock.now() + s * 1000).toISOString()
    const revoke = () => h.request('DELETE', `/console/billing/keys/${adminKeyId}`)
    const reroll = (body: unknown) => h.post(`/console/billing/keys/${adminKeyId}/reroll`, body)

    // An admin key that expires in 10 s is no admin key to count on: revoking or rerolling with no
    // overlap would leave the operator with nothing 10 s later.
    await h.post('/console/billing/keys', { org_id: 'admin', name: 'soon', expires_at: inSeconds(10) })
    for (const res of [await revoke(), await reroll({ overlap_seconds: 0 })]) {
      expect([res.status, res.body.reason]).toEqual([409, 'last_admin_key'])
    }
    // Nor one alive only inside the overlap of a reroll, even after its successor was revoked.
    const b = await h.post('/console/billing/keys', { org_id: 'admin', name: 'b' })
    const bNext = await h.post(`/console/billing/keys/${b.body.key_id}/reroll`, { overlap_seconds: 3600 })
    expect(bNext.status, bNext.text).toBe(201)
    expect((await h.request('DELETE', `/console/billing/keys/${bNext.body.key_id}`)).status).toBe(200)
    for (const res of [await revoke(), await reroll({ overlap_seconds: 0 })]) {
      expect([res.status, res.body.reason]).toEqual([409, 'last_admin_key'])
    }
    // One that outlasts the next 5 minutes counts.
    const later = await h.post('/console/billing/keys', {
      org_id: 'admin',
      name: 'later',
      expires_at: inSeconds(3600),
    })
    expect((await h.get('/console/billing/keys/self', { key: later.body.api_key })).status).toBe(200)
    expect((await revoke()).status).toBe(200)
  })

  it('rerolls the last admin key only with an overlap of at least 300 s: a 1 s overlap is as good as none', async () => {
    const adminKeyId = (await h.get('/console/billing/keys')).body.keys[0].key_id
    const reroll = (overlap: number, headers?: Record<string, string>) =>
      h.post(`/console/billing/keys/${adminKeyId}/reroll`, { overlap_seconds: overlap }, { headers })
    for (const overlap of [1, 60, 299]) {
      const res = await reroll(overlap)
      expect([res.status, res.body.reason, res.body.context], String(overlap)).toEqual([
        409,
        'last_admin_key',
        { key_id: adminKeyId, min_overlap_seconds: 300 },
      ])
      expect(res.body.detail).toMatch(/at least 300 s/)
    }
    expect((await h.get('/console/billing/keys')).body.total).toBe(1)

    // With 300 s, a lost answer is survivable: the retry replays no key, but the old key still works
    // for 5 minutes, long enough to make another admin key with it.
    const headers = { 'Idempotency-Key': 'reroll-admin-1' }
    const first = await reroll(300, headers)
    expect(first.status, first.text).toBe(201)
    const replay = await reroll(300, headers)
    expect([replay.status, replay.body.api_key, replay.headers.get('idempotent-replayed')]).toEqual([
      201,
      null,
      'true',
    ])
    h.clock.advance(299_000)
    const rescue = await h.post('/console/billing/keys', { org_id: 'admin', name: 'rescue' })
    expect(rescue.status, rescue.text).toBe(201)
    h.clock.advance(1_000)
    expect((await h.get('/console/billing/keys/self')).body.reason).toBe('key_revoked')
    expect((await h.get('/console/billing/keys/self', { key: rescue.body.api_key })).status).toBe(200)
  })

  it('rerolls the last key of a member organization with no overlap, as before', async () => {
    const acme = await h.createOrg('acme')
    const res = await h.post(
      `/console/billing/keys/${acme.keyId}/reroll`,
      { overlap_seconds: 0 },
      { key: acme.key },
    )
    expect(res.status, res.text).toBe(201)
  })
})
