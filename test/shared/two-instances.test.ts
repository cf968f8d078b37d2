import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { localInvalidationBus } from '../../server/platform/invalidation.js'
import { statuses, within } from '../support/concurrency.js'
import {
  buildWorld,
  expectStatus,
  historyEvents,
  OWNER,
  PROPERTY,
  RECIPIENT,
  transferBody,
  US,
} from '../support/governance.js'
import { createHarness, type Harness, type TestInstance, type TestResponse } from '../support/harness.js'

/*
 * Two instances in one process over one PostgreSQL database and one Redis, each with its own
 * connections, caches and meter, as two server processes behind a load balancer would be. Requests
 * are split between them and sent at once.
 */

let a: Harness
let b: TestInstance
beforeEach(async () => {
  a = await createHarness()
  b = await a.newInstance()
})
afterEach(() => a.close())

/** Sends `n` requests at once, alternating between the two instances. */
function splitAcross<T>(n: number, send: (instance: TestInstance, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => send(i % 2 === 0 ? a : b, i)))
}

describe('limits shared across instances', () => {
  it('admits exactly 60 of 100 concurrent free-tier requests split across both; usage then says 60', async () => {
    const acme = await a.createOrg('acme')
    const responses = await splitAcross(100, (instance) =>
      instance.get('/console/billing/keys', { key: acme.key }),
    )
    expect(statuses(responses)).toEqual({ 200: 60, 429: 40 })
    for (const refused of responses.filter((r) => r.status === 429)) {
      // Every admitted request was made at this instant: the window frees room 60 s from now.
      expect(refused.headers.get('retry-after')).toBe('60')
      expect(refused.headers.get('ratelimit-remaining')).toBe('0')
    }
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get('ratelimit-remaining')))
      .sort((x, y) => x - y)
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => i))

    // Each instance flushes its own counts; then either answers the organization's exact usage.
    await a.ctx.meter.flush()
    await b.ctx.meter.flush()
    for (const instance of [a, b]) {
      const usage = await instance.get('/console/billing/usage/acme', { query: { days: 1 } })
      expect(usage.body.totals.total_requests).toBe(60)
    }
    expect([...a.loggedErrors, ...b.loggedErrors]).toEqual([])
  })

  it('continues the day from the stored usage when Redis has no count for it', async () => {
    const acme = await a.createOrg('acme')
    const today = new Date(a.clock.now()).toISOString().slice(0, 10)
    await a.ctx.db
      .insertInto('usage_daily')
      .values({ org_id: 'acme', date: today, request_count: 995 })
      .execute()
    const responses: TestResponse[] = []
    for (let i = 0; i < 7; i++)
      responses.push(await (i % 2 ? a : b).get('/console/billing/keys', { key: acme.key }))
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429])
    expect(responses[4]!.headers.get('ratelimit-remaining')).toBe('0')
    expect(responses[5]!.body.detail).toMatch(/1000 requests per day/)
  })
})

