import { EventEmitter } from 'node:events'
import { isEventType, selectsEvent } from '../../../src/contract/events.js'
import { isoTimestamp } from '../../platform/clock.js'
import type { EnabledEndpoint } from '../../platform/caches/webhook-endpoints.js'
import type { AppContext } from '../context.js'
import type { EventsTable, WebhookDeliveriesTable } from '../../platform/db/events-schema.js'
import type { Executor } from '../../platform/db/queries.js'
import { type Change, SerializedAnswer, type WriteScope } from '../writes/change.js'
import { apiObjectOf } from './objects.js'
import { enabledEndpointsOf, insertDeliveries, insertEvents } from './queries.js'

/*
 * The outbox (docs/webhooks.md): a write's events are derived from the changes it recorded, as its audit
 * events are, and written in its transaction together with one delivery per subscribed endpoint. A
 * committed change therefore always has its event and its deliveries, whatever happens to the process
 * afterwards; the delivery workers (server/areas/webhooks/worker.ts) read them from the database.
 */

/** Events of the same type as their audit action: the changes the webhooks speak of. */
export const isEventChange = (change: Change): boolean => isEventType(change.action)

/**
 * News of committed events, per app. `committed` (this process's own): the delivery worker wakes at
 * once instead of at its next poll. `events` (with the organizations, or none for "any"): event
 * streams read at once; it carries this process's commits and, through the invalidation bus, the other
 * instances' (and "any" when the bus comes back from an outage, as messages may have been lost).
 */
const signals = new WeakMap<AppContext, EventEmitter>()

export function eventSignal(ctx: AppContext): EventEmitter {
  let signal = signals.get(ctx)
  if (!signal) {
    const emitter = new EventEmitter()
    emitter.setMaxListeners(0)
    ctx.bus.subscribe((message) => {
      if (message.kind === 'events') emitter.emit('events', [message.orgId])
      else if (message.kind === 'all') emitter.emit('events', undefined)
    })
    signals.set(ctx, emitter)
    signal = emitter
  }
  return signal
}

/**
 * Says that events of `orgIds` were committed: to this process's streams, and through the invalidation
 * bus to the other instances' streams; and to this process's delivery worker when the transaction
 * queued deliveries (`queuedDeliveries` > 0): a write of an organization with no endpoint subscribed
 * does not make the worker look (its claim query on every commit was 4–7 % of a transfer POST). Other
 * instances' workers were never woken by a commit here: they find the deliveries at their next poll,
 * as before. Called once the transaction has committed.
 */
export function announceEvents(ctx: AppContext, orgIds: readonly string[], queuedDeliveries: number): void {
  const signal = eventSignal(ctx)
  if (queuedDeliveries > 0) signal.emit('committed')
  signal.emit('events', orgIds)
  for (const orgId of orgIds) ctx.bus.publish({ kind: 'events', orgId })
}

/**
 * Writes the events of a write's changes, and their deliveries, in the write's transaction (called by
 * server/pipeline/writes/run-write.ts as it appends `changes` to the log, with their audit events, in the same
 * order, their log positions set). Changes that are not event types (a key's `trial.ended`, a
 * webhook's own changes) have no event.
 */
export async function enqueueEvents(
  ctx: AppContext,
  trx: Executor,
  scope: WriteScope,
  changes: readonly Change[],
  audited: ReadonlyArray<{ log_index?: number | null }> = [],
): Promise<void> {
  if (!changes.some(isEventChange)) return
  const at = isoTimestamp(ctx.clock.now())
  let rows: EventsTable[] = []
  const orgIds = new Set<string>()
  let queued = 0
  const last = lastChangeOfEachRecord(changes)
  for (const [i, change] of changes.entries()) {
    if (!isEventChange(change)) continue
    // The service's own answer when it gave one (the write's hot path reads nothing back), else GET's:
    // also when a later change of the write changed the same record (a batch submitting an attestation
    // then revoking it), whose event has always read the record as the write leaves it.
    const object =
      change.answer && last.get(recordKey(change)) === i
        ? change.answer(audited[i]?.log_index ?? undefined)
        : await apiObjectOf(ctx, trx, change.orgId, change.target, change.after)
    rows.push({
      event_id: ctx.ids.next('evt'),
      org_id: change.orgId,
      type: change.action,
      created_at: at,
      data: object instanceof SerializedAnswer ? `{"object":${object.json}}` : JSON.stringify({ object }),
    })
    orgIds.add(change.orgId)
    // Written as they are made, a batch's thousand events are not all alive at once
    // (docs/performance.md, "Twelfth pass: the batch's garbage").
    if (rows.length === EVENTS_PER_INSERT) {
      queued += await enqueueEventRows(ctx, trx, rows)
      rows = []
    }
  }
  queued += await enqueueEventRows(ctx, trx, rows)
  scope.afterCommit.push(() => announceEvents(ctx, [...orgIds], queued))
}

/** Events written by one call of `enqueueEventRows` (one compiled insert of as many rows). */
const EVENTS_PER_INSERT = 64

const recordKey = (change: Change): string =>
  `${change.orgId}\u0000${change.target.type}\u0000${change.target.id}`

/** The index of the last change of each record (organization, type, id) among a write's changes. */
function lastChangeOfEachRecord(changes: readonly Change[]): Map<string, number> {
  const last = new Map<string, number>()
  for (const [i, change] of changes.entries()) last.set(recordKey(change), i)
  return last
}

/**
 * Stores events and queues one delivery per enabled endpoint of their organization subscribed to
 * their type; returns how many deliveries it queued. The scheduled events' job calls it too, in its
 * own transaction.
 */
export async function enqueueEventRows(ctx: AppContext, trx: Executor, rows: EventsTable[]): Promise<number> {
  if (rows.length === 0) return 0
  await insertEvents(trx, rows)
  const deliveries: WebhookDeliveriesTable[] = []
  const endpointsByOrg = new Map<string, EnabledEndpoint[]>()
  for (const row of rows) {
    let endpoints = endpointsByOrg.get(row.org_id)
    if (endpoints === undefined) {
      endpoints = await ctx.webhookEndpoints.of(row.org_id, () => loadEnabledEndpoints(trx, row.org_id))
      endpointsByOrg.set(row.org_id, endpoints)
    }
    for (const endpoint of endpoints) {
      if (selectsEvent(endpoint.selectors, row.type))
        deliveries.push(newDelivery(ctx, endpoint.webhook_id, row))
    }
  }
  if (deliveries.length > 0) await insertDeliveries(trx, deliveries)
  return deliveries.length
}

/** An organization's enabled endpoints as the cache keeps them (their selectors parsed). */
async function loadEnabledEndpoints(db: Executor, orgId: string): Promise<EnabledEndpoint[]> {
  return (await enabledEndpointsOf(db, [orgId])).map((e) => ({
    webhook_id: e.webhook_id,
    org_id: e.org_id,
    selectors: JSON.parse(e.events),
  }))
}

/** A delivery of an event to an endpoint, due now. */
export function newDelivery(
  ctx: AppContext,
  webhookId: string,
  event: Pick<EventsTable, 'event_id' | 'org_id'>,
): WebhookDeliveriesTable {
  const now = isoTimestamp(ctx.clock.now())
  return {
    delivery_id: ctx.ids.next('dlv'),
    org_id: event.org_id,
    webhook_id: webhookId,
    event_id: event.event_id,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    lease_until: null,
    lease_token: null,
    created_at: now,
  }
}
