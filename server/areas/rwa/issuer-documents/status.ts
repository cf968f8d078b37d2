import type { FetchedList } from '../../../../src/proof/external-credential.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import type { Executor } from '../../../platform/db/queries.js'
import { FetchFailed, fetchForIssuer } from './fetch.js'
import { findStatusList, saveFailedFetch, saveFetchedList } from './queries.js'

/*
 * A trusted issuer's status list as the organization last fetched it (docs/issuers.md, "Evaluation"):
 * kept in the database, so that every instance reads the same list and one fetch serves them all. A
 * list younger than --issuer-status-max-age is used as it is; an older one (or none) is fetched again
 * now, under the address policy; when that fails, the old one is handed over with its age, and the
 * caller (src/proof/external-credential.ts: checkExternalStatus) finds it too old: fail closed.
 */

/** Fetches a list now; the outcome is kept for the organization. */
export async function fetchAndKeep(
  ctx: AppContext,
  db: Executor,
  orgId: string,
  url: string,
): Promise<FetchedList> {
  const now = isoTimestamp(ctx.clock.now())
  try {
    const listJwt = (
      await fetchForIssuer(url, { allowHttp: ctx.allowHttpIssuers }, 'application/vc+jwt')
    ).trim()
    await saveFetchedList(db, orgId, url, listJwt, now)
    return { listJwt, fetchedAt: now }
  } catch (error) {
    if (!(error instanceof FetchFailed)) throw error
    await saveFailedFetch(db, orgId, url, now, error.message)
    const kept = await findStatusList(db, orgId, url)
    return kept?.list_jwt && kept.fetched_at
      ? { listJwt: kept.list_jwt, fetchedAt: kept.fetched_at }
      : { error: error.message }
  }
}

/** The list as last fetched when it is young enough, else fetched again now (see above). */
export function cachedStatusList(ctx: AppContext, db: Executor, orgId: string) {
  return async (url: string): Promise<FetchedList> => {
    const kept = await findStatusList(db, orgId, url)
    if (
      kept?.list_jwt &&
      kept.fetched_at &&
      ctx.clock.now() - Date.parse(kept.fetched_at) <= ctx.issuerStatusMaxAgeMs
    ) {
      return { listJwt: kept.list_jwt, fetchedAt: kept.fetched_at }
    }
    return fetchAndKeep(ctx, db, orgId, url)
  }
}
