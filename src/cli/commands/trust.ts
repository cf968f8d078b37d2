import type { Command } from 'commander'
import type { EstablishTrustRequest, ListTrustQuery, TrustPair, TrustRelation } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { confirmDestructive, requestFrom } from '../input.js'
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

export function list(options: PageOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa()
    const listing = await fetchListing(ctx, 'trust_relations', options, (query) =>
      rwa.governance.listTrust({ query: query as ListTrustQuery }),
    )
    ctx.out.result(
      listing.raw,
      () => {
        ctx.out.table(
          ['trust_id', 'relation', 'status', 'created_at'],
          listing.items.map((t) => [t.trust_id, arrow(t), t.status, t.created_at]),
        )
        listFooter(ctx, listing)
      },
      listing.items.map((t) => t.trust_id),
    )
  })
}

export function establish(options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    const { data, raw } = await (await ctx.rwa()).governance.establishTrust({
      body: body as EstablishTrustRequest,
    })
    ctx.out.result(raw, () => {
      showTrust(ctx, data)
      ctx.out.success(`trust established: ${arrow(data)}`)
    }, [data.trust_id])
  })
}

export function revoke(options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const pair = await requestFrom(ctx, options)
    await confirmDestructive(ctx, `revoke trust ${pair.from_jurisdiction} -> ${pair.to_jurisdiction}`)
    const { data, raw } = await (await ctx.rwa()).governance.revokeTrust({ query: pair as TrustPair })
    ctx.out.result(raw, () => ctx.out.success(`trust revoked: ${arrow(data)} (${data.trust_id})`), [
      data.trust_id,
    ])
  })
}
