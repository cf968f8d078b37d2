import type { Page } from '../../platform/db/queries.js'
import { notFound, type RecordKind } from '../../platform/errors.js'

/*
 * What every governance aggregate does the same way: answer 404 for a record the caller's
 * organization does not have, and shape a list page as `{ <plural>: [...], total, next_cursor }`.
 */

/** The record `found` resolves to, or a 404 naming what was looked for (another org's id included). */
export async function ownedOr404<T>(found: Promise<T | undefined>, what: RecordKind, id: string): Promise<T> {
  const row = await found
  if (row === undefined) throw notFound(what, id)
  return row
}

/** A governance list response: the page's rows as API records under `plural`, its total and cursor. */
export function listPage<P extends string, Row, Item>(
  plural: P,
  page: Page<Row>,
  toItem: (row: Row) => Item,
): { [K in P]: Item[] } & { total: number; next_cursor: string | null } {
  return { [plural]: page.rows.map(toItem), total: page.total, next_cursor: page.next_cursor } as {
    [K in P]: Item[]
  } & { total: number; next_cursor: string | null }
}
