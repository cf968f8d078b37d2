import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { utcDate } from '../../../../server/platform/clock.js'
import { createHarness, type Harness } from '../../../support/harness.js'
import { expectStatus, OWNER, PROPERTY, US } from '../../../support/governance.js'

/*
 * Skills (README.md, "Trial, tiers and limits"): every tokenize registers one skill; the tier's max_skills
 * caps them (a trial has Pro's 500), and usage reports skills_registered per day.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

async function credential(key: string, deed: string): Promise<string> {
  const c = await expectStatus(
    h.post(
      '/console/rwa/credentials',
      { jurisdiction: 'US', owner_did: OWNER, property_data: { ...PROPERTY, title_deed: deed } },
      { key },
    ),
    201,
  )
  return c.credential_id
}

const tokenize = (key: string, credentialId: string) =>
  h.post('/console/rwa/tokenize', { credential_id: credentialId, total_supply: 10 }, { key })

describe('skills (max_skills, skills_registered)', () => {
  it('counts each tokenize as a skill registered that day', async () => {
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    for (const deed of ['D-1', 'D-2'])
      await expectStatus(tokenize(h.adminKey, await credential(h.adminKey, deed)), 201)
    const usage = await expectStatus(h.get('/console/billing/usage/admin', { query: { days: 1 } }), 200)
    expect(usage.totals.total_skills_registered).toBe(2)
    expect(usage.daily_usage).toEqual([
      expect.objectContaining({ date: utcDate(h.clock.now()), skills_registered: 2 }),
    ])
  })

  it('admits the 500th skill of a trial (Pro) and refuses the 501st with 403 max_skills, changing nothing', async () => {
    const org = await h.createOrg('acme', { trial: true })
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: org.key }), 201)
    // 498 tokens made before, written directly (tokens are never deleted, so every one counts).
    const rows = Array.from({ length: 498 }, (_, i) => ({
      token_id: `tok_SEED${String(i).padStart(22, '0')}`,
      org_id: 'acme',
      credential_id: `cred_SEED${String(i).padStart(21, '0')}`,
      jurisdiction: 'US',
      owner_did: OWNER,
      symbol: null,
      total_supply: 1,
      supply: 1,
      status: 'active',
      created_at: '2026-01-01T00:00:00.000Z',
      rules: null,
    }))
    for (let i = 0; i < rows.length; i += 100)
      await h.ctx.db
        .insertInto('tokens')
        .values(rows.slice(i, i + 100))
        .execute()
    // Another organization's tokens do not count against acme's.
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    await expectStatus(tokenize(h.adminKey, await credential(h.adminKey, 'ADMIN-1')), 201)

    await expectStatus(tokenize(org.key, await credential(org.key, 'A-499')), 201)
    await expectStatus(tokenize(org.key, await credential(org.key, 'A-500')), 201) // the 500th
    const last = await credential(org.key, 'A-501')
    const refused = await tokenize(org.key, last)
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({
      code: 'quota_exceeded',
      reason: 'max_skills',
      context: { org_id: 'acme', max_skills: 500 },
    })
    expect(refused.body.detail).toContain('limit of 500 skills (max_skills)')

    const tokens = await expectStatus(
      h.get('/console/rwa/tokens', { key: org.key, query: { limit: 1 } }),
      200,
    )
    expect(tokens.total).toBe(500)
    const credentialNow = await expectStatus(h.get(`/console/rwa/credentials/${last}`, { key: org.key }), 200)
    expect(credentialNow.status).toBe('active')
    const usage = await expectStatus(
      h.get('/console/billing/usage/acme', { key: org.key, query: { days: 1 } }),
      200,
    )
    expect(usage.totals.total_skills_registered).toBe(2) // the refused one counted nothing
  })

  it('has no cap on enterprise', async () => {
    const org = await h.createOrg('big', { tier: 'enterprise' })
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: org.key }), 201)
    await expectStatus(tokenize(org.key, await credential(org.key, 'B-1')), 201)
  })
})
