import SQLite from 'better-sqlite3'
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely'
import { describe, expect, it } from 'vitest'
import { migrate } from '../../../server/platform/db/database.js'
import type { Database } from '../../../server/platform/db/schema.js'
import { findActiveByTitleDeed } from '../../../server/areas/rwa/credentials/queries.js'
import { openStatusList } from '../../../server/areas/rwa/status-lists/queries.js'
import { activeTrustTouching } from '../../../server/areas/rwa/trust/queries.js'
import {
  countDeliveriesInFlight,
  dueDeliveriesOf,
  organizationsWithDueDeliveries,
} from '../../../server/areas/webhooks/queries.js'

/** The statements `run` sends to a migrated SQLite database, each with its EXPLAIN QUERY PLAN. */
async function plansOf(
  run: (db: Kysely<Database>) => Promise<unknown>,
): Promise<{ sql: string; plan: string[] }[]> {
  const sent: string[] = []
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: new SQLite(':memory:') }),
    log: (event) => {
      if (event.level === 'query') sent.push(event.query.sql)
    },
  })
  await migrate(db)
  sent.length = 0
  await run(db)
  const plans = []
  for (const sql of [...sent]) {
    const parameters = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 'x')
    const rows = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${sql}`, parameters),
    )
    plans.push({ sql, plan: rows.rows.map((r) => r.detail) })
  }
  await db.destroy()
  return plans
}

describe('query plans on SQLite', () => {
  it("an issuance's title deed lookup searches the partial unique index, not every active credential of the organization", async () => {
    const [lookup] = await plansOf((db) => findActiveByTitleDeed(db, 'acme', 'US', 'sf-2026-000123'))
    expect(lookup!.plan).toEqual([
      'SEARCH credentials USING INDEX credentials_title_deed_uq (org_id=? AND jurisdiction=? AND title_deed_key=?)',
    ])
  })

  it("an issuance's open status list is read with its limit in the SQL (a bound limit ran three times slower)", async () => {
    const [open] = await plansOf((db) => openStatusList(db, 'acme', 'US'))
    expect(open!.sql).toMatch(/ limit 1$/)
    expect(open!.plan).toEqual([
      'SEARCH status_lists USING INDEX status_lists_jurisdiction_idx (org_id=? AND jurisdiction_id=?)',
    ])
  })

  it("a transfer's trust read names the active status in its SQL (bound, it ran three times slower)", async () => {
    const [trust] = await plansOf((db) => activeTrustTouching(db, 'acme', ['US', 'SG']))
    expect(trust!.sql).toContain(`"status" = 'active'`)
    expect(trust!.plan).toEqual(['SEARCH trust_relations USING INDEX trust_org_idx (org_id=? AND status=?)'])
  })
})

describe("webhook delivery claims on SQLite, whatever an organization's backlog", () => {
  const now = '2026-01-01T00:00:00.000Z'

  it('find the organizations with a due delivery by one index probe per enabled endpoint, and their claims from the lease index', async () => {
    const [organizations] = await plansOf((db) => organizationsWithDueDeliveries(db, now, 4))
    expect(organizations!.plan).toContain(
      'SEARCH webhook_deliveries EXISTS USING INDEX webhook_deliveries_endpoint_due_idx (webhook_id=? AND status=? AND next_attempt_at<?)',
    )
    expect(organizations!.plan).toContain(
      'SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_lease_idx (lease_until>?)',
    )
    expect(organizations!.plan.join('\n')).not.toMatch(/SCAN webhook_deliveries/)
    const [inFlight] = await plansOf((db) => countDeliveriesInFlight(db, 'acme', now))
    expect(inFlight!.plan).toEqual([
      'SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_lease_idx (lease_until>?)',
    ])
  })

  it("take an endpoint's first due deliveries in the index's order, with no sort", async () => {
    const [due] = await plansOf((db) => dueDeliveriesOf(db, 'wh_x', now, 4))
    expect(due!.plan).toEqual([
      'SEARCH webhook_deliveries USING INDEX webhook_deliveries_endpoint_due_idx (webhook_id=? AND status=? AND next_attempt_at<?)',
    ])
  })
})
