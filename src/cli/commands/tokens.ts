import type { Token } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import type { Run } from '../invoke.js'
import { plural } from '../output.js'
import { listing } from '../paging.js'
import { showing } from './shapes.js'
import { showHistory, showHoldings, showRules } from './token-governance.js'

export function showToken(ctx: CliContext, t: Token): void {
  ctx.out.record([
    ['token_id', t.token_id],
    ['symbol', t.symbol],
    ['status', t.status],
    ['credential_id', t.credential_id],
    ['jurisdiction', t.jurisdiction],
    ['owner_did', t.owner_did],
    ['total_supply', t.total_supply],
    ['supply', t.supply],
    ['created_at', t.created_at],
  ])
  showHoldings(ctx, t.holdings)
}

export const list = listing('listTokens', 'tokens', {
  noun: ['token', 'tokens'],
  headers: ['token_id', 'symbol', 'jurisdiction', 'owner_did', 'total_supply', 'supply', 'status'],
  row: (_, t) => [t.token_id, t.symbol, t.jurisdiction, t.owner_did, t.total_supply, t.supply, t.status],
  id: (t) => t.token_id,
})

export const get = showing(
  'getToken',
  (ctx, data) => {
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
  },
  (data) => [data.token_id],
)

export const create: Run<'tokenize'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showToken(ctx, data)
    ctx.out.success(`tokenized ${data.credential_id} as ${data.token_id}`)
  }, [data.token_id])
}
