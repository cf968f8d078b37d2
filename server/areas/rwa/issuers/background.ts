import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import { claimJobLease } from '../../../pipeline/events/scheduled-queries.js'
import { ApiError } from '../../../platform/errors.js'
import { runWrite } from '../../../pipeline/writes/run-write.js'
import { findIssuer, issuersDueForResolution } from './queries.js'
import { type ResolvedKey, resolveIssuerDid, Unresolvable } from './resolve.js'
import { applyResolution } from './service.js'

/*
 * Trusted issuers' DID documents fetched again in the background (docs/issuers.md, "Keys"): an active
 * did:web issuer resolved more than an hour ago is resolved again, as `rwa issuers refresh` would do it
 * (keys kept for life: a key gone from the document retired, a new one added, `issuer.keys_changed` by
 * the system actor `issuer_refresh`). One instance at a time (a lease in `job_leases`); the document is
 * fetched with no transaction open, under the bounds and address policy of every issuer fetch; a
 * document that cannot be had changes nothing, is logged, and is tried again an hour later.
 */

const JOB = 'issuer-documents'
const LEASE_MS = 2 * 60_000
export const RESOLVE_EVERY_MS = 3_600_000
const BATCH = 50

export interface ResolutionOutcome {
  resolved: number
  failed: number
}

/**
 * Runs the job once if this instance holds (or takes) its lease. `attempted` remembers, in this
 * process, when each issuer was last tried, so a provider that fails is tried again hourly, not at every
 * run; `stopping` is asked between issuers.
 */
export async function refreshIssuerDocuments(
  ctx: AppContext,
  holder: string,
  options: { stopping?: () => boolean; attempted?: Map<string, number> } = {},
): Promise<ResolutionOutcome> {
  const outcome: ResolutionOutcome = { resolved: 0, failed: 0 }
  const attempted = options.attempted ?? new Map<string, number>()
  const claim = () => {
    const now = ctx.clock.now()
    return claimJobLease(ctx.db, JOB, holder, isoTimestamp(now), isoTimestamp(now + LEASE_MS))
  }
  if (!(await claim())) return outcome
  const start = ctx.clock.now()
  const due = await issuersDueForResolution(
    ctx.db,
    isoTimestamp(start),
    isoTimestamp(start - RESOLVE_EVERY_MS),
    BATCH,
  )
  for (const issuer of due) {
    const key = `${issuer.org_id} ${issuer.issuer_id}`
    const last = attempted.get(key)
    if (last !== undefined && ctx.clock.now() - last < RESOLVE_EVERY_MS) continue
    if (options.stopping?.() || !(await claim())) break
    attempted.set(key, ctx.clock.now())
    const failure = await resolveAndApply(ctx, issuer)
    if (failure === null) {
      outcome.resolved++
      attempted.delete(key)
    } else {
      outcome.failed++
      ctx.logger.warn(
        { org_id: issuer.org_id, issuer_id: issuer.issuer_id, reason: failure },
        "trusted issuer's DID document not resolved; its keys are kept as they were",
      )
    }
  }
  return outcome
}

/** Resolves the DID with no transaction open, then applies it in a write: null, or why not. */
async function resolveAndApply(
  ctx: AppContext,
  issuer: { org_id: string; issuer_id: string; did: string },
): Promise<string | null> {
  let resolved: ResolvedKey[]
  try {
    resolved = await resolveIssuerDid(issuer.did, { allowHttp: ctx.allowHttpIssuers })
  } catch (error) {
    if (error instanceof Unresolvable) return error.message
    throw error
  }
  try {
    await runWrite(ctx, { actor: { system: 'issuer_refresh' }, requestId: null }, () =>
      ctx.db.transaction().execute(async (trx) => {
        const row = await findIssuer(trx, issuer.org_id, issuer.issuer_id, 'update')
        // Suspended, removed or changed since it was found due: left alone.
        if (row?.status !== 'active' || row.did !== issuer.did) return
        await applyResolution(ctx, trx, row, resolved)
      }),
    )
  } catch (error) {
    if (error instanceof ApiError && error.reason === 'issuer_unresolvable') return error.detail
    throw error
  }
  return null
}
