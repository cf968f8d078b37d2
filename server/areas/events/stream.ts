import type { Context } from 'hono'
import { type SSEStreamingApi, streamSSE } from 'hono/streaming'
import { type EventStreamQuery, selectsEvent, streamSelectors } from '../../../src/contract/events.js'
import { knownKeyOf } from '../../pipeline/auth/authenticate.js'
import type { AppEnv, Principal } from '../../pipeline/auth/principal.js'
import type { AppContext } from '../../pipeline/context.js'
import { ApiError, invalidFields } from '../../platform/errors.js'
import { idFloor, timeOfId } from '../../platform/ids.js'
import { eventSignal } from '../../pipeline/events/outbox.js'
import { eventsSince } from '../../pipeline/events/queries.js'
import { eventFromRow } from './service.js'

/*
 * `GET /console/events/stream` (docs/webhooks.md, "The event stream"): the organization's events as
 * server-sent events, as `rwa listen` reads them. The database is the source: a stream reads the events
 * committed since the last one it sent, and does so at once when told that some were (this process's writes,
 * and the other instances' through the invalidation bus: server/pipeline/events/outbox.ts), and every few seconds in
 * case a message was lost. So an event committed on any instance reaches every stream of its organization.
 *
 * Ids sort by the time they were made, but two writes may commit in the other order than their ids
 * (made by two instances in the same moment, or one waiting on a lock): a stream reads again from a
 * little before the newest id it has seen (LOOKBACK_MS) and skips the ids it has sent. A client that
 * reconnects with `Last-Event-ID` gets what follows that id, and the LOOKBACK_MS before it again, since
 * the server cannot know which of those reached it: events are delivered at least once, and a client
 * drops the ids it has had (as a webhook receiver does).
 */

/** How far before the newest event seen a stream reads again, for writes that committed late. */
export const LOOKBACK_MS = 5_000
/** How often a stream reads without being told, in case the news of a commit was lost. */
const POLL_MS = 5_000
const PAGE = 100

const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/

/** The open streams of each app, closed when its server shuts down. */
const open = new WeakMap<AppContext, Set<SSEStreamingApi>>()

/** The apps whose streams were closed: a stream opened after that (before the server stops listening) ends at once. */
const closed = new WeakSet<AppContext>()

/** Ends every event stream of `ctx` (a shutting-down server: its clients reconnect elsewhere). */
export async function closeEventStreams(ctx: AppContext): Promise<void> {
  closed.add(ctx)
  const streams = open.get(ctx)
  if (!streams) return
  await Promise.all([...streams].map((stream) => stream.close()))
  streams.clear()
}

/**
 * Which events a stream has sent: the ids it has seen no earlier than LOOKBACK_MS before the newest,
 * and the id to read from next. Pure bookkeeping, no I/O.
 */
export class StreamCursor {
  private readonly seen = new Set<string>()
  private newestMs: number
  /** The newest id seen, if any. */
  newest: string | undefined

  /** `fromMs`: read events made from then on (connect time less the lookback, or `Last-Event-ID`'s). */
  constructor(fromMs: number) {
    this.newestMs = fromMs + LOOKBACK_MS
  }

  /** The id the next read starts after. */
  floor(): string {
    return idFloor('evt', this.newestMs - LOOKBACK_MS)
  }

  /** True the first time an id is seen (to send it); false for an id sent before. */
  admit(id: string): boolean {
    if (this.seen.has(id)) return false
    this.seen.add(id)
    if (this.newest === undefined || id > this.newest) this.newest = id
    const ms = timeOfId(id)
    if (ms > this.newestMs) {
      this.newestMs = ms
      const floor = this.floor()
      for (const old of this.seen) if (old < floor) this.seen.delete(old)
    }
    return true
  }
}

