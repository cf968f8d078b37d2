import type { Insertable } from 'kysely'
import { compiledInsert, compiledOnce } from '../../../platform/db/compiled-query.js'
import type { Executor, Page } from '../../../platform/db/queries.js'
import type { TokenEventsTable } from '../../../platform/db/schema.js'

/** Every query of a token's governance history and its count. */

/** The latest `limit` events of a token, oldest first among them. */
export async function latestTokenEvents(db: Executor, tokenId: string, limit: number) {
  const rows = await db
    .selectFrom('token_events')
    .selectAll()
    .where('token_id', '=', tokenId)
    .orderBy('event_id', 'desc')
    .limit(limit)
    .execute()
  return rows.reverse()
}

/** How many events a token's history holds (kept by insertTokenEvent). */
export async function countTokenEvents(db: Executor, tokenId: string): Promise<number> {
  const row = await db
    .selectFrom('token_event_counts')
    .select('n')
    .where('token_id', '=', tokenId)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** One page of a token's history, oldest first, after the event id `cursor`. */
export async function tokenEventsPage(
  db: Executor,
  tokenId: string,
  query: { limit: number; cursor?: string | undefined },
): Promise<Page<TokenEventsTable>> {
  const base = db.selectFrom('token_events').where('token_id', '=', tokenId)
  const total = await countTokenEvents(db, tokenId)
  let rows = base.selectAll()
  if (query.cursor !== undefined) rows = rows.where('event_id', '>', query.cursor)
  const found = await rows
    .orderBy('event_id', 'asc')
    .limit(query.limit + 1)
    .execute()
  const more = found.length > query.limit
  const page = more ? found.slice(0, query.limit) : found
  return { rows: page, total, next_cursor: more ? page.at(-1)!.event_id : null }
}

/** Appends an event and counts it, in the caller's transaction (an upsert that adds: no count is lost). */
export async function insertTokenEvent(db: Executor, row: Insertable<TokenEventsTable>): Promise<void> {
  await insertTokenEventRow(db, row)
  await countTokenEvent(db, row.token_id)
}

/* Compiled once: every transfer and agent operation records an event. */
const insertTokenEventRow = compiledInsert<Insertable<TokenEventsTable>>('token_events', [
  'event_id',
  'org_id',
  'token_id',
  'event',
  'at',
  'details',
])

const countTokenEvent = compiledOnce((db: Executor, tokenId: string) =>
  db
    .insertInto('token_event_counts')
    .values({ token_id: tokenId, n: 1 })
    .onConflict((oc) =>
      oc.column('token_id').doUpdateSet((eb) => ({ n: eb('token_event_counts.n', '+', 1) })),
    ),
)
