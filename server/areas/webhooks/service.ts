import type { Selectable } from 'kysely'
import type {
  CreateWebhookRequest,
  ListDeliveriesResponse,
  ListWebhooksResponse,
  WebhookEndpoint,
  WebhookWithSecret,
} from '../../../src/contract/events.js'
import type { Principal } from '../../pipeline/auth/principal.js'
import { isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../../pipeline/context.js'
import type { WebhookAttemptsTable, WebhookEndpointsTable } from '../../platform/db/events-schema.js'
import type { Executor, PageQuery } from '../../platform/db/queries.js'
import { ApiError, notFound } from '../../platform/errors.js'
import { eventSignal, newDelivery } from '../../pipeline/events/outbox.js'
import { enabledEndpointsOf, findEvent, insertDeliveries } from '../../pipeline/events/queries.js'
import { MAX_ENABLED_WEBHOOKS, selectsEvent } from '../../../src/contract/events.js'
import { listPage, ownedOr404 } from '../rwa/owned.js'
import { checkDestination, DestinationRefused } from './destination.js'
import { lockOrganization } from '../../platform/organizations/queries.js'
import {
  countEnabledEndpoints,
  deleteEndpoint,
  enableEndpoint,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  listAttemptRows,
  listEndpointRows,
  rescheduleDelivery,
  setEndpointSecret,
} from './queries.js'
import { sealWebhookSecret } from './secret-custody.js'
import { hideUrlSecrets } from './url-query.js'
import { newWebhookSecret } from './signature.js'
import { currentWrite } from '../../pipeline/writes/change.js'

/*
 * An organization's webhook endpoints (docs/webhooks.md, "Webhook endpoints"): made with a URL checked as
 * deliveries will check it, a signing secret shown once, and the event types they receive. Their own changes
 * are audited (`webhook.created`...), never with the secret; they are not events themselves.
 */

/**
 * The API record of an endpoint (never its secret), as `principal` may see it: the URL's path beyond
 * its first segment and its query values hidden from any key but an owner's of its organization.
 */
export function webhookFromRow(
  row: Selectable<WebhookEndpointsTable>,
  principal: Principal,
): WebhookEndpoint {
  return {
    webhook_id: row.webhook_id,
    url:
      principal.roles.includes('owner') && principal.orgId === row.org_id ? row.url : hideUrlSecrets(row.url),
    events: JSON.parse(row.events),
    description: row.description,
    status: row.status,
    created_at: row.created_at,
  }
}

/** Refuses a URL deliveries could not reach, or must not (422 webhook_url_refused). */
async function assertDestination(ctx: AppContext, url: string): Promise<void> {
  try {
    await checkDestination(url, { allowHttp: ctx.allowHttpWebhooks })
  } catch (error) {
    if (!(error instanceof DestinationRefused)) throw error
    throw new ApiError('webhook_url_refused', `Webhook URL refused: ${error.message}`, {
      context: { url, reason: error.message },
      errors: [{ path: 'url', message: error.message }],
    })
  }
}

/**
 * Refuses another enabled endpoint past the organization's limit (409 webhook_endpoint_limit). Counted
 * under the organization's lock, so concurrent creations on any instance cannot together pass it.
 */
async function assertRoomForEndpoint(db: Executor, orgId: string): Promise<void> {
  await lockOrganization(db, orgId)
  if ((await countEnabledEndpoints(db, orgId)) < MAX_ENABLED_WEBHOOKS) return
  throw new ApiError(
    'webhook_endpoint_limit',
    `Organization ${orgId} has ${MAX_ENABLED_WEBHOOKS} enabled webhook endpoints, the most it may have: delete one first`,
    { context: { org_id: orgId, max_enabled: MAX_ENABLED_WEBHOOKS } },
  )
}

export async function createWebhook(
  ctx: AppContext,
  principal: Principal,
  input: CreateWebhookRequest,
): Promise<WebhookWithSecret> {
  await assertDestination(ctx, input.url)
  const webhookId = ctx.ids.next('wh')
  const secret = newWebhookSecret()
  const row: Selectable<WebhookEndpointsTable> = {
    webhook_id: webhookId,
    org_id: principal.orgId,
    url: input.url,
    events: JSON.stringify([...new Set(input.events)]),
    description: input.description ?? null,
    status: 'enabled',
    secret: sealWebhookSecret(ctx.masterKey, webhookId, secret),
    created_at: isoTimestamp(ctx.clock.now()),
    failing_since: null,
  }
  await ctx.db.transaction().execute(async (trx) => {
    await assertRoomForEndpoint(trx, row.org_id)
    await insertEndpoint(trx, row)
    ctx.record({
      orgId: row.org_id,
      action: 'webhook.created',
      target: { type: 'webhook', id: row.webhook_id },
      // Kept for good and read by every role: the URL's path beyond its first segment and query values hidden.
      after: { url: hideUrlSecrets(row.url), events: JSON.parse(row.events), description: row.description },
    })
  })
  // The outbox's list of the organization's enabled endpoints, on every instance.
  ctx.invalidate({ kind: 'webhooks', orgId: row.org_id })
  return { ...webhookFromRow(row, principal), secret }
}

export async function listWebhooks(
  ctx: AppContext,
  principal: Principal,
  query: PageQuery,
): Promise<ListWebhooksResponse> {
  return listPage('webhooks', await listEndpointRows(ctx.db, principal.orgId, query), (row) =>
    webhookFromRow(row, principal),
  )
}

const endpointOr404 = (ctx: AppContext, orgId: string, id: string) =>
  ownedOr404(findEndpoint(ctx.db, orgId, id), 'webhook', id)

export async function getWebhook(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<WebhookEndpoint> {
  return webhookFromRow(await endpointOr404(ctx, principal.orgId, id), principal)
}

export async function deleteWebhook(ctx: AppContext, principal: Principal, id: string) {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await deleteEndpoint(trx, principal.orgId, id))) throw notFound('webhook', id)
    ctx.record({ orgId: principal.orgId, action: 'webhook.deleted', target: { type: 'webhook', id } })
  })
  ctx.invalidate({ kind: 'webhooks', orgId: principal.orgId })
  return { status: 'deleted' as const, webhook_id: id }
}

