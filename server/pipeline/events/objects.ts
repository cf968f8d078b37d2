import type { AppContext } from '../context.js'
import type { Executor } from '../../platform/db/queries.js'

/*
 * An event's `data.object` is the record as the API answers it (docs/webhooks.md): what `GET` on it answers
 * at the moment of the change, read in the write's own transaction once the services are done with it.
 * So no service shapes an event of its own, as none writes an audit event of its own: a change names
 * its record (`target`), and the reader its aggregate registered (`ctx.records`, server/aggregates.ts)
 * reads it back. Never a raw key or secret: a key reads as its masked record, as `GET /console/billing/keys`
 * lists it.
 */

/**
 * The API record a change's target reads as now; `fallback` (the change's own `after`) for a kind of
 * record with no reader or a record gone.
 */
export async function apiObjectOf(
  ctx: AppContext,
  db: Executor,
  orgId: string,
  target: { type: string; id: string },
  fallback: unknown,
): Promise<unknown> {
  const read = ctx.records.get(target.type)
  const object = read ? await read(ctx, db, orgId, target.id) : undefined
  return object ?? fallback ?? { id: target.id }
}