describe('invalidations reach the other instance', () => {
  it('a key revoked on A is refused by B within a second', async () => {
    const acme = await a.createOrg('acme')
    const second = await expectStatus(
      a.post('/console/billing/keys', { org_id: 'acme', name: 'second' }),
      201,
    )
    // B has the key in its cache now; its clock never moves, so only the bus can make it forget.
    expect((await b.get('/console/billing/keys', { key: second.api_key })).status).toBe(200)
    await expectStatus(a.request('DELETE', `/console/billing/keys/${second.key_id}`), 200)
    await within(
      1000,
      async () => (await b.get('/console/billing/keys', { key: second.api_key })).status === 401,
    )
    expect((await b.get('/console/billing/keys', { key: acme.key })).status).toBe(200)
    // Stats read the shared database: the same through either instance.
    for (const instance of [a, b]) {
      expect((await instance.get('/console/billing/stats')).body).toMatchObject({
        total_keys: 3,
        active_keys: 2,
      })
    }
  })

  it('a key whose successor is revoked on A is refused by B within a second, as the successor is', async () => {
    const acme = await a.createOrg('acme')
    const old = await expectStatus(a.post('/console/billing/keys', { org_id: 'acme', name: 'deploy' }), 201)
    const fresh = await expectStatus(
      a.post(`/console/billing/keys/${old.key_id}/reroll`, { overlap_seconds: 3600 }, { key: acme.key }),
      201,
    )
    // B has both keys in its cache, the old one inside its overlap.
    for (const key of [old.api_key, fresh.api_key])
      expect((await b.get('/console/billing/keys/self', { key })).status).toBe(200)
    await expectStatus(a.request('DELETE', `/console/billing/keys/${fresh.key_id}`, { key: acme.key }), 200)
    for (const key of [fresh.api_key, old.api_key])
      await within(1000, async () => (await b.get('/console/billing/keys/self', { key })).status === 401)
    expect((await b.get('/console/billing/keys/self', { key: acme.key })).status).toBe(200)
  })

  it("a tier changed on A shows in B's RateLimit-Limit within a second", async () => {
    const acme = await a.createOrg('acme')
    const before = await b.get('/console/billing/keys', { key: acme.key })
    expect(before.headers.get('ratelimit-limit')).toBe('60')
    await expectStatus(a.post('/console/billing/subscription', { org_id: 'acme', tier: 'pro' }), 200)
    await within(1000, async () => {
      const res = await b.get('/console/billing/keys', { key: acme.key })
      return res.headers.get('ratelimit-limit') === '500'
    })
    const subscription = await b.get('/console/billing/subscription/acme')
    expect(subscription.body).toMatchObject({ tier: 'pro', limits: { requests_per_minute: 500 } })
  })

  it('an instance that missed the message forgets by itself within the 30 s TTL', async () => {
    // C hears nothing from the others: the TTL alone must heal it.
    const deaf = await a.newInstance({ bus: localInvalidationBus() })
    const acme = await a.createOrg('acme')
    const second = await expectStatus(
      a.post('/console/billing/keys', { org_id: 'acme', name: 'second' }),
      201,
    )
    expect((await deaf.get('/console/billing/keys', { key: second.api_key })).status).toBe(200)
    await expectStatus(a.request('DELETE', `/console/billing/keys/${second.key_id}`), 200)
    expect((await deaf.get('/console/billing/keys', { key: second.api_key })).status).toBe(200)
    a.clock.advance(30_000)
    expect((await deaf.get('/console/billing/keys', { key: second.api_key })).status).toBe(401)
    expect((await deaf.get('/console/billing/keys', { key: acme.key })).status).toBe(200)
  })
})

/**
 * Has `instance` read `key` and keep it in its cache: once the messages of the changes made so far have
 * reached it (one arriving during the read keeps the read out of the cache), a request caches the key.
 */
async function cachedOn(instance: TestInstance, key: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect((await instance.get('/console/billing/keys/self', { key })).status).toBe(200)
}

describe('expiry and reroll reach the other instance', () => {
  it('a key past its expires_at is refused by both instances at once, cached or not', async () => {
    await a.createOrg('acme')
    // Well inside the caches' 30 s TTL, so what B has cached is what decides.
    const expiresAt = new Date(a.clock.now() + 10_000).toISOString()
    const key = await expectStatus(
      a.post('/console/billing/keys', {
        org_id: 'acme',
        name: 'ci',
        roles: ['transfers'],
        expires_at: expiresAt,
      }),
      201,
    )
    // Both have the key cached; the shared clock alone decides.
    for (const instance of [a, b]) await cachedOn(instance, key.api_key)
    a.clock.advance(10_000)
    for (const instance of [a, b]) {
      const res = await instance.get('/console/billing/keys/self', { key: key.api_key })
      expect([res.status, res.body.reason]).toEqual([401, 'key_expired'])
    }
  })

  it('a key rerolled on A without overlap is refused by B within a second; the new key works on B', async () => {
    const acme = await a.createOrg('acme')
    await cachedOn(b, acme.key)
    const fresh = await expectStatus(
      a.post(`/console/billing/keys/${acme.keyId}/reroll`, { overlap_seconds: 0 }, { key: acme.key }),
      201,
    )
    await within(1000, async () => {
      const res = await b.get('/console/billing/keys/self', { key: acme.key })
      return res.status === 401 && res.body.context.revoked_reason === 'rerolled'
    })
    expect((await b.get('/console/billing/keys/self', { key: fresh.api_key })).body.key_id).toBe(fresh.key_id)
  })

  it('a key rerolled on A with an overlap works on B until the overlap ends, then B refuses it', async () => {
    const acme = await a.createOrg('acme')
    await cachedOn(b, acme.key)
    await expectStatus(
      a.post(`/console/billing/keys/${acme.keyId}/reroll`, { overlap_seconds: 20 }, { key: acme.key }),
      201,
    )
    // B must learn the end of the overlap from the bus (20 s is inside the caches' 30 s TTL, so B does
    // not read the key again by itself): look past the overlap and back until it has.
    await within(1000, async () => {
      a.clock.advance(20_000)
      const refused = (await b.get('/console/billing/keys/self', { key: acme.key })).status === 401
      a.clock.advance(-20_000)
      return refused
    })
    expect((await b.get('/console/billing/keys/self', { key: acme.key })).status).toBe(200)
    a.clock.advance(20_000)
    const res = await b.get('/console/billing/keys/self', { key: acme.key })
    expect([res.status, res.body.reason, res.body.context.revoked_reason]).toEqual([
      401,
      'key_revoked',
      'rerolled',
    ])
  })
})

