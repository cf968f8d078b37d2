import type { CliContext } from './context.js'
import type { Invocation, Run } from './invoke.js'
import type { ApiResponse } from '../client/http.js'
import type { OperationId, OperationRequest, Output } from './operation.js'
import { type Cell, plural } from './output.js'

/*
 * The one shape of a list command: the page its filters, `--limit` and `--cursor` ask for, or with
 * `--all` every page (following `next_cursor`, progress on stderr on a terminal), printed as a table
 * (TSV when piped), `--json` as the API's envelope (with `--all`, every item and `next_cursor: null`),
 * `-q` the ids; a footer says how many and how to get the rest.
 */

/** The keys of an operation's answer that hold its items. */
type ItemsKey<K extends OperationId> = {
  [P in keyof Output<K>]: Output<K>[P] extends readonly unknown[] ? P : never
}[keyof Output<K>] &
  string

type Item<K extends OperationId, P extends ItemsKey<K>> = Output<K>[P] extends readonly (infer T)[]
  ? T
  : never

/** How a list command prints its items. */
export interface ListView<T> {
  /** What one item is called, and many (`trust relation`, `trust relations`). */
  noun: readonly [string, string]
  /** The table: its header and one row an item... */
  headers?: string[]
  row?: (ctx: CliContext, item: T) => Cell[]
  /** ...or a printer of its own. */
  show?: (ctx: CliContext, items: T[]) => void
  /** The table's title. */
  title?: string
  /** The id `-q` prints of each item (none: `-q` prints nothing). */
  id?: (item: T) => string
}

/** What a list command got: the items, and the JSON to print with --json. */
export interface Listing<T> {
  items: T[]
  total: number
  nextCursor: string | null
  raw: unknown
}

type Page = { total: number; next_cursor: string | null } & Record<string, unknown>

/** Fetches one page, or with `--all` every page by following `next_cursor`; the items are under `key`. */
export async function fetchListing<T>(
  ctx: CliContext,
  key: string,
  noun: readonly [string, string],
  all: boolean,
  input: OperationRequest,
  send: (input: OperationRequest) => Promise<ApiResponse<unknown>>,
): Promise<Listing<T>> {
  const pageOf = (answer: ApiResponse<unknown>) => answer.data as Page
  const itemsOf = (answer: ApiResponse<unknown>) => pageOf(answer)[key] as T[]
  const first = await send(input)
  if (!all || pageOf(first).next_cursor === null) {
    const { total, next_cursor } = pageOf(first)
    return { items: itemsOf(first), total, nextCursor: next_cursor, raw: first.raw }
  }
  const items = [...itemsOf(first)]
  const rawItems = [...((first.raw as Record<string, unknown[]>)[key] ?? [])]
  const { total } = pageOf(first)
  let cursor: string | null = pageOf(first).next_cursor
  try {
    while (cursor !== null) {
      ctx.out.progress(`fetched ${items.length} of ${plural(total, noun[0], noun[1])}…`)
      const page = await send({ ...input, query: { ...input.query, cursor } })
      items.push(...itemsOf(page))
      rawItems.push(...((page.raw as Record<string, unknown[]>)[key] ?? []))
      cursor = pageOf(page).next_cursor
    }
  } finally {
    ctx.out.progressDone()
  }
  const raw = { ...(first.raw as Record<string, unknown>), [key]: rawItems, next_cursor: null }
  return { items, total, nextCursor: null, raw }
}

/** Prints the footer of a list: how many shown, and how to get the rest. */
export function listFooter(
  ctx: CliContext,
  listing: Listing<unknown>,
  noun: readonly [string, string],
): void {
  let text = `${listing.items.length} of ${plural(listing.total, noun[0], noun[1])}`
  if (listing.nextCursor) text += `; more with --cursor ${listing.nextCursor} or --all`
  ctx.out.info(text)
}

/** The run of a list command of operation `_operation`, whose answer holds its items under `key`. */
export function listing<K extends OperationId, P extends ItemsKey<K>>(
  _operation: K,
  key: P,
  view: ListView<Item<K, P>>,
): Run<K> {
  return async ({ ctx, input, send }: Invocation<K>) => {
    const all = (ctx.command.opts() as { all?: boolean }).all === true
    const list = await fetchListing<Item<K, P>>(ctx, key, view.noun, all, input, send)
    ctx.out.result(
      list.raw,
      () => {
        if (view.show) view.show(ctx, list.items)
        else
          ctx.out.table(
            view.headers ?? [],
            list.items.map((item) => view.row!(ctx, item)),
            view.title ? { title: view.title } : {},
          )
        listFooter(ctx, list, view.noun)
      },
      view.id ? list.items.map(view.id) : [],
    )
  }
}
