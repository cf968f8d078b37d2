import type { ApiResponse } from '../client/index.js'
import type { CliContext } from './context.js'
import { requestFrom } from './input.js'
import { plural } from './output.js'

/**
 * The options of a list command: its filters, `--limit` and `--cursor` (all in its flag table, read
 * through it) and `--all`.
 */
export type PageOptions = Record<string, unknown> & { all?: boolean }

type Page<K extends string, T> = { [P in K]: T[] } & { total: number; next_cursor: string | null }

/** What a governance list answers its items under, and what one of them is called. */
const NOUNS = {
  jurisdictions: ['jurisdiction', 'jurisdictions'],
  trust_relations: ['trust relation', 'trust relations'],
  credentials: ['credential', 'credentials'],
  attestations: ['attestation', 'attestations'],
  tokens: ['token', 'tokens'],
  transfers: ['transfer', 'transfers'],
  holdings: ['holding', 'holdings'],
  frozen_holders: ['frozen holder', 'frozen holders'],
  governance_history: ['event', 'events'],
  events: ['audit event', 'audit events'],
  approvals: ['approval', 'approvals'],
  webhooks: ['webhook endpoint', 'webhook endpoints'],
  deliveries: ['delivery attempt', 'delivery attempts'],
} as const satisfies Record<string, readonly [string, string]>

export type ListKey = keyof typeof NOUNS

/** What a list command prints: the items, and the JSON to print with --json. */
export interface Listing<T> {
  items: T[]
  total: number
  nextCursor: string | null
  raw: unknown
  /** What one item is called, and many (`trust relation`, `trust relations`). */
  noun: readonly [string, string]
}

/**
 * Fetches one page, or with `--all` every page by following `next_cursor` (progress on stderr when it
 * is a terminal). The query is the command's flag table applied to its options (filters, `--limit`,
 * `--cursor`). With --all the JSON is the envelope with every item and `next_cursor: null`.
 */
export async function fetchListing<K extends ListKey, T>(
  ctx: CliContext,
  key: K,
  options: PageOptions,
  fetchPage: (query: Record<string, unknown>) => Promise<ApiResponse<Page<K, T>>>,
): Promise<Listing<T>> {
  const query = await requestFrom(ctx, options)
  const noun = NOUNS[key]
  const first = await fetchPage(query)
  if (!options.all || first.data.next_cursor === null) {
    return {
      items: first.data[key],
      total: first.data.total,
      nextCursor: first.data.next_cursor,
      raw: first.raw,
      noun,
    }
  }
  const items = [...first.data[key]]
  const rawItems = [...((first.raw as Record<string, unknown[]>)[key] ?? [])]
  let cursor: string | null = first.data.next_cursor
  try {
    while (cursor !== null) {
      ctx.out.progress(`fetched ${items.length} of ${plural(first.data.total, noun[0], noun[1])}…`)
      const page: ApiResponse<Page<K, T>> = await fetchPage({ ...query, cursor })
      items.push(...page.data[key])
      rawItems.push(...((page.raw as Record<string, unknown[]>)[key] ?? []))
      cursor = page.data.next_cursor
    }
  } finally {
    ctx.out.progressDone()
  }
  const raw = { ...(first.raw as Record<string, unknown>), [key]: rawItems, next_cursor: null }
  return { items, total: first.data.total, nextCursor: null, raw, noun }
}

/** Prints the footer of a list: how many shown, and how to get the rest. */
export function listFooter(ctx: CliContext, listing: Listing<unknown>): void {
  let text = `${listing.items.length} of ${plural(listing.total, listing.noun[0], listing.noun[1])}`
  if (listing.nextCursor) text += `; more with --cursor ${listing.nextCursor} or --all`
  ctx.out.info(text)
}
