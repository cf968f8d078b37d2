import type { SomeHandlers } from '../handler.js'
import { getEvent, listEvents } from './service.js'

/** The organization's events. */
export const eventHandlers = {
  listEvents: (ctx, { principal, query }) => listEvents(ctx, principal, query),
  getEvent: (ctx, { principal, params }) => getEvent(ctx, principal, params.id),
} satisfies SomeHandlers
