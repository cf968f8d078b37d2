import type { Db } from '../../server/platform/db/database.js'

/**
 * Everything the database holds, as one comparable value: every table's rows in a fixed order. What a
 * request writes by being made at all (usage counts, a key's last use) is left out, so two snapshots
 * around a refused call are equal exactly when the call changed nothing it was refused.
 */
export async function snapshotOf(db: Db): Promise<Record<string, unknown[]>> {
  const tables = (await db.introspection.getTables())
    .map((table) => table.name)
    .filter((name) => name !== 'usage_daily')
    .sort()
  const snapshot: Record<string, unknown[]> = {}
  for (const table of tables) {
    const rows = (await db
      .selectFrom(table as never)
      .selectAll()
      .execute()) as Record<string, unknown>[]
    snapshot[table] = rows
      .map((row) => {
        const { last_used_at: _, ...kept } = row
        return JSON.stringify(kept, (_key, value) => (typeof value === 'bigint' ? String(value) : value))
      })
      .sort()
  }
  return snapshot
}
