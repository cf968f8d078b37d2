import { afterEach, describe, expect, it } from 'vitest'
import { ensureAdminKey } from '../../server/bootstrap.js'
import { AGGREGATES } from '../../server/aggregates.js'
import { createAppContext } from '../../server/pipeline/context.js'
import { type Db, openPostgres } from '../../server/platform/db/database.js'
import { systemClock } from '../../server/platform/clock.js'
import { migrations as allMigrations } from '../../server/platform/db/migrations/index.js'
import { openKeyCustody } from '../../server/custody.js'
import { MasterKey } from '../../server/platform/signing/master-key.js'
import { createTestDatabase, type TestDatabase } from '../support/backends.js'

/*
 * Instances started at the same moment on an empty PostgreSQL database: both run the migrations and
 * look for an admin key at once, and must end with one schema and one admin key.
 */

let database: TestDatabase | undefined
const opened: Db[] = []
afterEach(async () => {
  for (const db of opened.splice(0)) await db.destroy()
  await database?.drop()
  database = undefined
})

async function startTogether(n: number, presetKey?: string) {
  database = await createTestDatabase({ empty: true })
  const url = database.url
  const dbs = await Promise.all(Array.from({ length: n }, () => openPostgres(url, { poolSize: 2 })))
  opened.push(...dbs)
  // As `rwa server start` does: the master key checked (and its check value stored once), then the admin key.
  const masterKey = MasterKey.generate()
  const names = { where: 'the test database', source: 'the test key' }
  const results = await Promise.all(
    dbs.map(async (db) => {
      await openKeyCustody(db, masterKey, systemClock, names)
      return ensureAdminKey(createAppContext({ db, masterKey, aggregates: AGGREGATES }), presetKey)
    }),
  )
  const db = dbs[0]!
  const migrations = await db
    .selectFrom('kysely_migration' as never)
    .select('name' as never)
    .execute()
  const adminKeys = await db.selectFrom('api_keys').selectAll().where('org_id', '=', 'admin').execute()
  return { results, migrations: migrations.map((m) => (m as { name: string }).name), adminKeys }
}

describe('first starts at once on an empty database', () => {
  it('apply each migration once and make one admin key, printed by one instance', async () => {
    const { results, migrations, adminKeys } = await startTogether(4)
    // Every migration there is, each once, in order (four instances ran them at the same moment).
    expect(migrations).toEqual(Object.keys(allMigrations))
    expect(adminKeys).toHaveLength(1)
    expect(results.filter((r) => r.created)).toHaveLength(1)
    const printed = results.flatMap((r) => (r.printable ? [r.printable] : []))
    expect(printed).toHaveLength(1)
  })

  it('with RWA_ADMIN_KEY make that one key, printed by none', async () => {
    const preset = `rwa_live_${'B'.repeat(43)}`
    const { results, adminKeys } = await startTogether(4, preset)
    expect(adminKeys).toHaveLength(1)
    expect(adminKeys[0]!.key_prefix).toBe(`${preset.slice(0, 12)}...`)
    expect(results.every((r) => r.printable === null)).toBe(true)
  })
})
