import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { statsResponseSchema } from '../../../src/contract/billing.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('GET /console/billing/stats', () => {
  it('counts all keys, active keys, and active keys by their organization tier', async () => {
    await h.createOrg('acme', { trial: true }) // free (a trial still reads free)
    const globex = await h.createOrg('globex', { tier: 'pro' })
    await h.post('/console/billing/keys', { org_id: 'globex', name: 'second' })
    await h.createOrg('initech', { tier: 'enterprise' })
    await h.request('DELETE', `/console/billing/keys/${globex.keyId}`)

    const res = await h.get('/console/billing/stats')
    expect(res.status).toBe(200)
    expect(statsResponseSchema.parse(res.body)).toEqual(res.body)
    // 1 admin + acme + 2 globex + initech; one globex key revoked. The admin org is enterprise.
    expect(res.body).toEqual({ total_keys: 5, active_keys: 4, by_tier: { free: 1, pro: 1, enterprise: 2 } })
  })

  it('is admin only', async () => {
    const acme = await h.createOrg('acme', { tier: 'enterprise' })
    const res = await h.get('/console/billing/stats', { key: acme.key })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('forbidden')
  })
})
