import { afterEach, beforeEach, describe, expect, it } from 'vitest'
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
