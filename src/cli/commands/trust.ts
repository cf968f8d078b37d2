import type { Command } from 'commander'
import type { EstablishTrustRequest, TrustPair, TrustRelation } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { bodyFrom, confirmDestructive, fillRequired } from '../input.js'
import { fetchListing, listFooter, type PageOptions } from '../paging.js'

const arrow = (t: { from_jurisdiction: string; to_jurisdiction: string; mutual: boolean }) =>
  `${t.from_jurisdiction} ${t.mutual ? '<->' : '->'} ${t.to_jurisdiction}`

function showTrust(ctx: CliContext, t: TrustRelation): void {
  ctx.out.record([
    ['trust_id', t.trust_id],
    ['relation', arrow(t)],
    ['mutual', t.mutual],
    ['status', t.status],
    ['created_at', t.created_at],
    ['revoked_at', t.revoked_at],
  ])
}

export function list(options: PageOptions & { status?: string; jurisdiction?: string }, command: Command) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa()
    const filters = {
      status: options.status as TrustRelation['status'] | undefined,
      jurisdiction: options.jurisdiction,
    }
    const listing = await fetchListing(ctx, 'trust_relations', options, (page) =>
      rwa.governance.listTrust({ query: { ...filters, ...page } }),
    )
    ctx.out.result(
      listing.raw,
      () => {
        ctx.out.table(
          ['trust_id', 'relation', 'status', 'created_at'],
          listing.items.map((t) => [t.trust_id, arrow(t), t.status, t.created_at]),
        )
        listFooter(ctx, listing, 'trust relations')
      },
      listing.items.map((t) => t.trust_id),
    )
  })
}

export function establish(
  options: { from?: string; to?: string; mutual?: boolean; file?: string },
  command: Command,
) {
  return withContext(command, async (ctx) => {
    const body = await bodyFrom(ctx, options.file, {
      from_jurisdiction: options.from,
      to_jurisdiction: options.to,
      mutual: options.mutual,
    })
    await fillRequired(ctx, body, [
      { path: 'from_jurisdiction', flag: '--from', question: 'From jurisdiction (source)' },
      { path: 'to_jurisdiction', flag: '--to', question: 'To jurisdiction (target)' },
    ])
    const { data, raw } = await (await ctx.rwa()).governance.establishTrust({
      body: body as EstablishTrustRequest,
    })
    ctx.out.result(raw, () => {
      showTrust(ctx, data)
      ctx.out.success(`trust established: ${arrow(data)}`)
    }, [data.trust_id])
  })
}

export function revoke(options: { from?: string; to?: string }, command: Command) {
  return withContext(command, async (ctx) => {
    const pair = await bodyFrom(ctx, undefined, {
      from_jurisdiction: options.from,
      to_jurisdiction: options.to,
    })
    await fillRequired(ctx, pair, [
      { path: 'from_jurisdiction', flag: '--from', question: 'From jurisdiction (source)' },
      { path: 'to_jurisdiction', flag: '--to', question: 'To jurisdiction (target)' },
    ])
    await confirmDestructive(ctx, `revoke trust ${pair.from_jurisdiction} -> ${pair.to_jurisdiction}`)
    const { data, raw } = await (await ctx.rwa()).governance.revokeTrust({ query: pair as TrustPair })
    ctx.out.result(raw, () => ctx.out.success(`trust revoked: ${arrow(data)} (${data.trust_id})`), [
      data.trust_id,
    ])
  })
}
