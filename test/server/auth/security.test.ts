import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHarness, everyStoredRow, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

/** Every billing route that needs a key, with a request a valid key could make. */
const PROTECTED: Array<[method: string, path: string, body?: unknown]> = [
  ['POST', '/console/billing/keys', { org_id: 'acme', name: 'x' }],
  ['GET', '/console/billing/keys?org_id=acme'],
  ['DELETE', '/console/billing/keys/key_01ABCDEFGHJKMNPQRSTVWXYZ00'],
  ['GET', '/console/billing/subscription/acme'],
  ['POST', '/console/billing/subscription', { org_id: 'acme', tier: 'pro' }],
  ['GET', '/console/billing/usage/acme'],
  ['GET', '/console/billing/stats'],
]

describe.each(PROTECTED)('%s %s', (method, path, body) => {
  it.each([
    ['a missing key', null, /Missing X-API-Key/],
    ['a malformed key', 'hunter2', /Malformed API key/],
    ['an unknown key', `rwa_live_${'x'.repeat(43)}`, /Unknown API key/],
  ])('answers 401 for %s', async (_, key, detail) => {
    const res = await h.request(method, path, { key, body })
    expect(res.status).toBe(401)
    expect(res.body).toMatchObject({ code: 'unauthenticated', status: 401, title: 'Authentication required' })
    expect(res.body.detail).toMatch(detail)
  })

  it('answers 401 for a revoked key', async () => {
    const acme = await h.createOrg('acme')
    await h.request('DELETE', `/console/billing/keys/${acme.keyId}`)
    const res = await h.request(method, path, { key: acme.key, body })
    expect(res.status).toBe(401)
    expect(res.body.detail).toMatch(/revoked/)
  })
})

type Call = [method: string, path: string, body?: unknown]

describe('tenancy', () => {
  it.each<Call>([
    ['POST', '/console/billing/keys', { org_id: 'globex', name: 'x' }],
    ['GET', '/console/billing/keys?org_id=globex'],
    ['GET', '/console/billing/subscription/globex'],
    ['GET', '/console/billing/usage/globex'],
  ])('a member key on another organization gets 403: %s %s', async (method, path, body) => {
    const acme = await h.createOrg('acme')
    await h.createOrg('globex')
    const res = await h.request(method, path, { key: acme.key, body })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('forbidden')
    expect(res.body.detail).toMatch(/acme/)
  })

  it.each<Call>([
    ['POST', '/console/billing/subscription', { org_id: 'acme', tier: 'pro' }],
    ['GET', '/console/billing/stats'],
  ])('admin-only %s %s gets 403 with a member key', async (method, path, body) => {
    const acme = await h.createOrg('acme', { tier: 'enterprise' })
    const res = await h.request(method, path, { key: acme.key, body })
    expect(res.status).toBe(403)
    expect(res.body.detail).toMatch(/admin/)
  })
})

describe('key storage', () => {
  it('never stores a raw key, only its SHA-256 (every row of every table; on SQLite every file byte)', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const second = await h.post('/console/billing/keys', { name: 'second' }, { key: acme.key })
    await h.get('/console/billing/keys', { key: second.body.api_key })
    await h.ctx.meter.flush()

    const stored = [Buffer.from(await everyStoredRow(h))]
    if (h.dbPath) {
      // The files too: the WAL and free pages can hold what no row shows any more.
      const dir = dirname(h.dbPath)
      const files = readdirSync(dir).map((f) => join(dir, f))
      expect(files.some((f) => f.endsWith('-wal'))).toBe(true)
      stored.push(...files.map((f) => readFileSync(f)))
    }
    const bytes = Buffer.concat(stored)
    for (const raw of [h.adminKey, acme.key, second.body.api_key]) {
      expect(bytes.includes(raw)).toBe(false)
      // Not even the secret part on its own.
      expect(bytes.includes(raw.slice('rwa_live_'.length))).toBe(false)
    }
    const { createHash } = await import('node:crypto')
    expect(bytes.includes(createHash('sha256').update(acme.key).digest('hex'))).toBe(true)
  })

  it('logs nothing for refused or invalid requests (only unexpected errors are logged, never with keys)', async () => {
    const acme = await h.createOrg('acme')
    await h.request('POST', '/console/billing/keys', { key: acme.key, rawBody: '{"name":' })
    await h.get('/console/billing/stats', { key: acme.key })
    await h.get('/console/billing/stats', { key: `rwa_live_${'y'.repeat(43)}` })
    expect(h.loggedErrors).toEqual([])
  })
})
