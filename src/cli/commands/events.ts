import { EVENT_TYPES, type Event, eventSelectorSchema } from '../../contract/events.js'
import { postJson } from '../../../server/areas/webhooks/post.js'
import { newWebhookSecret, webhookHeaders } from '../../../server/areas/webhooks/signature.js'
import { EXIT, ExitError } from '../exit-error.js'
import { list } from '../flags/parse.js'
import type { Run } from '../invoke.js'
import { listing } from '../paging.js'
import { showing } from './shapes.js'

/*
 * `rwa webhooks ...`, `rwa events ...` and `rwa listen` (docs/webhooks.md). Tables for people, TSV when
 * piped, the API's JSON with --json; a secret is printed once, as the API answers it once.
 */

/**
 * Refuses, before any request, values of an event-type flag that are not an event type, `<resource>.*`
 * or `*`: named by the flag, with the types it takes.
 */
function checkSelectors(flag: string, values: readonly string[]): void {
  const refused = values.filter((value) => !eventSelectorSchema.safeParse(value).success)
  if (refused.length === 0) return
  const named = refused.map((value) => JSON.stringify(value)).join(', ')
  throw new ExitError(
    EXIT.usage,
    `${flag}: ${named} ${refused.length === 1 ? 'is' : 'are'} not an event type, <resource>.* or *`,
    `event types: ${EVENT_TYPES.join(', ')}; or <resource>.* (e.g. transfer.*) for every type of one resource, or * for all`,
  )
}

export const createWebhook: Run<'createWebhook'> = async ({ ctx, input, send }) => {
  const events = input.body.events
  if (Array.isArray(events)) checkSelectors('--events', events.map(String))
  const { data } = await send()
  ctx.out.result(data, () => {
    ctx.out.record([
      ['webhook_id', data.webhook_id],
      ['url', data.url],
      ['events', data.events.join(',')],
      ['status', data.status],
      ['secret', data.secret ?? '(not shown: a replay of the creation)'],
    ])
    ctx.out.info('Store the secret now: it is shown only once. Verify deliveries with it (docs/webhooks.md).')
  }, [data.webhook_id])
}

export const listWebhooks = listing('listWebhooks', 'webhooks', {
  noun: ['webhook endpoint', 'webhook endpoints'],
  headers: ['webhook_id', 'status', 'url', 'events', 'created_at'],
  row: (_, w) => [w.webhook_id, w.status, w.url, w.events.join(','), w.created_at],
  id: (w) => w.webhook_id,
})

export const getWebhook = showing(
  'getWebhook',
  (ctx, data) =>
    ctx.out.record([
      ['webhook_id', data.webhook_id],
      ['url', data.url],
      ['events', data.events.join(',')],
      ['description', data.description],
      ['status', data.status],
      ['created_at', data.created_at],
    ]),
  (data) => [data.webhook_id],
)

export const deleteWebhook: Run<'deleteWebhook'> = async ({ ctx, send }) => {
  const { data } = await send()
  ctx.out.result(data, () => ctx.out.info(`deleted ${data.webhook_id}`), [data.webhook_id])
}

export const rotateSecret: Run<'rotateWebhookSecret'> = async ({ ctx, send }) => {
  const { data } = await send()
  ctx.out.result(data, () => {
    ctx.out.record([
      ['webhook_id', data.webhook_id],
      ['secret', data.secret ?? '(not shown: a replay)'],
    ])
    ctx.out.info('Deliveries are signed with the new secret from now on; store it now.')
  }, [data.webhook_id])
}

export const listDeliveries = listing('listWebhookDeliveries', 'deliveries', {
  noun: ['delivery attempt', 'delivery attempts'],
  headers: ['at', 'delivery_id', 'event_id', 'attempt', 'status', 'error', 'next_attempt_at'],
  row: (_, a) => [
    a.at,
    a.delivery_id,
    a.event_id,
    String(a.attempt),
    a.status_code === null ? '' : String(a.status_code),
    a.error ?? '',
    a.next_attempt_at ?? '',
  ],
  id: (a) => a.delivery_id,
})

export const retryDelivery: Run<'retryWebhookDelivery'> = async ({ ctx, send }) => {
  const { data } = await send()
  ctx.out.result(data, () => ctx.out.info(`${data.delivery_id} scheduled for ${data.next_attempt_at}`), [
    data.delivery_id,
  ])
}

