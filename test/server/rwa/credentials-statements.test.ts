import SQLite from 'better-sqlite3'
import pg from 'pg'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TEST_DIALECT } from '../../support/backends.js'
import { expectStatus, OWNER, PROPERTY, US } from '../../support/governance.js'
import { builtDuring } from '../../support/built-statements.js'
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

/** The SQL texts run while `work` runs, as the database driver is given them. */
async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = []
  if (TEST_DIALECT === 'sqlite') {
    const memory = new SQLite(':memory:')
    const statement = Object.getPrototypeOf(memory.prepare('select 1')) as Record<
      'run' | 'all',
      (...args: unknown[]) => unknown
    >
    memory.close()
    for (const method of ['run', 'all'] as const) {
      const original = statement[method]
      vi.spyOn(statement, method).mockImplementation(function (this: { source: string }, ...args: unknown[]) {
        texts.push(this.source)
        return original.apply(this, args)
      })
    }
  } else {
    const original = pg.Client.prototype.query as (...args: unknown[]) => unknown
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      if (typeof args[0] === 'string') texts.push(args[0])
      return original.apply(this, args) as never
    })
  }
  await work()
  vi.restoreAllMocks()
  return texts
}

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
