import { QueryCreator } from 'kysely'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
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

/** The tables of the statements kysely builds while `work` runs. */
async function builtDuring(work: () => Promise<unknown>): Promise<string[]> {
  const built: string[] = []
  for (const method of ['selectFrom', 'insertInto', 'updateTable', 'deleteFrom'] as const) {
    const original = QueryCreator.prototype[method] as (this: QueryCreator<never>, ...a: unknown[]) => unknown
    vi.spyOn(QueryCreator.prototype, method).mockImplementation(function (
      this: QueryCreator<never>,
      ...args: unknown[]
    ) {
      built.push(`${method} ${String(args[0])}`)
      return original.apply(this, args) as never
    })
  }
  await work()
  vi.restoreAllMocks()
  return built
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
})
