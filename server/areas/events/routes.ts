import type { SomeHandlers } from '../../pipeline/handler.js'
import { getEvent, listEvents } from './service.js'
import { streamEvents } from './stream.js'

/** The organization's events. */
export const eventHandlers = {
  streamEvents: (ctx, { principal, query, c }) => streamEvents(ctx, principal, query, c),
  listEvents: (ctx, { principal, query }) => listEvents(ctx, principal, query),
  getEvent: (ctx, { principal, params }) => getEvent(ctx, principal, params.id),
} satisfies SomeHandlers