export async function rotateWebhookSecret(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<WebhookWithSecret> {
  const secret = newWebhookSecret()
  const row = await ctx.db.transaction().execute(async (trx) => {
    const row = await ownedOr404(findEndpoint(trx, principal.orgId, id, 'update'), 'webhook', id)
    await setEndpointSecret(trx, id, sealWebhookSecret(ctx.masterKey, id, secret))
    ctx.record({ orgId: principal.orgId, action: 'webhook.secret_rotated', target: { type: 'webhook', id } })
    return row
  })
  return { ...webhookFromRow(row, principal), secret }
}

/** The API record of an attempt. */
const attemptFromRow = (row: Selectable<WebhookAttemptsTable>) => ({
  delivery_id: row.delivery_id,
  event_id: row.event_id,
  attempt: row.attempt,
  at: row.at,
  status_code: row.status_code,
  error: row.error,
  next_attempt_at: row.next_attempt_at,
})

export async function listWebhookDeliveries(
  ctx: AppContext,
  principal: Principal,
  id: string,
  query: PageQuery,
): Promise<ListDeliveriesResponse> {
  await endpointOr404(ctx, principal.orgId, id)
  return listPage('deliveries', await listAttemptRows(ctx.db, id, query), attemptFromRow)
}

/** Makes a delivery due now (whatever became of it), enabling its endpoint again if it was disabled. */
export async function retryWebhookDelivery(
  ctx: AppContext,
  principal: Principal,
  id: string,
  deliveryId: string,
) {
  const now = isoTimestamp(ctx.clock.now())
  const delivery = await ctx.db.transaction().execute(async (trx) => {
    const endpoint = await ownedOr404(findEndpoint(trx, principal.orgId, id, 'update'), 'webhook', id)
    const delivery = await findDelivery(trx, id, deliveryId)
    if (!delivery) throw notFound('delivery', deliveryId)
    await rescheduleDelivery(trx, deliveryId, now)
    if (endpoint.status !== 'enabled') {
      await assertRoomForEndpoint(trx, principal.orgId)
      await enableEndpoint(trx, id)
      ctx.invalidate({ kind: 'webhooks', orgId: principal.orgId })
    }
    ctx.record({
      orgId: principal.orgId,
      action: 'webhook.delivery_retried',
      target: { type: 'webhook', id },
      after: {
        delivery_id: deliveryId,
        event_id: delivery.event_id,
        endpoint_enabled: endpoint.status !== 'enabled',
      },
    })
    return delivery
  })
  wakeDeliveries(ctx)
  return {
    delivery_id: deliveryId,
    webhook_id: id,
    event_id: delivery.event_id,
    status: 'scheduled' as const,
    next_attempt_at: now,
  }
}

/** Queues a new delivery of an event to each enabled endpoint subscribed to it. */
export async function resendEvent(ctx: AppContext, principal: Principal, eventId: string) {
  const deliveries = await ctx.db.transaction().execute(async (trx) => {
    const event = await ownedOr404(findEvent(trx, principal.orgId, eventId), 'event', eventId)
    const endpoints = (await enabledEndpointsOf(trx, [principal.orgId])).filter((e) =>
      selectsEvent(JSON.parse(e.events), event.type),
    )
    const rows = endpoints.map((e) => newDelivery(ctx, e.webhook_id, event))
    await insertDeliveries(trx, rows)
    ctx.record({
      orgId: principal.orgId,
      action: 'event.resent',
      target: { type: 'event', id: eventId },
      after: { deliveries: rows.map((r) => r.delivery_id) },
    })
    return rows
  })
  wakeDeliveries(ctx)
  return {
    event_id: eventId,
    deliveries: deliveries.map((d) => ({ delivery_id: d.delivery_id, webhook_id: d.webhook_id })),
  }
}

/** Tells this process's delivery worker there is work, once the write has committed. */
function wakeDeliveries(ctx: AppContext): void {
  const wake = () => eventSignal(ctx).emit('committed')
  // Inside a write (every route's) the worker must not look before the write has committed.
  const write = currentWrite()
  if (write) write.afterCommit.push(wake)
  else wake()
}
