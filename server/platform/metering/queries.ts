import { isoTimestamp } from '../clock.js'
import { compiledOnce } from '../db/compiled-query.js'
import type { Executor } from '../db/queries.js'

/** Daily usage per organization (`usage_daily`) and the last use of each key. */

/** Requests of an organization stored for a UTC date. */
export async function requestCountOn(db: Executor, orgId: string, date: string): Promise<number> {
  const row = await db
    .selectFrom('usage_daily')
    .select('request_count')
    .where('org_id', '=', orgId)
    .where('date', '=', date)
    .executeTakeFirst()
  return row?.request_count ?? 0
}

/** The stored usage rows of an organization between two UTC dates, both included. */
export function usageRows(db: Executor, orgId: string, fromDate: string, toDate: string) {
  return db
    .selectFrom('usage_daily')
    .select(['date', 'request_count', 'dids_created', 'skills_registered'])
    .where('org_id', '=', orgId)
    .where('date', '>=', fromDate)
    .where('date', '<=', toDate)
    .execute()
}

/** The counters of a day of usage. */
export type UsageCounter = 'request_count' | 'dids_created' | 'skills_registered'

/** Adds `count` to one counter of an organization's day (additive: concurrent writers never lose counts). */
export async function addUsage(
  db: Executor,
  orgId: string,
  date: string,
  counter: UsageCounter,
  count: number,
): Promise<void> {
  await addUsageOf[counter](db, orgId, date, count)
}

/** The upsert of each counter, compiled once per dialect (compiledOnce): the counter names a column. */
const addUsageTo = (counter: UsageCounter) =>
  compiledOnce((db: Executor, orgId: string, date: string, count: number) =>
    db
      .insertInto('usage_daily')
      .values({ org_id: orgId, date, [counter]: count })
      .onConflict((oc) =>
        oc.columns(['org_id', 'date']).doUpdateSet((eb) => ({
          [counter]: eb(`usage_daily.${counter}`, '+', eb.ref(`excluded.${counter}`)),
        })),
      ),
  )
const addUsageOf: Record<UsageCounter, ReturnType<typeof addUsageTo>> = {
  request_count: addUsageTo('request_count'),
  dids_created: addUsageTo('dids_created'),
  skills_registered: addUsageTo('skills_registered'),
}

/**
 * Records when a key was last used, unless a later use is recorded already (another instance's flush):
 * the timestamps share one format, so text order is time order.
 */
export async function setKeyLastUsed(db: Executor, keyId: string, at: number): Promise<void> {
  const iso = isoTimestamp(at)
  await db
    .updateTable('api_keys')
    .set({ last_used_at: iso })
    .where('key_id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', iso)]))
    .execute()
}