describe('concurrent writes through both instances', () => {
  it('transfers: holdings still sum to the supply, none negative, approved count = history', async () => {
    const world = await buildWorld(a)
    // 30 transfers of 50 from 1000 units at once: at most 20 can be approved; some go to a recipient
    // with no attestations, which the evaluation rejects (201, nothing moves).
    const responses = await splitAcross(30, (instance, i) =>
      instance.post(
        '/console/rwa/transfers',
        transferBody(world.tokenId, 50, i % 5 === 4 ? { recipient_did: 'did:web:nobody:carol' } : {}),
      ),
    )
    expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(true)
    const approved = responses.filter((r) => r.status === 201 && r.body.status === 'approved')
    const rejected = responses.filter((r) => r.status === 201 && r.body.status === 'rejected')
    // 24 eligible, 1000 / 50 = 20 fit whatever the order; the others and any transfer to carol once
    // the owner holds nothing are 409.
    expect(approved).toHaveLength(20)
    for (const r of responses.filter((r) => r.status === 409))
      expect(r.body.detail).toMatch(/Insufficient holding/)

    const token = (await b.get(`/console/rwa/tokens/${world.tokenId}`)).body
    const amounts = token.holdings.map((h: { amount: number }) => h.amount)
    expect(amounts.every((n: number) => n > 0)).toBe(true)
    expect(amounts.reduce((x: number, y: number) => x + y, 0)).toBe(1000)
    expect(token.holdings).toMatchObject([{ holder_did: RECIPIENT, jurisdiction: 'SG', amount: 1000 }])
    const history = await historyEvents(b, world.tokenId)
    expect(history.filter((e: string) => e === 'transfer_approved')).toHaveLength(approved.length)
    expect(history.filter((e: string) => e === 'transfer_rejected')).toHaveLength(rejected.length)
    expect([...a.loggedErrors, ...b.loggedErrors]).toEqual([])
  })

  it('a credential revoked while its token is transferred: the token ends frozen, the holdings add up', async () => {
    const world = await buildWorld(a)
    const requests = await splitAcross(21, (instance, i) =>
      i === 10
        ? instance.post(`/console/rwa/credentials/${world.credentialId}/revoke`, { reason: 'title disputed' })
        : instance.post('/console/rwa/transfers', transferBody(world.tokenId, 10)),
    )
    expect(requests.every((r) => r.status === 200 || r.status === 201)).toBe(true)
    const token = (await a.get(`/console/rwa/tokens/${world.tokenId}`)).body
    expect(token.status).toBe('frozen')
    const events = await historyEvents(a, world.tokenId)
    expect(events.filter((e: string) => e === 'credential_revoked')).toHaveLength(1)
    const approved = requests.filter((r) => r.body.status === 'approved').length
    expect(events.filter((e: string) => e === 'transfer_approved')).toHaveLength(approved)
    const moved = token.holdings.find((h: { holder_did: string }) => h.holder_did === RECIPIENT)?.amount ?? 0
    expect(moved).toBe(approved * 10)
    expect(token.holdings.reduce((n: number, h: { amount: number }) => n + h.amount, 0)).toBe(1000)
  })

  it('agent freezes and transfers at once: no freeze is lost, frozen units stay within the holding', async () => {
    const world = await buildWorld(a)
    const responses = await splitAcross(30, (instance, i) =>
      i % 3 === 0
        ? instance.post(`/console/rwa/tokens/${world.tokenId}/freeze`, {
            holder_did: OWNER,
            jurisdiction: 'US',
            amount: 30,
            reason: 'court order',
          })
        : instance.post('/console/rwa/transfers', transferBody(world.tokenId, 40)),
    )
    expect(responses.every((r) => [200, 201, 409].includes(r.status))).toBe(true)
    const freezes = responses.filter((_, i) => i % 3 === 0 && responses[i]!.status === 200).length
    const token = (await b.get(`/console/rwa/tokens/${world.tokenId}`)).body
    const owner = token.holdings.find((h: { holder_did: string }) => h.holder_did === OWNER)
    expect(owner.frozen_amount).toBe(30 * freezes)
    expect(owner.frozen_amount).toBeLessThanOrEqual(owner.amount)
    expect(token.holdings.reduce((n: number, h: { amount: number }) => n + h.amount, 0)).toBe(1000)
    const events = await historyEvents(a, world.tokenId)
    expect(events.filter((e) => e === 'units_frozen')).toHaveLength(freezes)
    expect([...a.loggedErrors, ...b.loggedErrors]).toEqual([])
  })

  it('duplicates: one success, the rest 409, never a 500', async () => {
    const world = await buildWorld(a)
    const only = (responses: TestResponse[], success: number) => {
      expect(statuses(responses)).toEqual({ [success]: 1, 409: responses.length - 1 })
      for (const r of responses.filter((r) => r.status === 409)) expect(r.body.code).toBe('conflict')
    }
    only(
      await splitAcross(8, (i) => i.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: 'DE' })),
      201,
    )
    only(
      await splitAcross(8, (i) =>
        i.post('/console/rwa/jurisdictions/trust', {
          from_jurisdiction: 'SG',
          to_jurisdiction: 'DE',
          mutual: true,
        }),
      ),
      201,
    )
    const credential = await expectStatus(
      // Another property than the world's: one live credential per title deed
      // (docs/verification.md, "One property, one live credential").
      a.post('/console/rwa/credentials', {
        jurisdiction: 'US',
        owner_did: OWNER,
        property_data: { ...PROPERTY, title_deed: 'SF-2026-000124' },
      }),
      201,
    )
    only(
      await splitAcross(8, (i) =>
        i.post('/console/rwa/tokenize', { credential_id: credential.credential_id, total_supply: 10 }),
      ),
      201,
    )
    only(
      await splitAcross(8, (i) => i.post(`/console/rwa/credentials/${world.credentialId}/revoke`, {})),
      200,
    )
    const spare = await expectStatus(a.post('/console/billing/keys', { org_id: 'acme', name: 'spare' }), 201)
    only(await splitAcross(8, (i) => i.request('DELETE', `/console/billing/keys/${spare.key_id}`)), 200)
    expect([...a.loggedErrors, ...b.loggedErrors]).toEqual([])
    expect(
      (await a.get('/console/rwa/jurisdictions/trust', { query: { status: 'active' } })).body.total,
    ).toBe(2)
  })

  it('two admin keys revoked at once: the last one stays', async () => {
    const second = await expectStatus(
      a.post('/console/billing/keys', { org_id: 'admin', name: 'second admin' }),
      201,
    )
    const keys = (await a.get('/console/billing/keys')).body.keys.map((k: { key_id: string }) => k.key_id)
    expect(keys).toHaveLength(2)
    const responses = await Promise.all([
      a.request('DELETE', `/console/billing/keys/${keys[0]}`, { key: second.api_key }),
      b.request('DELETE', `/console/billing/keys/${keys[1]}`),
    ])
    expect(statuses(responses)).toEqual({ 200: 1, 409: 1 })
    const active = await a.ctx.db
      .selectFrom('api_keys')
      .select('key_id')
      .where('org_id', '=', 'admin')
      .where('revoked_at', 'is', null)
      .execute()
    expect(active).toHaveLength(1)
  })

  it('max_dids under concurrency admits exactly up to the quota', async () => {
    const acme = await a.createOrg('acme', { trial: true }) // trial: Pro limits, 10,000 DIDs
    await expectStatus(a.post('/console/rwa/jurisdictions', US, { key: acme.key }), 201)
    const at = new Date(a.clock.now()).toISOString()
    const known = Array.from({ length: 9_995 }, (_, i) => ({
      org_id: 'acme',
      did: `did:web:acme:seed${i}`,
      created_at: at,
    }))
    for (let i = 0; i < known.length; i += 1000)
      await a.ctx.db
        .insertInto('rwa_dids')
        .values(known.slice(i, i + 1000))
        .execute()

    const responses = await splitAcross(12, (instance, i) =>
      instance.post(
        '/console/rwa/credentials',
        // Two requests per DID for the first two: a DID counts once however many credentials name it.
        {
          jurisdiction: 'US',
          owner_did: `did:web:acme:new${i < 4 ? i % 2 : i}`,
          property_data: { ...PROPERTY, title_deed: `SF-2026-1${String(i).padStart(5, '0')}` },
        },
        { key: acme.key },
      ),
    )
    // 10 distinct new DIDs, 5 places left: 5 DIDs get in (with both credentials where a DID was sent twice).
    const created = responses.filter((r) => r.status === 201)
    const refused = responses.filter((r) => r.status === 403)
    expect(created.length + refused.length).toBe(12)
    expect(refused.every((r) => r.body.code === 'quota_exceeded')).toBe(true)
    const newDids = new Set(created.map((r) => r.body.owner_did))
    expect(newDids.size).toBe(5)
    const count = await a.ctx.db
      .selectFrom('rwa_dids')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', 'acme')
      .executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(10_000)
    await a.ctx.meter.flush()
    await b.ctx.meter.flush()
    const usage = await a.get('/console/billing/usage/acme', { query: { days: 1 } })
    expect(usage.body.totals.total_dids_created).toBe(5)
  })
})
