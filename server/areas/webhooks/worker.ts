import type { Selectable } from 'kysely'
import { isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../../pipeline/context.js'
import type { WebhookDeliveriesTable } from '../../platform/db/events-schema.js'
import { eventFromRow } from '../events/service.js'
import { eventSignal } from '../../pipeline/events/outbox.js'
import { nextAttemptAt } from './backoff.js'
import { postToDestination } from './destination.js'
import { DELIVERY_TIMEOUT_MS, type PostOutcome } from './post.js'
import {
  claimDueDeliveries,
  countDeliveriesInFlight,
  deliveryMaterial,
  disableEndpointFailingSince,
  markEndpointFailing,
  lockDeliveriesOf,
  markEndpointSucceeded,
  organizationsWithDueDeliveries,
  recordAttempt,
} from './queries.js'
import { SealOpenError } from '../../platform/signing/master-key.js'
import { openWebhookSecret } from './secret-custody.js'
import { webhookHeaders } from './signature.js'

/*
 * The delivery worker (docs/webhooks.md, "Deliveries"): every instance runs one. It claims due deliveries
 * from the database (server/areas/webhooks/queries.ts: a lease, taken with SKIP LOCKED on PostgreSQL, so each
 * attempt is made by one instance), POSTs each signed event, and records the attempt: delivered, or due again
 * after the backoff, or given up after 3 days (its endpoint disabled). Nothing is kept in memory that
 * a crash could lose: a killed instance's claims expire with their lease and are taken again, so every
 * event is delivered at least once.
 *
 * Fair between organizations: each has at most ORGANIZATION_CONCURRENCY deliveries in flight, counted
 * over every instance, and an attempt is started as soon as its organization has room, never held
 * back until another's attempts end. Endpoints that never answer (each attempt up to 10 s) so keep
 * only their own organization waiting; another's delivery is claimed at the next wake-up (this
 * process's commit, or the poll within a second).
 */

/** How long a claim holds: the attempt's 10 s timeout and room to record it. */
export const LEASE_MS = DELIVERY_TIMEOUT_MS + 5_000
const POLL_MS = 1_000
/**
 * The most deliveries of one organization in flight at once, on every instance together: endpoints
 * that hang hold their own organization's room, never another's (docs/webhooks.md, "Deliveries").
 */
export const ORGANIZATION_CONCURRENCY = 4

export interface WebhookWorker {
  /**
   * Attempts every delivery due now that this instance may claim, until none is left and none is in
   * flight; returns how many attempts it made.
   */
  runOnce(): Promise<number>
  /** Stops polling and waits for the attempts in flight. */
  stop(): Promise<void>
}

/**
 * The worker of `ctx`. With `poll`, it looks for due deliveries every second and at once when this
 * process commits an event; without, only when `runOnce` is called (tests move the clock instead).
 */
export function webhookWorker(ctx: AppContext, options: { poll: boolean }): WebhookWorker {
  let stopped = false
  /** This instance's attempts in flight, and how many per organization. */
  const attempts = new Set<Promise<void>>()
  const inFlight = new Map<string, number>()
  let attemptsMade = 0
  let claiming: Promise<number> | undefined
  let again = false

  /** The endpoint's `whsec_` secret, or undefined (logged) if its stored form does not open. */
  const openedSecret = (webhookId: string, stored: string): string | undefined => {
    try {
      return openWebhookSecret(ctx.masterKey, webhookId, stored)
    } catch (error) {
      if (!(error instanceof SealOpenError)) throw error
      ctx.logError(`webhook ${webhookId}: its signing secret does not open`, error)
      return undefined
    }
  }

  const attempt = async (delivery: Selectable<WebhookDeliveriesTable>, token: string): Promise<void> => {
    const { event, endpoint } = await deliveryMaterial(ctx.db, delivery)
    const attemptNumber = delivery.attempts + 1
    const startedAt = ctx.clock.now()
    let outcome: PostOutcome
    if (!event || !endpoint) {
      outcome = { statusCode: null, error: 'the event or the endpoint no longer exists' }
    } else {
      const body = JSON.stringify(eventFromRow(event))
      const secret = openedSecret(delivery.webhook_id, endpoint.secret)
      if (secret === undefined) {
        // Recorded as a failed attempt (retried, and in the end disabling the endpoint) rather than
        // thrown, which would leave the delivery claimed again every lease and never counted.
        outcome = {
          statusCode: null,
          error: "the endpoint's signing secret cannot be opened with this master key",
        }
      } else {
        const headers = webhookHeaders(secret, event.event_id, Math.floor(startedAt / 1000), body)
        outcome = await postToDestination(endpoint.url, body, headers, { allowHttp: ctx.allowHttpWebhooks })
      }
    }
    const now = ctx.clock.now()
    const at = isoTimestamp(now)
    const succeeded = outcome.error === null
    const next = succeeded ? null : nextAttemptAt(attemptNumber, Date.parse(delivery.created_at), now)
    const disabled = await ctx.db.transaction().execute(async (trx) => {
      const recorded = await recordAttempt(
        trx,
        token,
        delivery,
        {
          status: succeeded ? 'succeeded' : next === null ? 'failed' : 'pending',
          next_attempt_at: next === null ? null : isoTimestamp(next),
        },
        {
          attempt_id: ctx.ids.next('wha'),
          org_id: delivery.org_id,
          webhook_id: delivery.webhook_id,
          delivery_id: delivery.delivery_id,
          event_id: delivery.event_id,
          attempt: attemptNumber,
          at,
          status_code: outcome.statusCode,
          error: outcome.error,
          next_attempt_at: next === null ? null : isoTimestamp(next),
        },
      )
      if (!recorded || !endpoint) return false
      if (succeeded) {
        await markEndpointSucceeded(trx, delivery.webhook_id)
        return false
      }
      await markEndpointFailing(trx, delivery.webhook_id, at)
      // Given up after 3 days: the endpoint has failed all along if it has not succeeded since.
      return (
        next === null && (await disableEndpointFailingSince(trx, delivery.webhook_id, delivery.created_at))
      )
    })
    if (disabled) {
      ctx.invalidate({ kind: 'webhooks', orgId: delivery.org_id })
      ctx.logger.warn(
        { webhook_id: delivery.webhook_id, org_id: delivery.org_id },
        'webhook endpoint disabled after 3 days of failed deliveries',
      )
    }
  }

  /** Starts an attempt at a claimed delivery; when it ends, its organization has room for another. */
  const begin = (delivery: Selectable<WebhookDeliveriesTable>, token: string): void => {
    const orgId = delivery.org_id
    inFlight.set(orgId, (inFlight.get(orgId) ?? 0) + 1)
    const running: Promise<void> = attempt(delivery, token)
      .catch((error) => ctx.logError(`webhook delivery ${delivery.delivery_id} failed`, error))
      .finally(() => {
        attempts.delete(running)
        attemptsMade++
        const left = (inFlight.get(orgId) ?? 1) - 1
        if (left > 0) inFlight.set(orgId, left)
        else inFlight.delete(orgId)
        if (options.poll) kick()
      })
    attempts.add(running)
  }

  /**
   * Claims, for each organization with deliveries due, as many as it has room for (on every instance
   * together, under the organization's claim lock), and starts them without waiting for any: an
   * organization whose endpoints hang holds its own room only. Returns how many it started.
   */
  const claimPass = async (): Promise<number> => {
    const now = ctx.clock.now()
    const at = isoTimestamp(now)
    let started = 0
    for (const orgId of await organizationsWithDueDeliveries(ctx.db, at, ORGANIZATION_CONCURRENCY)) {
      if (stopped) break
      if ((inFlight.get(orgId) ?? 0) >= ORGANIZATION_CONCURRENCY) continue
      const token = ctx.ids.next('lease')
      const claimed = await ctx.db.transaction().execute(async (trx) => {
        await lockDeliveriesOf(trx, orgId)
        const room = ORGANIZATION_CONCURRENCY - (await countDeliveriesInFlight(trx, orgId, at))
        if (room <= 0) return []
        return claimDueDeliveries(trx, orgId, at, isoTimestamp(now + LEASE_MS), token, room)
      })
      for (const delivery of claimed) begin(delivery, token)
      started += claimed.length
    }
    return started
  }

  /** One claim at a time; a wake-up during one runs another after it. Returns how many it started. */
  const claim = (): Promise<number> => {
    if (claiming) {
      again = true
      return claiming
    }
    claiming = (async () => {
      let started = 0
      do {
        again = false
        started += await claimPass()
      } while (again && !stopped)
      return started
    })().finally(() => {
      claiming = undefined
    })
    return claiming
  }

  /** Claims and attempts until nothing this instance may claim is due and no attempt is in flight. */
  const runOnce = async (): Promise<number> => {
    const before = attemptsMade
    for (;;) {
      if ((await claim()) > 0) continue
      if (attempts.size === 0) return attemptsMade - before
      await Promise.race(attempts)
    }
  }

  const kick = () => {
    if (stopped) return
    claim().catch((error) => ctx.logError('webhook deliveries could not be claimed', error))
  }
  let timer: NodeJS.Timeout | undefined
  if (options.poll) {
    timer = setInterval(kick, POLL_MS)
    timer.unref()
    eventSignal(ctx).on('committed', kick)
  }

  return {
    runOnce,
    async stop() {
      stopped = true
      if (timer) clearInterval(timer)
      eventSignal(ctx).off('committed', kick)
      await claiming?.catch(() => 0)
      await Promise.all(attempts)
    },
  }
}