export const listEvents = listing('listEvents', 'events', {
  noun: ['event', 'events'],
  headers: ['created_at', 'type', 'id'],
  row: (_, e) => [e.created_at, e.type, e.id],
  id: (e) => e.id,
})

export const getEvent: Run<'getEvent'> = async ({ ctx, send }) => {
  const { data } = await send()
  ctx.out.line(JSON.stringify(data, null, ctx.out.json ? undefined : 2))
}

export const resendEvent: Run<'resendEvent'> = async ({ ctx, send }) => {
  const { data } = await send()
  ctx.out.result(
    data,
    () =>
      ctx.out.table(
        ['delivery_id', 'webhook_id'],
        data.deliveries.map((d) => [d.delivery_id, d.webhook_id]),
      ),
    data.deliveries.map((d) => d.delivery_id),
  )
}

/** How long `rwa listen` waits before reconnecting a stream that ended. */
const RECONNECT_MS = 1_000
/** How many forwarded ids `rwa listen` remembers, to forward an event resent on a reconnect once. */
const REMEMBERED = 10_000

/**
 * `rwa listen --forward-to URL`: like `stripe listen`. Prints a `whsec_` secret, then reads the
 * organization's events as they are committed (`GET /console/events/stream`, server-sent events) and
 * POSTs each to URL with the Standard Webhooks headers signed with that secret (the server's own
 * delivery code signs the same way), printing one line per event: type, id and the forward's status.
 * A stream that breaks is opened again with `Last-Event-ID`, so no event is missed; one sent again on
 * a reconnect is forwarded once. Runs until interrupted.
 */
export const listen: Run<'streamEvents'> = async ({ ctx, input }) => {
  const options = {
    ...(ctx.command.opts() as { forwardTo: string }),
    events: input.query.events as string | undefined,
  }
  let target: URL
  try {
    target = new URL(options.forwardTo)
    if (!/^https?:$/.test(target.protocol)) throw new Error('not http(s)')
  } catch {
    throw new ExitError(
      EXIT.usage,
      `--forward-to must be an http(s) URL, got ${JSON.stringify(options.forwardTo)}`,
    )
  }
  if (options.events !== undefined) checkSelectors('--events', list(options.events))
  const client = await ctx.rwa()
  const { apiKey } = await ctx.resolveConnection()
  const { readEventStream } = await import('../../client/event-stream.js')
  const { ConnectionError } = await import('../../client/errors.js')
  const secret = newWebhookSecret()
  const forwarded = new Set<string>()
  let position: string | undefined
  let ready = false
  let lost = false

  // Where the first stream started: an event before it happened before `rwa listen` was ready (a
  // resumed stream may send the few seconds before its Last-Event-ID again; server/areas/events/stream.ts).
  let start: string | undefined
  const forward = async (event: Event) => {
    position = event.id
    if (forwarded.has(event.id) || (start !== undefined && event.id <= start)) return
    forwarded.add(event.id)
    if (forwarded.size > REMEMBERED) forwarded.delete(forwarded.values().next().value as string)
    const body = JSON.stringify(event)
    // Posted as the server delivers (no redirect followed, 10 s), so a failure reads as a delivery's.
    const outcome = await postJson(
      target,
      body,
      webhookHeaders(secret, event.id, Math.floor(Date.now() / 1000), body),
    )
    const status = outcome.statusCode === null ? `failed (${outcome.error})` : String(outcome.statusCode)
    if (ctx.out.json) ctx.out.line(JSON.stringify({ type: event.type, id: event.id, status }))
    else ctx.out.line(`${event.type}\t${event.id}\t${status}`)
  }

  for (;;) {
    try {
      await readEventStream(
        {
          baseUrl: client.baseUrl,
          apiKey: apiKey as string,
          ...(options.events === undefined ? {} : { events: options.events }),
          ...(position === undefined ? {} : { lastEventId: position }),
          onOpen: (opening) => {
            position ??= opening
            start ??= opening
            if (lost) ctx.out.info('Reconnected; resuming after the last event received')
            lost = false
            if (ready) return
            ready = true
            ctx.out.info(`Ready! Forwarding events to ${target.href}`)
            ctx.out.info(`Your webhook signing secret is ${secret} (verify with it; docs/webhooks.md)`)
          },
        },
        forward,
      )
    } catch (error) {
      // Never connected: the URL or the server is wrong, say so. Later: reconnect until it is back.
      if (!(error instanceof ConnectionError) || !ready) throw error
    }
    if (!lost) ctx.out.warn('The event stream was interrupted; reconnecting...')
    lost = true
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS))
  }
}
