import { statusEntriesOf, verifyExternalStatusList } from '../../../../src/proof/external-credential.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import { claimJobLease } from '../../../pipeline/events/scheduled-queries.js'
import { refreshIssuerDocuments } from '../issuers/background.js'
import { trustedIssuersOf } from '../issuers/queries.js'
import { FetchFailed, fetchForIssuer } from './fetch.js'
import { attestationRelyingOn, dueStatusLists, saveFailedFetch, saveFetchedList } from './queries.js'

/*
 * The trusted issuers' status lists fetched ahead of need (docs/issuers.md, "Evaluation"): a list the
 * organization relies on (named by a provider's credential still valid, of an active issuer) is fetched
 * again in the background once it is half `--issuer-status-max-age` old, so an evaluation finds it young
 * enough and rarely waits for a provider. One instance at a time does it (a lease in `job_leases`, as
 * the scheduled events), with the bounds and the address policy of every issuer fetch (./fetch.ts),
 * and with no transaction open. A list is kept only when it verifies as the issuer's list of its
 * purpose; a fetch that fails (or gives a list that does not verify) is recorded (`failed_at`,
 * `failure`) and the list fetched before is kept: past the max age the evaluation fails closed as ever.
 */

const JOB = 'issuer-status-lists'
/** Renewed before each fetch (each takes 10 s at most), so it lapses only with its holder. */
const LEASE_MS = 2 * 60_000
/** Lists fetched in one run at most (the oldest first); the rest wait for the next run. */
const BATCH = 100

/** When a list is due again and how often the job runs, for a max age. */
export function refreshTimings(maxAgeMs: number): {
  refreshAfterMs: number
  retryAfterMs: number
  everyMs: number
} {
  return {
    // Half the max age: a request finds the list fetched at most that long ago.
    refreshAfterMs: Math.floor(maxAgeMs / 2),
    // A list that failed is tried again ten times within the max age, no more.
    retryAfterMs: Math.max(1000, Math.floor(maxAgeMs / 10)),
    everyMs: Math.min(60_000, Math.max(1000, Math.floor(maxAgeMs / 8))),
  }
}

export interface RefreshOutcome {
  fetched: number
  failed: number
}

/**
 * Runs the job once if this instance holds (or takes) its lease: fetches the lists due and keeps them.
 * `stopping` is asked between fetches (the server is shutting down: the run ends after the current one).
 */
export async function refreshStatusLists(
  ctx: AppContext,
  holder: string,
  stopping: () => boolean = () => false,
): Promise<RefreshOutcome> {
  const outcome: RefreshOutcome = { fetched: 0, failed: 0 }
  const claim = () => {
    const now = ctx.clock.now()
    return claimJobLease(ctx.db, JOB, holder, isoTimestamp(now), isoTimestamp(now + LEASE_MS))
  }
  if (!(await claim())) return outcome
  const { refreshAfterMs, retryAfterMs } = refreshTimings(ctx.issuerStatusMaxAgeMs)
  const start = ctx.clock.now()
  const due = await dueStatusLists(
    ctx.db,
    isoTimestamp(start - refreshAfterMs),
    isoTimestamp(start - retryAfterMs),
    BATCH,
  )
  for (const list of due) {
    if (stopping() || !(await claim())) break
    const now = isoTimestamp(ctx.clock.now())
    const relying = await attestationRelyingOn(ctx.db, list.org_id, list.url, now)
    if (!relying) continue
    const failure = await fetchVerified(ctx, list.org_id, list.url, relying)
    if (failure === null) outcome.fetched++
    else {
      outcome.failed++
      await saveFailedFetch(ctx.db, list.org_id, list.url, isoTimestamp(ctx.clock.now()), failure)
    }
  }
  return outcome
}

/** Fetches the list and keeps it if it verifies as the issuer's: null, or why it was not kept. */
async function fetchVerified(
  ctx: AppContext,
  orgId: string,
  url: string,
  relying: { issuer_id: string; credential_status: string | null },
): Promise<string | null> {
  let listJwt: string
  try {
    listJwt = (await fetchForIssuer(url, { allowHttp: ctx.allowHttpIssuers }, 'application/vc+jwt')).trim()
  } catch (error) {
    if (!(error instanceof FetchFailed)) throw error
    return error.message
  }
  const issuer = (await trustedIssuersOf(ctx.db, orgId)).find((i) => i.issuer_id === relying.issuer_id)
  const entries = statusEntriesOf(JSON.parse(relying.credential_status ?? 'null'))
  const entry = typeof entries === 'string' ? undefined : entries.find((e) => e.statusListCredential === url)
  if (!issuer || !entry) return `${url} is no longer named by a credential of an active issuer`
  const verified = await verifyExternalStatusList(listJwt, url, entry.statusPurpose, issuer)
  if ('reason' in verified) return verified.reason
  await saveFetchedList(ctx.db, orgId, url, listJwt, isoTimestamp(ctx.clock.now()))
  return null
}

/**
 * Runs the jobs of trusted issuers in this process (whichever instance holds a job's lease does its
 * work), at a pace set by the max age: the status lists due, then the DID documents due
 * (server/areas/rwa/issuers/background.ts). `stop()` clears the timer and waits for a run under way to
 * end (after its current fetch, 10 s at most).
 */
export function scheduleIssuerRefresh(ctx: AppContext): { stop(): Promise<void> } {
  const holder = ctx.ids.next('inst')
  const { everyMs } = refreshTimings(ctx.issuerStatusMaxAgeMs)
  const attempted = new Map<string, number>()
  let stopped = false
  let running: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  const stopping = () => stopped
  const once = async () => {
    await refreshStatusLists(ctx, holder, stopping)
    if (!stopped) await refreshIssuerDocuments(ctx, holder, { stopping, attempted })
  }
  const run = () => {
    timer = undefined
    if (stopped) return
    running = once()
      .catch((error) => ctx.logError('trusted issuers refresh failed', error))
      .finally(() => {
        running = undefined
        if (!stopped) timer = setTimeout(run, everyMs).unref()
      })
  }
  timer = setTimeout(run, Math.min(everyMs, 1000)).unref()
  return {
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = undefined
      await running
    },
  }
}
