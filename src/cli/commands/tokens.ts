import type { Command } from 'commander'
import type { ListTokensQuery, Token, TokenDetail, TokenizeRequest } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { bodyFrom, fillRequired, parseInteger } from '../input.js'
import { fetchListing, listFooter, type PageOptions } from '../paging.js'

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
  ctx.out.table(
    ['holder_did', 'jurisdiction', 'amount'],
    t.holdings.map((h) => [h.holder_did, h.jurisdiction, h.amount]),
    { title: 'holdings' },
  )
}

function showHistory(ctx: CliContext, t: TokenDetail): void {
  ctx.out.table(
    ['at', 'event', 'details'],
    t.governance_history.map((e) => [
      e.at,
      e.event,
      // One line per detail keeps the table narrow; --json has the structure.
      Object.entries(e.details)
        .map(
          ([k, v]) =>
            `${k}: ${Array.isArray(v) ? v.map((item) => `\n  - ${String(item)}`).join('') : typeof v === 'object' ? JSON.stringify(v) : String(v)}`,
        )
        .join('\n'),
    ]),
    { title: 'governance history' },
  )
}

export function list(
  options: PageOptions & { jurisdiction?: string; ownerDid?: string; status?: string },
  command: Command,
) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa()
    const filters = {
      jurisdiction: options.jurisdiction,
      owner_did: options.ownerDid,
      status: options.status as ListTokensQuery['status'],
    }
    const listing = await fetchListing(ctx, 'tokens', options, (page) =>
      rwa.governance.listTokens({ ...filters, ...page }),
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
        listFooter(ctx, listing, 'tokens')
      },
      listing.items.map((t) => t.token_id),
    )
  })
}

export function get(id: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const { data, raw } = await (await ctx.rwa()).governance.getToken(id)
    ctx.out.result(raw, () => {
      showToken(ctx, data)
      showHistory(ctx, data)
    }, [data.token_id])
  })
}

export function create(
  options: { credentialId?: string; totalSupply?: string; symbol?: string; file?: string },
  command: Command,
) {
  return withContext(command, async (ctx) => {
    const body = await bodyFrom(ctx, options.file, {
      credential_id: options.credentialId,
      total_supply: parseInteger('--total-supply', options.totalSupply),
      symbol: options.symbol,
    })
    await fillRequired(ctx, body, [
      { path: 'credential_id', flag: '--credential-id', question: 'Credential of the asset (cred_...)' },
      {
        path: 'total_supply',
        flag: '--total-supply',
        question: 'Total supply (whole units)',
        parse: (a) => parseInteger('total supply', a),
      },
    ])
    const { data, raw } = await (await ctx.rwa()).governance.tokenize(body as TokenizeRequest)
    ctx.out.result(raw, () => {
      showToken(ctx, data)
      ctx.out.success(`tokenized ${data.credential_id} as ${data.token_id}`)
    }, [data.token_id])
  })
}
