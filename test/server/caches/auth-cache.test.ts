import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hashApiKey } from '../../../server/pipeline/auth/api-keys.js'
import { InMemoryAuthCache } from '../../../server/platform/caches/auth-cache.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('InMemoryAuthCache', () => {
  it('caches an organization until it is forgotten', async () => {
    await h.createOrg('acme')
    const dir = h.ctx.authCache
    expect((await dir.org('acme'))?.subscription).toBeNull()
    await h.ctx.db.updateTable('organizations').set({ trial_ends_at: '2030-01-01T00:00:00.000Z' }).execute()
    expect((await dir.org('acme'))?.trialEndsAt).toBeNull() // still the cached state
    dir.forgetOrg('acme')
    expect((await dir.org('acme'))?.trialEndsAt).toBe(Date.parse('2030-01-01T00:00:00.000Z'))
  })

  it('does not cache a read that overlapped a change', async () => {
    await h.createOrg('acme')
    const dir = h.ctx.authCache
    const racing = dir.org('acme')
    dir.forgetOrg('acme')
    await racing
    await h.ctx.db.updateTable('organizations').set({ trial_ends_at: '2030-01-01T00:00:00.000Z' }).execute()
    expect((await dir.org('acme'))?.trialEndsAt).toBe(Date.parse('2030-01-01T00:00:00.000Z'))
  })
})

describe('the answers without a promise (cachedKey, cachedOrg)', () => {
  it('answer only what was read, and forget with the entries they answer from', async () => {
    const { key } = await h.createOrg('acme')
    const dir = h.ctx.authCache
    dir.forgetAll()
    const hash = hashApiKey(key)
    expect(dir.cachedKey(hash)).toBeUndefined()
    expect(dir.cachedOrg('acme')).toBeUndefined()
    const read = await dir.keyByHash(hash)
    const org = await dir.org('acme')
    expect(dir.cachedKey(hash)).toBe(read)
    expect(dir.cachedOrg('acme')).toBe(org)

    dir.markRevoked(read!.keyId)
    expect(dir.cachedKey(hash)?.revoked).toBe(true)
    dir.forgetKey(read!.keyId)
    expect(dir.cachedKey(hash)).toBeUndefined()
    dir.forgetOrg('acme')
    expect(dir.cachedOrg('acme')).toBeUndefined()
  })

  it('answer nothing once an entry is older than the TTL of several instances', async () => {
    const { key } = await h.createOrg('acme')
    const dir = new InMemoryAuthCache(h.ctx.db, { clock: h.clock, ttlMs: 1000 })
    const hash = hashApiKey(key)
    await dir.keyByHash(hash)
    await dir.org('acme')
    h.clock.advance(999)
    expect(dir.cachedKey(hash)?.orgId).toBe('acme')
    expect(dir.cachedOrg('acme')?.orgId).toBe('acme')
    h.clock.advance(1)
    expect(dir.cachedKey(hash)).toBeUndefined()
    expect(dir.cachedOrg('acme')).toBeUndefined()
  })
})
