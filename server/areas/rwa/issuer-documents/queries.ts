import type { Executor } from '../../../platform/db/queries.js'

/** The status lists of trusted issuers as last fetched for an organization (docs/issuers.md, "Evaluation"). */

export function findStatusList(db: Executor, orgId: string, url: string) {
  return db
    .selectFrom('issuer_status_lists')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('url', '=', url)
    .executeTakeFirst()
}

/** Keeps a list just fetched (and forgets an earlier failure). */
export async function saveFetchedList(
  db: Executor,
  orgId: string,
  url: string,
  listJwt: string,
  fetchedAt: string,
): Promise<void> {
  await db
    .insertInto('issuer_status_lists')
    .values({ org_id: orgId, url, list_jwt: listJwt, fetched_at: fetchedAt, failed_at: null, failure: null })
    .onConflict((oc) =>
      oc
        .columns(['org_id', 'url'])
        .doUpdateSet({ list_jwt: listJwt, fetched_at: fetchedAt, failed_at: null, failure: null }),
    )
    .execute()
}

/** Records a failed fetch; the list fetched before, if any, is kept. */
export async function saveFailedFetch(
  db: Executor,
  orgId: string,
  url: string,
  failedAt: string,
  failure: string,
): Promise<void> {
  await db
    .insertInto('issuer_status_lists')
    .values({ org_id: orgId, url, list_jwt: null, fetched_at: null, failed_at: failedAt, failure })
    .onConflict((oc) => oc.columns(['org_id', 'url']).doUpdateSet({ failed_at: failedAt, failure }))
    .execute()
}