/** The id a reconnecting client names, if any; a malformed one is refused. */
function lastEventIdOf(c: Context<AppEnv>): string | undefined {
  const value = c.req.header('last-event-id')
  if (value === undefined || value === '') return undefined
  if (!EVENT_ID.test(value)) {
    throw invalidFields('header', [{ path: 'Last-Event-ID', message: 'expected an event id (evt_...)' }])
  }
  return value
}

export function streamEvents(
  ctx: AppContext,
  principal: Principal,
  query: EventStreamQuery,
  c: Context<AppEnv>,
): Response {
  const selectors = streamSelectors(query.events)
  const lastEventId = lastEventIdOf(c)
  const orgId = principal.orgId
  const apiKey = c.req.header('x-api-key')
  // The key is checked at connect like any request's; a stream outlives that check, so it is asked
  // again before each read: a key revoked, rerolled past its overlap or expired ends its streams.
  const keyStillLive = async () => {
    try {
      await knownKeyOf(ctx, apiKey)
      return true
    } catch (error) {
      if (error instanceof ApiError) return false
      throw error
    }
  }
  return streamSSE(c, async (stream) => {
    // Shutting down: a server that waited for this stream to end would never stop.
    if (closed.has(ctx)) return
    const streams = open.get(ctx) ?? new Set<SSEStreamingApi>()
    open.set(ctx, streams)
    streams.add(stream)
    let wake: (() => void) | undefined
    const woken = () => {
      wake?.()
      wake = undefined
    }
    const onEvents = (orgIds: readonly string[] | undefined) => {
      if (!orgIds || orgIds.includes(orgId)) woken()
    }
    const signal = eventSignal(ctx)
    signal.on('events', onEvents)
    stream.onAbort(woken)
    const ended = () => stream.aborted || stream.closed
    try {
      const cursor = new StreamCursor(
        (lastEventId === undefined ? ctx.clock.now() : timeOfId(lastEventId)) - LOOKBACK_MS,
      )
      // The reconnecting client has had its last event; a new one gets only what comes from now on.
      if (lastEventId !== undefined) cursor.admit(lastEventId)
      else for await (const row of readSince(ctx, orgId, cursor.floor())) cursor.admit(row.event_id)
      // Says the stream is open before any event comes: how soon to reconnect, and where it starts (the
      // id a client resumes after, should it lose the connection before the first event).
      // The newest event at the start, so that a resume replays no more than it must.
      const position = lastEventId ?? cursor.newest ?? idFloor('evt', ctx.clock.now())
      await stream.write(`retry: 1000\nid: ${position}\n: connected\n\n`)
      let lastWrite = Date.now()
      while (!ended()) {
        if (!(await keyStillLive())) {
          await stream.write(': the key of this stream is no longer valid\n\n')
          break
        }
        for await (const row of readSince(ctx, orgId, cursor.floor())) {
          if (ended()) break
          if (!cursor.admit(row.event_id) || !selectsEvent(selectors, row.type)) continue
          await stream.writeSSE({
            id: row.event_id,
            event: row.type,
            data: JSON.stringify(eventFromRow(row)),
          })
          lastWrite = Date.now()
        }
        if (ended()) break
        if (Date.now() - lastWrite >= ctx.eventStreamHeartbeatMs) {
          await stream.write(': keep-alive\n\n')
          lastWrite = Date.now()
        }
        const waitMs = Math.min(POLL_MS, ctx.eventStreamHeartbeatMs - (Date.now() - lastWrite))
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(1, waitMs))
          wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
    } catch (error) {
      // The stream ends; the client reconnects with its Last-Event-ID and misses nothing.
      ctx.logError('event stream failed', error)
    } finally {
      signal.off('events', onEvents)
      streams.delete(stream)
    }
  })
}

/** Every event of the organization after `afterId`, oldest first, read a page at a time. */
async function* readSince(ctx: AppContext, orgId: string, afterId: string) {
  let after = afterId
  for (;;) {
    const page = await eventsSince(ctx.db, orgId, after, PAGE)
    yield* page
    if (page.length < PAGE) return
    after = page[page.length - 1]!.event_id
  }
}
