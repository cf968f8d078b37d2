import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TEST_DIALECT } from '../../support/backends.js'
import { statementsDuring } from '../../support/built-statements.js'
import { expectStatus, OWNER, PROPERTY, US } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * Concurrent POSTs over HTTP on SQLite commit in groups (docs/performance.md, "Eighth pass: the group
 * commit"); on PostgreSQL each keeps its own transaction. Either way every answer is what the POST alone
 * would answer, a refused one leaves nothing, and the organization's log holds exactly the accepted ones.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
  await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
})
afterEach(() => {
  vi.restoreAllMocks()
  return h.close()
})

const issue = (deed: string) =>
  h.post('/console/rwa/credentials', {
    jurisdiction: 'US',
    owner_did: OWNER,
    property_data: { ...PROPERTY, title_deed: deed },
  })

describe('concurrent credential POSTs', () => {
  it('answer each as alone, a duplicate deed refused alone, the log holding exactly the accepted', async () => {
    const before = await expectStatus<{ tree_size: number }>(h.get('/console/audit/log/checkpoint'), 200)
    const deeds = Array.from({ length: 16 }, (_, i) => `TD-GROUP-${i}`)
    // The fifth names the first's deed: exactly one of the two is accepted.
    deeds[4] = 'TD-GROUP-0'
    let responses: Array<{ status: number; body: unknown }> = []
    const statements = await statementsDuring(async () => {
      responses = await Promise.all(deeds.map((deed) => issue(deed)))
    })
    const statuses = responses.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(15)
    const refused = responses.filter((r) => r.status !== 201)
    expect(refused).toHaveLength(1)
    expect(refused[0]?.status).toBe(409)
    expect((refused[0]?.body as { reason?: string } | undefined)?.reason).toBe('title_deed_in_use')
    // Each accepted credential is there, answered as GET answers it.
    for (const r of responses.filter((x) => x.status === 201)) {
      const answer = r.body as { credential_id: string }
      const got = await expectStatus(h.get(`/console/rwa/credentials/${answer.credential_id}`), 200)
      expect(got).toMatchObject({ credential_id: answer.credential_id, status: 'active' })
    }
    const listed = await expectStatus(h.get('/console/rwa/credentials?limit=100'), 200)
    expect((listed as { total: number }).total).toBe(15)
    const after = await expectStatus<{ tree_size: number }>(h.get('/console/audit/log/checkpoint'), 200)
    expect(after.tree_size - before.tree_size).toBe(15)
    if (TEST_DIALECT === 'sqlite') {
      // Fewer commits than writes: they were grouped.
      expect(statements.filter((s) => s === 'commit').length).toBeLessThan(16)
      expect(statements).toContain('savepoint rwa_grouped')
    }
  })
})
