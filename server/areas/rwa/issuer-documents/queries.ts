import { sql } from 'kysely'
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

/**
 * Lists of every organization that are due for a background fetch (docs/issuers.md, "Evaluation"):
 * fetched at or before `staleAt` (or never), and not failed after `retryAt` (a failing list is tried
 * again at that pace, not at every run). Oldest first, at most `limit`.
 */
export function dueStatusLists(db: Executor, staleAt: string, retryAt: string, limit: number) {
  return db
    .selectFrom('issuer_status_lists')
    .select(['org_id', 'url', 'fetched_at'])
    .where((eb) => eb.or([eb('fetched_at', 'is', null), eb('fetched_at', '<=', staleAt)]))
    .where((eb) => eb.or([eb('failed_at', 'is', null), eb('failed_at', '<=', retryAt)]))
    .orderBy('fetched_at')
    .orderBy('org_id')
    .orderBy('url')
    .limit(limit)
    .execute()
}

/** `text` as a LIKE pattern matching itself alone (`%`, `_` and `\` escaped). */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * One attestation of the organization that relies on the list at `url`: a provider's credential whose
 * `credentialStatus` names it, still valid at `now`, of an issuer that is active. Undefined when none
 * does (the list is not fetched ahead of time any more).
 */
export function attestationRelyingOn(db: Executor, orgId: string, url: string, now: string) {
  const named = `%${literal(`"statusListCredential":${JSON.stringify(url)}`)}%`
  return db
    .selectFrom('external_attestations as a')
    .innerJoin('issuers as i', (join) =>
      join.onRef('i.org_id', '=', 'a.org_id').onRef('i.issuer_id', '=', 'a.issuer_id'),
    )
    .select(['a.issuer_id', 'a.credential_status'])
    .where('a.org_id', '=', orgId)
    .where('i.status', '=', 'active')
    .where((eb) => eb.or([eb('i.valid_until', 'is', null), eb('i.valid_until', '>', now)]))
    .where((eb) => eb.or([eb('a.valid_until', 'is', null), eb('a.valid_until', '>', now)]))
    .where(sql<boolean>`a.credential_status like ${named} escape '\\'`)
    .limit(1)
    .executeTakeFirst()
}
