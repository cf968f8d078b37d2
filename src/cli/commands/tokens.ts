import type { Command } from 'commander'
import type { ListTokensQuery, Token, TokenizeRequest } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { requestFrom } from '../input.js'
import { plural } from '../output.js'
import { fetchListing, listFooter, type PageOptions } from '../paging.js'
import { showHistory, showHoldings, showRules } from './token-governance.js'

function showToken(ctx: CliContext, t: Token): void {
  ctx.out.record([
    ['token_id', t.token_id],
    ['symbol', t.symbol],
    ['status', t.status],
    ['credential_id', t.credential_id],
    ['jurisdiction', t.jurisdiction],
    ['owner_did', t.owner_did],
    ['total_supply', t.total_supply],
    ['created_at', t.created_at],
  ])
  showHoldings(ctx, t.holdings)
}

export function list(options: PageOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa()
    const listing = await fetchListing(ctx, 'tokens', options, (query) =>
      rwa.governance.listTokens({ query: query as ListTokensQuery }),
    )
    ctx.out.result(
      listing.raw,
      () => {
        ctx.out.table(
          ['token_id', 'symbol', 'jurisdiction', 'owner_did', 'total_supply', 'status'],
          listing.items.map((t) => [
            t.token_id,
            t.symbol,
            t.jurisdiction,
            t.owner_did,
            t.total_supply,
            t.status,
          ]),
        )
        listFooter(ctx, listing)
      },
      listing.items.map((t) => t.token_id),
    )
  })
}

export function get(id: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const { data, raw } = await (await ctx.rwa()).governance.getToken({ params: { id: id } })
    ctx.out.result(raw, () => {
      showToken(ctx, data)
      if (data.holdings_total > data.holdings.length) {
        ctx.out.info(
          `largest ${data.holdings.length} of ${plural(data.holdings_total, 'holding')}; all with \`rwa tokens holdings ${data.token_id}\``,
        )
      }
      if (data.frozen_holders_total > 0) {
        ctx.out.info(
          `${plural(data.frozen_holders_total, 'DID')} frozen as a whole; listed by \`rwa tokens frozen-holders ${data.token_id}\``,
        )
      }
      showRules(ctx, data.rules)
      showHistory(ctx, data.governance_history)
      if (data.governance_history_total > data.governance_history.length) {
        ctx.out.info(
          `latest ${data.governance_history.length} of ${data.governance_history_total} events; all with \`rwa tokens history ${data.token_id}\``,
        )
      }
    }, [data.token_id])
  })
}

export function create(options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    const { data, raw } = await (await ctx.rwa()).governance.tokenize({ body: body as TokenizeRequest })
    ctx.out.result(raw, () => {
      showToken(ctx, data)
      ctx.out.success(`tokenized ${data.credential_id} as ${data.token_id}`)
    }, [data.token_id])
  })
}
