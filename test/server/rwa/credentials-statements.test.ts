import SQLite from 'better-sqlite3'
import pg from 'pg'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TEST_DIALECT } from '../../support/backends.js'
import { builtDuring, statementsDuring } from '../../support/built-statements.js'
import { expectStatus, OWNER, PROPERTY, US } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * A credential POST's statements are compiled once (compiledOnce, compiledInsert): after the first
 * issuance, an issuance to a known owner DID builds none with kysely (docs/performance.md, "Third pass:
 * the credential POST"). Building them per request was the largest cost of the route beyond its floor.
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

const issue = (n: number, owner = OWNER) =>
  expectStatus(
    h.post('/console/rwa/credentials', {
      jurisdiction: 'US',
      owner_did: owner,
      property_data: { ...PROPERTY, title_deed: `TD-STATEMENTS-${n}` },
    }),
    201,
  )

describe('POST /console/rwa/credentials, its statements', () => {
  it('builds no statement with kysely once the first issuance has compiled them', async () => {
    await issue(0)
    await issue(1)
    expect(await builtDuring(() => issue(2))).toEqual([])
  })

  it('builds none for an owner DID new to the organization either (counted, under its lock)', async () => {
    await issue(0, 'did:web:statements:0')
    await issue(1, 'did:web:statements:1')
    expect(await builtDuring(() => issue(2, 'did:web:statements:2'))).toEqual([])
    const usage = await expectStatus(h.get('/console/billing/usage/admin', { query: { days: 1 } }), 200)
    expect(usage.totals.total_dids_created).toBe(3)
  })

  it('opens no savepoint on SQLite (the write’s own transaction is the issuance’s), one on PostgreSQL', async () => {
    await issue(0)
    const texts = await statementsDuring(() => issue(1))
    expect(texts.filter((text) => /^insert into "credentials"/.test(text))).toHaveLength(1)
    const savepoints = texts.filter((text) => /^savepoint /i.test(text))
    expect(savepoints).toEqual(TEST_DIALECT === 'sqlite' ? [] : ['savepoint rwa_nested_1'])
  })

  it('still refuses a title deed in use, leaving nothing of the refused issuance', async () => {
    const first = await issue(0)
    const refused = await h.post('/console/rwa/credentials', {
      jurisdiction: 'US',
      owner_did: 'did:web:statements:refused',
      property_data: { ...PROPERTY, title_deed: ' td-statements-0 ' },
    })
    expect(refused.status).toBe(409)
    expect(refused.body.reason).toBe('title_deed_in_use')
    expect(refused.body.context.credential_id).toBe(first.credential_id)
    const list = await expectStatus(h.get('/console/rwa/credentials', { query: { limit: 10 } }), 200)
    expect(list.total).toBe(1)
    const usage = await expectStatus(h.get('/console/billing/usage/admin', { query: { days: 1 } }), 200)
    expect(usage.totals.total_dids_created).toBe(1)
  })
})
