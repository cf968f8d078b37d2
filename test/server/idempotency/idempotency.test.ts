import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { buildWorld, expectStatus, transferBody, type World } from '../../support/governance.js'
import {
  claimKey,
  findKey,
  releaseKey,
  storeAnswer,
  takeOverKey,
} from '../../../server/pipeline/idempotency/queries.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const KEY = '6f1d2f3a-0c1e-4b7e-9a57-1f0b8c2d9e11'

async function world(): Promise<{ h: Harness; w: World }> {
  h = await createHarness()
  const acme = await h.createOrg('acme', { tier: 'pro' })
  return { h, w: await buildWorld(h, acme.key) }
}

const transfersOf = async (h: Harness, w: World) =>
  (await expectStatus(h.get('/console/rwa/transfers', { key: w.key }), 200)).total as number

const transferEvents = async (h: Harness, w: World) =>
  (await expectStatus(h.get('/console/audit', { key: w.key, query: { action: 'transfer.approved' } }), 200))
    .total as number

describe('Idempotency-Key on a POST', () => {
  it('replays the first answer byte for byte with Idempotent-Replayed, and moves the units once', async () => {
    const { h, w } = await world()
    const send = () =>
      h.post('/console/rwa/transfers', transferBody(w.tokenId, 100), {
        key: w.key,
        headers: { 'Idempotency-Key': KEY },
      })
    const first = await send()
    expect(first.status).toBe(201)
    expect(first.headers.get('Idempotent-Replayed')).toBeNull()
    const again = await send()
    expect(again.status).toBe(201)
    expect(again.text).toBe(first.text)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'))
    expect(await transfersOf(h, w)).toBe(1)
    expect(await transferEvents(h, w)).toBe(1)
    // Without the key, the same body is a new transfer.
    await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 100), { key: w.key }), 201)
    expect(await transfersOf(h, w)).toBe(2)
  })

  it('with another body or another path it is 422 idempotency_key_reused, and nothing runs', async () => {
    const { h, w } = await world()
    const headers = { 'Idempotency-Key': KEY }
    await expectStatus(
      h.post('/console/rwa/transfers', transferBody(w.tokenId, 100), { key: w.key, headers }),
      201,
    )
    const other = await h.post('/console/rwa/transfers', transferBody(w.tokenId, 101), {
      key: w.key,
      headers,
    })
    expect([other.status, other.body.reason, other.body.context]).toEqual([
      422,
      'idempotency_key_reused',
      { idempotency_key: KEY, method: 'POST', path: '/console/rwa/transfers' },
    ])
    const elsewhere = await h.post(`/console/rwa/tokens/${w.tokenId}/pause`, {}, { key: w.key, headers })
    expect(elsewhere.body.reason).toBe('idempotency_key_reused')
    expect(await transfersOf(h, w)).toBe(1)
    expect((await h.get(`/console/rwa/tokens/${w.tokenId}`, { key: w.key })).body.status).toBe('active')
  })

  it('is per organization: another organization may use the same key', async () => {
    const { h, w } = await world()
    const globex = await h.createOrg('globex', { tier: 'pro' })
    const other = await buildWorld(h, globex.key)
    const headers = { 'Idempotency-Key': KEY }
    await expectStatus(
      h.post('/console/rwa/transfers', transferBody(w.tokenId), { key: w.key, headers }),
      201,
    )
    const res = await h.post('/console/rwa/transfers', transferBody(other.tokenId), {
      key: globex.key,
      headers,
    })
    expect([res.status, res.headers.get('Idempotent-Replayed')]).toEqual([201, null])
  })

  it('replays a refusal too, even once the refusal would no longer hold', async () => {
    const { h, w } = await world()
    const headers = { 'Idempotency-Key': KEY }
    const send = () => h.post(`/console/rwa/tokens/${w.tokenId}/unpause`, {}, { key: w.key, headers })
    const refused = await send()
    expect([refused.status, refused.body.reason]).toEqual([409, 'token_not_paused'])
    await expectStatus(h.post(`/console/rwa/tokens/${w.tokenId}/pause`, {}, { key: w.key }), 200)
    const again = await send()
    expect([again.status, again.text, again.headers.get('Idempotent-Replayed')]).toEqual([
      409,
      refused.text,
      'true',
    ])
    expect((await h.get(`/console/rwa/tokens/${w.tokenId}`, { key: w.key })).body.status).toBe('paused')
  })

  it("a refusal of the key's roles is not kept: the same request from a key with the role runs", async () => {
    const { h, w } = await world()
    const mover = await expectStatus(
      h.post('/console/billing/keys', { name: 'mover', roles: ['transfers'] }, { key: w.key }),
      201,
    )
    const headers = { 'Idempotency-Key': KEY }
    const pause = { operations: [{ op: 'tokens.pause', body: { token_id: w.tokenId } }] }
    const refused = await h.post('/console/rwa/batch', pause, { key: mover.api_key, headers })
    expect([refused.status, refused.body.reason]).toEqual([403, 'role_required'])
    const owner = await h.post('/console/rwa/batch', pause, { key: w.key, headers })
    expect([owner.status, owner.headers.get('Idempotent-Replayed')]).toEqual([200, null])
    expect((await h.get(`/console/rwa/tokens/${w.tokenId}`, { key: w.key })).body.status).toBe('paused')
  })

  it('a replayed key creation answers api_key null: the raw key is never stored', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme')
    const headers = { 'Idempotency-Key': KEY }
    const first = await expectStatus(
      h.post('/console/billing/keys', { name: 'ci' }, { key: acme.key, headers }),
      201,
    )
    expect(first.api_key).toMatch(/^rwa_live_/)
    const again = await h.post('/console/billing/keys', { name: 'ci' }, { key: acme.key, headers })
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(again.body).toEqual({ ...first, api_key: null })
    expect((await h.get('/console/billing/keys', { key: acme.key })).body.total).toBe(2)
    expect(JSON.stringify(await h.ctx.db.selectFrom('idempotency_keys').selectAll().execute())).not.toContain(
      first.api_key,
    )
  })

  it('a claim left in flight is 409 for a minute, then taken over; after 24 h the key is new again', async () => {
    const { h, w } = await world()
    const body = transferBody(w.tokenId, 10)
    const headers = { 'Idempotency-Key': KEY }
    // A request that claimed the key and died before answering.
    const { createHash } = await import('node:crypto')
    const now = h.clock.now()
    await h.ctx.db
      .insertInto('idempotency_keys')
      .values({
        org_id: 'acme',
        key: KEY,
        method: 'POST',
        path: '/console/rwa/transfers',
        body_hash: createHash('sha256').update(JSON.stringify(body)).digest('hex'),
        state: 'in_flight',
        status: null,
        headers: null,
        body: null,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + 86_400_000).toISOString(),
      })
      .execute()
    const busy = await h.post('/console/rwa/transfers', body, { key: w.key, headers })
    expect([busy.status, busy.body.reason, busy.headers.get('Retry-After')]).toEqual([
      409,
      'idempotency_key_in_progress',
      '1',
    ])
    h.clock.advance(61_000)
    await expectStatus(h.post('/console/rwa/transfers', body, { key: w.key, headers }), 201)
    expect(await transfersOf(h, w)).toBe(1)
    h.clock.advance(86_400_000)
    const fresh = await h.post('/console/rwa/transfers', body, { key: w.key, headers })
    expect([fresh.status, fresh.headers.get('Idempotent-Replayed')]).toEqual([201, null])
    expect(await transfersOf(h, w)).toBe(2)
    // Keys never sent again go too: a day later, the next claim of the organization forgets them.
    h.clock.advance(86_400_000)
    await expectStatus(
      h.post(
        `/console/rwa/tokens/${w.tokenId}/pause`,
        {},
        { key: w.key, headers: { 'Idempotency-Key': 'k2' } },
      ),
      200,
    )
    const kept = await h.ctx.db.selectFrom('idempotency_keys').select('key').execute()
    expect(kept.map((r) => r.key)).toEqual(['k2'])
  })

  it('expired keys are swept once per organization every 10 minutes, not on every claim', async () => {
    const { h, w } = await world()
    const expired = async (key: string) => {
      const at = new Date(h.clock.now() - 1).toISOString()
      await h.ctx.db
        .insertInto('idempotency_keys')
        .values({
          org_id: 'acme',
          key,
          method: 'POST',
          path: '/console/rwa/transfers',
          body_hash: 'x',
          state: 'done',
          status: 201,
          headers: '{}',
          body: '{}',
          created_at: at,
          expires_at: at,
        })
        .execute()
    }
    const keys = async () =>
      (await h.ctx.db.selectFrom('idempotency_keys').select('key').orderBy('key').execute()).map((r) => r.key)
    const claim = (key: string) =>
      expectStatus(
        h.post('/console/rwa/transfers', transferBody(w.tokenId, 1), {
          key: w.key,
          headers: { 'Idempotency-Key': key },
        }),
        201,
      )
    await expired('old-1')
    await claim('a')
    expect(await keys()).toEqual(['a'])
    // Within the interval, claims leave expired keys for the next sweep...
    await expired('old-2')
    h.clock.advance(9 * 60_000)
    await claim('b')
    expect(await keys()).toEqual(['a', 'b', 'old-2'])
    // ...which comes once it is over.
    h.clock.advance(60_000)
    await claim('c')
    expect(await keys()).toEqual(['a', 'b', 'c'])
  })

  it('a write that fails after storing its answer releases the key: the retry runs', async () => {
    const { h, w } = await world()
    const send = () =>
      h.post('/console/rwa/transfers', transferBody(w.tokenId, 100), {
        key: w.key,
        headers: { 'Idempotency-Key': KEY },
      })
    // The audit insert comes after the answer is stored in the write: with its table gone, the write
    // fails and rolls back both.
    // Straight to the app, past the harness's OpenAPI check: an induced internal failure is a 500 no
    // operation declares.
    await sql`ALTER TABLE audit_events RENAME TO audit_events_away`.execute(h.ctx.db)
    const failed = await h.app.request('/console/rwa/transfers', {
      method: 'POST',
      headers: { 'X-API-Key': w.key, 'Content-Type': 'application/json', 'Idempotency-Key': KEY },
      body: JSON.stringify(transferBody(w.tokenId, 100)),
    })
    expect(failed.status).toBe(500)
    await sql`ALTER TABLE audit_events_away RENAME TO audit_events`.execute(h.ctx.db)
    expect(await transfersOf(h, w)).toBe(0)
    const retried = await send()
    expect(retried.status).toBe(201)
    expect(retried.headers.get('Idempotent-Replayed')).toBeNull()
    expect(await transfersOf(h, w)).toBe(1)
  })

  it('a slow request whose claim was taken over can neither store its answer nor release the claim', async () => {
    h = await createHarness()
    const db = h.ctx.db
    const request = { method: 'POST', path: '/console/rwa/transfers', body_hash: 'ab'.repeat(32) }
    const first = '2026-11-28T12:00:00.000Z'
    const retry = '2026-11-28T12:01:30.000Z'
    const expires = '2026-11-29T12:00:00.000Z'
    await h.createOrg('acme')
    expect(await claimKey(db, 'acme', KEY, request, first, expires)).toBe(true)
    expect(await takeOverKey(db, 'acme', KEY, first, retry)).toBe(true)
    const answer = { status: 201, headers: '{}', body: '{"n":1}' }
    expect(await storeAnswer(db, 'acme', KEY, first, answer)).toBe(false)
    await releaseKey(db, 'acme', KEY, first)
    expect(await findKey(db, 'acme', KEY)).toMatchObject({ state: 'in_flight', created_at: retry })
    expect(await storeAnswer(db, 'acme', KEY, retry, { ...answer, body: '{"n":2}' })).toBe(true)
    expect(await findKey(db, 'acme', KEY)).toMatchObject({ state: 'done', body: '{"n":2}' })
  })

  it('refuses a malformed key naming the header', async () => {
    const { h, w } = await world()
    for (const key of ['', 'x'.repeat(256), 'two words']) {
      const res = await h.post('/console/rwa/transfers', transferBody(w.tokenId), {
        key: w.key,
        headers: { 'Idempotency-Key': key },
      })
      if (key === '') continue // an empty header is no header for some clients; either way nothing is stored
      expect([res.status, res.body.errors?.[0]?.path]).toEqual([400, 'Idempotency-Key'])
    }
  })

  it('20 concurrent requests with one key across two instances make one transfer', async () => {
    const { h, w } = await world()
    const b = await h.newInstance()
    const body = transferBody(w.tokenId, 100)
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? h : b).post('/console/rwa/transfers', body, {
          key: w.key,
          headers: { 'Idempotency-Key': KEY },
        }),
      ),
    )
    const created = answers.filter((r) => r.status === 201)
    const busy = answers.filter((r) => r.status === 409)
    expect(created.length + busy.length).toBe(20)
    expect(busy.every((r) => r.body.reason === 'idempotency_key_in_progress')).toBe(true)
    expect(new Set(created.map((r) => r.body.transfer_id)).size).toBe(1)
    expect(await transfersOf(h, w)).toBe(1)
    expect(await transferEvents(h, w)).toBe(1)
    const holding = (await h.get(`/console/rwa/tokens/${w.tokenId}`, { key: w.key })).body.holdings
    expect(holding.find((x: any) => x.jurisdiction === 'US').amount).toBe(900)
  })
})
