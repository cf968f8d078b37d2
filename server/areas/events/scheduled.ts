import { DAY_MS, isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../../pipeline/context.js'
import type { EventsTable } from '../../platform/db/events-schema.js'
import { holdingConnection } from '../../platform/db/held-connection.js'
import { apiObjectOf } from '../../pipeline/events/objects.js'
import { announceEvents, enqueueEventRows } from '../../pipeline/events/outbox.js'
import {
  claimJobLease,
  expiringAttestations,
  expiringKeys,
  endingTrials,
  markFired,
} from '../../pipeline/events/scheduled-queries.js'

/*
 * The scheduled events (docs/webhooks.md): `attestation.expiring` 30, 7 and 1 days before an active
 * attestation's `valid_until`, `key.expiring` 7 and 1 days before an unrevoked key's `expires_at`, and
 * `trial.ending` 3 days before a trial ends. One instance runs the job at a time (a lease in
 * `job_leases`); each event fires once per record and threshold (a mark whose primary key refuses a
 * second), in one transaction with its event and deliveries. A record first seen past several
 * thresholds fires the nearest one only, and the farther ones are marked as passed.
 */

const THRESHOLDS = {
  'attestation.expiring': [30, 7, 1],
  'key.expiring': [7, 1],
  'trial.ending': [3],
} as const

const JOB = 'scheduled-events'
const LEASE_MS = 2 * 60_000

/** The nearest threshold (in days) reached `msLeft` before the deadline, and those it passes. */
export function thresholdsReached(days: readonly number[], msLeft: number): number[] {
  return days.filter((d) => msLeft <= d * DAY_MS)
}

/** Runs the job once if this instance holds (or takes) its lease; returns how many events fired. */
export async function runScheduledEvents(ctx: AppContext, holder: string): Promise<number> {
  const now = ctx.clock.now()
  if (!(await claimJobLease(ctx.db, JOB, holder, isoTimestamp(now), isoTimestamp(now + LEASE_MS)))) return 0
  const horizon = (days: number) => isoTimestamp(now + days * DAY_MS)
  const at = isoTimestamp(now)
  const due: Array<{
    type: keyof typeof THRESHOLDS
    orgId: string
    id: string
    deadline: string
    target: string
  }> = []
  for (const row of await expiringAttestations(ctx.db, at, horizon(30)))
    due.push({
      type: 'attestation.expiring',
      orgId: row.org_id,
      id: row.id,
      deadline: row.deadline,
      target: 'attestation',
    })
  for (const row of await expiringKeys(ctx.db, at, horizon(7)))
    due.push({ type: 'key.expiring', orgId: row.org_id, id: row.id, deadline: row.deadline, target: 'key' })
  for (const row of await endingTrials(ctx.db, at, horizon(3)))
    due.push({
      type: 'trial.ending',
      orgId: row.org_id,
      id: row.id,
      deadline: row.deadline,
      target: 'subscription',
    })
  let fired = 0
  let queued = 0
  const orgIds = new Set<string>()
  for (const item of due) {
    const reached = thresholdsReached(THRESHOLDS[item.type], Date.parse(item.deadline) - now)
    const nearest = Math.min(...reached)
    // Held: reading a key's or a subscription's record goes through caches that query ctx.db.
    const deliveries = await holdingConnection(() =>
      ctx.db.transaction().execute(async (trx) => {
        // Every threshold reached is marked; the event fires only if the nearest one was not yet.
        const fresh = await markFired(
          trx,
          item.type,
          item.id,
          reached.map((d) => `${d}d`),
          `${nearest}d`,
          item.orgId,
          at,
        )
        if (!fresh) return undefined
        const object = await apiObjectOf(
          ctx,
          trx,
          item.orgId,
          { type: item.target, id: item.id },
          { id: item.id },
        )
        const row: EventsTable = {
          event_id: ctx.ids.next('evt'),
          org_id: item.orgId,
          type: item.type,
          created_at: at,
          data: JSON.stringify({ object }),
        }
        return enqueueEventRows(ctx, trx, [row])
      }),
    )
    if (deliveries === undefined) continue
    orgIds.add(item.orgId)
    fired++
    queued += deliveries
  }
  if (fired > 0) announceEvents(ctx, [...orgIds], queued)
  return fired
}

/** Runs the job every minute in this process (whichever instance holds the lease does the work). */
export function scheduleEvents(ctx: AppContext): { stop(): void } {
  const holder = ctx.ids.next('inst')
  const run = () => {
    runScheduledEvents(ctx, holder).catch((error) => ctx.logError('scheduled events failed', error))
  }
  const timer = setInterval(run, 60_000)
  timer.unref()
  setTimeout(run, 1_000).unref()
  return { stop: () => clearInterval(timer) }
}
