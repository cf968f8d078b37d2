import type { Executor } from '../db/queries.js'

/** Whether a payment-provider event was applied before. */
export async function isEventProcessed(db: Executor, eventId: string): Promise<boolean> {
  const row = await db
    .selectFrom('processed_events')
    .select('event_id')
    .where('event_id', '=', eventId)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Records a payment-provider event as applied; false when it was already recorded (a redelivery).
 * Runs in the transaction of the event's effect, so the effect happens at most once.
 */
export async function recordProcessedEvent(
  db: Executor,
  event: { event_id: string; provider: string; type: string; processed_at: string },
): Promise<boolean> {
  const recorded = await db
    .insertInto('processed_events')
    .values(event)
    .onConflict((oc) => oc.column('event_id').doNothing())
    .executeTakeFirst()
  return Number(recorded.numInsertedOrUpdatedRows ?? 0) > 0
}
