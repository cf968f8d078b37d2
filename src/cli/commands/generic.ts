import type { Invocation } from '../invoke.js'
import type { OperationId } from '../operation.js'
import type { Cell } from '../output.js'
import { fetchListing, listFooter } from '../paging.js'
import { unlessPending } from './pending.js'

/*
 * What a command of an operation does when it says nothing of its own (`run` left out of its spec,
 * ../program/operation-command.ts): it sends the request and prints the answer as it comes, a record of
 * its fields, or for a list a table of its items (every page with `--all`); `--json` the API's JSON, `-q`
 * the ids. A command gives a `run` where it says more (a verdict, an exit code, a confirmation).
 */

/** A value as one cell: lists of words joined, anything structured as JSON. */
function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return value
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object')) return value.join(', ')
  return JSON.stringify(value)
}

/** The id of a record: its first `..._id` field (`issuer_id`), or `id`. */
function idOf(record: Record<string, unknown>): string | undefined {
  const key = Object.keys(record).find((k) => k === 'id' || k.endsWith('_id'))
  const id = key === undefined ? undefined : record[key]
  return typeof id === 'string' ? id : undefined
}

export async function generic<K extends OperationId>({ ctx, input, send }: Invocation<K>): Promise<void> {
  const answer = unlessPending(ctx, await send())
  if (!answer) return
  const data = answer.data as Record<string, unknown>
  const key = Object.keys(data).find((k) => Array.isArray(data[k]))
  if (key !== undefined && 'next_cursor' in data) {
    // A page: the first is in hand, the others (with --all) are asked for as any list asks.
    let first: typeof answer | undefined = answer
    const all = (ctx.command.opts() as { all?: boolean }).all === true
    const noun = [key.replaceAll('_', ' '), key.replaceAll('_', ' ')] as const
    const list = await fetchListing<Record<string, unknown>>(ctx, key, noun, all, input, async (request) => {
      const page = first ?? (await send(request))
      first = undefined
      return page
    })
    const items = list.items
    const headers = Object.keys(items[0] ?? {}).filter(
      (k) => typeof items[0]?.[k] !== 'object' || items[0]?.[k] === null,
    )
    ctx.out.result(
      list.raw,
      () => {
        ctx.out.table(
          headers,
          items.map((item) => headers.map((h) => cellOf(item[h]))),
        )
        listFooter(ctx, list, noun)
      },
      items.map(idOf).filter((id): id is string => id !== undefined),
    )
    return
  }
  const id = idOf(data)
  ctx.out.result(
    answer.raw,
    () => ctx.out.record(Object.entries(data).map(([name, value]) => [name, cellOf(value)])),
    id === undefined ? [] : [id],
  )
}
