import type { AuditEvent } from '../../contract/audit.js'
import { decimal, wholeNumber } from '../flags/parse.js'
import type { Run } from '../invoke.js'
import { listing } from '../paging.js'

/*
 * `rwa audit list` and `rwa audit tail`: the organization's audit log. A table (TSV when piped) or the
 * API's JSON with --json; tail prints one line per event (one JSON object per line with --json).
 */

const actorOf = (event: AuditEvent): string =>
  'key_id' in event.actor ? `${event.actor.key_id} (${event.actor.roles.join(',')})` : event.actor.system

const targetOf = (event: AuditEvent): string => `${event.target.type} ${event.target.id}`

export const list = listing('listAuditEvents', 'events', {
  noun: ['audit event', 'audit events'],
  headers: ['at', 'action', 'target', 'actor', 'request_id'],
  row: (_, e) => [e.at, e.action, targetOf(e), actorOf(e), e.request_id ?? ''],
  id: (e) => e.event_id,
})

/**
 * Prints the latest `--lines` events oldest first, then asks every `--interval` seconds for the events
 * recorded since the newest one printed, and prints those, until interrupted.
 */
export const tail: Run<'listAuditEvents'> = async ({ ctx, input, send }) => {
  const options = ctx.command.opts() as { interval?: string; lines?: string }
  const intervalMs = decimal(options.interval ?? '2', '--interval') * 1000
  const lines = Number(wholeNumber(options.lines ?? '10', '--lines'))
  const query = input.query
  const print = (event: AuditEvent) => {
    if (ctx.out.json) ctx.out.line(JSON.stringify(event))
    else
      ctx.out.line(
        [event.at, event.action, targetOf(event), actorOf(event), event.request_id ?? ''].join('\t'),
      )
  }
  const latest = await send({ ...input, query: { ...query, limit: Math.max(lines, 1) } })
  for (const event of [...latest.data.events].reverse().slice(-lines || latest.data.events.length))
    print(event)
  let newest = latest.data.events[0]?.at
  // The events at `newest` already printed: the next poll asks from that time on, and skips them.
  let printedAtNewest = new Set(latest.data.events.filter((e) => e.at === newest).map((e) => e.event_id))
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
    const fresh: AuditEvent[] = []
    let cursor: string | undefined
    do {
      const page = await send({
        ...input,
        query: {
          ...query,
          limit: 500,
          ...(newest ? { since: newest } : {}),
          ...(cursor ? { cursor } : {}),
        },
      })
      fresh.push(...page.data.events.filter((e) => !printedAtNewest.has(e.event_id)))
      cursor = page.data.next_cursor ?? undefined
    } while (cursor)
    if (fresh.length === 0) continue
    fresh.reverse().forEach(print)
    const last = fresh.at(-1)!.at
    const atLast = fresh.filter((e) => e.at === last).map((e) => e.event_id)
    printedAtNewest = new Set(last === newest ? [...printedAtNewest, ...atLast] : atLast)
    newest = last
  }
}
