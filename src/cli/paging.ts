import type { ApiResponse } from '../client/index.js'
import type { CliContext } from './context.js'
import { parseInteger } from './input.js'

/** The page flags of a list command. */
export interface PageOptions {
  limit?: string
  cursor?: string
  all?: boolean
}

type Page<K extends string, T> = { [P in K]: T[] } & { total: number; next_cursor: string | null }

/** What a list command prints: the items, and the JSON to print with --json. */
export interface Listing<T> {
  items: T[]
  total: number
  nextCursor: string | null
  raw: unknown
}

/**
 * Fetches one page, or with `--all` every page by following `next_cursor` (progress on stderr when it
 * is a terminal). With --all the JSON is the envelope with every item and `next_cursor: null`.
 */
export async function fetchListing<K extends string, T>(
  ctx: CliContext,
  plural: K,
  options: PageOptions,
  fetchPage: (page: { limit?: number; cursor?: string }) => Promise<ApiResponse<Page<K, T>>>,
): Promise<Listing<T>> {
  const limit = parseInteger('--limit', options.limit)
  const first = await fetchPage({ limit, cursor: options.cursor })
  if (!options.all || first.data.next_cursor === null) {
    return {
      items: first.data[plural],
      total: first.data.total,
      nextCursor: first.data.next_cursor,
      raw: first.raw,
    }
  }
  const items = [...first.data[plural]]
  const rawItems = [...((first.raw as Record<string, unknown[]>)[plural] ?? [])]
  let cursor: string | null = first.data.next_cursor
  try {
    while (cursor !== null) {
      ctx.out.progress(`fetched ${items.length} of ${first.data.total} ${plural}…`)
      const page: ApiResponse<Page<K, T>> = await fetchPage({ limit, cursor })
      items.push(...page.data[plural])
      rawItems.push(...((page.raw as Record<string, unknown[]>)[plural] ?? []))
      cursor = page.data.next_cursor
    }
  } finally {
    ctx.out.progressDone()
  }
  const raw = { ...(first.raw as Record<string, unknown>), [plural]: rawItems, next_cursor: null }
  return { items, total: first.data.total, nextCursor: null, raw }
}

/** Prints the footer of a list: how many shown, and how to get the rest. */
export function listFooter(ctx: CliContext, listing: Listing<unknown>, noun: string): void {
  const shown = listing.items.length
  let text = `${shown} of ${listing.total} ${noun}`
  if (listing.nextCursor) text += `; more with --cursor ${listing.nextCursor} or --all`
  ctx.out.info(text)
}
