import type { Selectable } from 'kysely'
import { isoTimestamp } from '../clock.js'
import type { AppContext } from '../context.js'
import type { WebhookDeliveriesTable } from '../db/events-schema.js'
import { eventFromRow } from '../events/service.js'
import { eventSignal } from '../events/outbox.js'
import { nextAttemptAt } from './backoff.js'
import { DELIVERY_TIMEOUT_MS, type PostOutcome, postToDestination } from './destination.js'
import {
  claimDueDeliveries,
  deliveryMaterial,
  disableEndpointFailingSince,
  markEndpointFailing,
  markEndpointSucceeded,
  recordAttempt,
} from './queries.js'
import { SealOpenError } from '../signing/master-key.js'
import { openWebhookSecret } from './secret-custody.js'
import { webhookHeaders } from './signature.js'

/*
 * The delivery worker (docs/webhooks.md, "Deliveries"): every instance runs one. It claims due deliveries
 * from the database (server/webhooks/queries.ts: a lease, taken with SKIP LOCKED on PostgreSQL, so each
 * attempt is made by one instance), POSTs each signed event, and records the attempt: delivered, or due again
 * after the backoff, or given up after 3 days (its endpoint disabled). Nothing is kept in memory that
 * a crash could lose: a killed instance's claims expire with their lease and are taken again, so every
 * event is delivered at least once.
 */

/** How long a claim holds: the attempt's 10 s timeout and room to record it. */
export const LEASE_MS = DELIVERY_TIMEOUT_MS + 5_000
const POLL_MS = 1_000
const BATCH = 16

export interface WebhookWorker {
  /** Attempts every delivery due now (claimed by this instance), until none is left; returns how many. */
  runOnce(): Promise<number>
  /** Stops polling and waits for the attempts in flight. */
  stop(): Promise<void>
}

/**
 * The worker of `ctx`. With `poll`, it looks for due deliveries every second and at once when this
 * process commits an event; without, only when `runOnce` is called (tests move the clock instead).
 */
export function webhookWorker(ctx: AppContext, options: { poll: boolean }): WebhookWorker {
  let running: Promise<number> | undefined
  let again = false
  let stopped = false

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

  const drain = async (): Promise<number> => {
    let total = 0
    for (;;) {
      const now = ctx.clock.now()
      const token = ctx.ids.next('lease')
      const claimed = await claimDueDeliveries(
        ctx.db,
        isoTimestamp(now),
        isoTimestamp(now + LEASE_MS),
        token,
        BATCH,
      )
      if (claimed.length === 0) return total
      await Promise.all(
        claimed.map((d) =>
          attempt(d, token).catch((error) => ctx.logError(`webhook delivery ${d.delivery_id} failed`, error)),
        ),
      )
      total += claimed.length
    }
  }

  /** One drain at a time; a wake-up during one runs another after it. */
  const runOnce = async (): Promise<number> => {
    if (running) {
      again = true
      return running
    }
    running = (async () => {
      let total = 0
      do {
        again = false
        total += await drain()
      } while (again && !stopped)
      return total
    })().finally(() => {
      running = undefined
    })
    return running
  }

  const kick = () => {
    if (stopped) return
    runOnce().catch((error) => ctx.logError('webhook deliveries could not be claimed', error))
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
      await running?.catch(() => 0)
    },
  }
}
