import type { Tier } from '../../../src/contract/limits.js'
import { isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../context.js'
import type { EventsTable } from '../../platform/db/events-schema.js'
import { outsideHeldConnection } from '../../platform/db/held-connection.js'
import type { LimitDecision } from '../../platform/limits/rate-limiter.js'
import { outsideWrite } from '../writes/change.js'
import { announceEvents, enqueueEventRows } from './outbox.js'
import { markFired } from './scheduled-queries.js'

/*
 * `limit.reached` (docs/webhooks.md): an organization's request refused by its per-minute or per-day limit,
 * at most one event an hour per organization and limit, whichever instance refused it. It is decided
 * where the 429 is (server/pipeline/auth/authenticate.ts), which writes nothing: so it is enqueued on its own,
 * in a transaction of its own that marks the hour (`scheduled_event_marks`, whose primary key refuses
 * a second mark, so N instances fire it once) and writes the event and its deliveries. The refusal does
 * not wait for it, and this process tries once per organization, limit and hour (a flood of 429s costs
 * one insert an hour), again only if that try failed.
 */

/** What a `limit.reached` event's `data.object` holds. */
export interface LimitReached {
  org_id: string
  window: 'minute' | 'day'
  limit: number
  tier: Tier
  retry_after_seconds: number
  reached_at: string
}

/** Per app: the hour (ms since the epoch / 1 h) this process last tried each organization's limit in. */
const tried = new WeakMap<AppContext, Map<string, number>>()
const HOUR_MS = 3_600_000

/**
 * Notes that `orgId`'s request was refused by `decision`; fires `limit.reached` unless it fired (or
 * this process tried) in this hour already. Returns at once (the refusal need not wait: a test may, on
 * the promise of the attempt); what it starts runs outside the request's write, if any (a batch's
 * requests are refused inside one, which rolls back).
 */
export function noteLimitReached(
  ctx: AppContext,
  orgId: string,
  decision: LimitDecision,
  tier: Tier,
): Promise<void> | undefined {
  // The refusal path of a flood: a lookup, and nothing more, for every 429 but one an hour.
  const now = ctx.clock.now()
  const hour = Math.floor(now / HOUR_MS)
  const subject = `${orgId}:${decision.window}`
  const byProcess = tried.get(ctx) ?? new Map<string, number>()
  if (!tried.has(ctx)) tried.set(ctx, byProcess)
  if (byProcess.get(subject) === hour) return undefined
  byProcess.set(subject, hour)
  const object: LimitReached = {
    org_id: orgId,
    window: decision.window,
    limit: decision.limit,
    tier,
    retry_after_seconds: decision.retryAfterSeconds,
    reached_at: isoTimestamp(now),
  }
  const fire = async () => {
    const at = isoTimestamp(now)
    const queued = await ctx.db.transaction().execute(async (trx) => {
      // The mark names the hour as `2026-11-28T14`.
      const mark = at.slice(0, 13)
      if (!(await markFired(trx, 'limit.reached', subject, [mark], mark, orgId, at))) return undefined
      const row: EventsTable = {
        event_id: ctx.ids.next('evt'),
        org_id: orgId,
        type: 'limit.reached',
        created_at: at,
        data: JSON.stringify({ object }),
      }
      return enqueueEventRows(ctx, trx, [row])
    })
    if (queued !== undefined) announceEvents(ctx, [orgId], queued)
  }
  return outsideWrite(() =>
    outsideHeldConnection(() =>
      fire().catch((error) => {
        // Tried again by the next refusal of the hour.
        if (byProcess.get(subject) === hour) byProcess.delete(subject)
        ctx.logError('limit.reached could not be recorded', error)
      }),
    ),
  )
}
