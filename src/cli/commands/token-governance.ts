import type { Command } from 'commander'
import type {
  ForcedTransferRequest,
  FreezeRequest,
  FreezeState,
  Holding,
  ListFrozenHoldersQuery,
  ListHoldingsQuery,
  RecoverRequest,
  RecoveryResult,
  SetTokenRulesRequest,
  TokenDetail,
  TokenHistoryQuery,
  TokenRules,
} from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { list } from '../flags/parse.js'
import { confirmDestructive, requestFrom } from '../input.js'
import { plural } from '../output.js'
import { fetchListing, listFooter, type PageOptions } from '../paging.js'
import { unlessPending } from './pending.js'
import { showChecks } from './transfers.js'

/*
 * The token agent's commands: pause, freezes, holdings, forced transfers, recoveries, transfer rules
 * and the history. Each prints a table (or the API's JSON with --json) and exits as every command does.
 */

export function showHoldings(ctx: CliContext, holdings: Holding[]): void {
  ctx.out.table(
    ['holder_did', 'jurisdiction', 'amount', 'frozen_amount', 'frozen'],
    holdings.map((h) => [h.holder_did, h.jurisdiction, h.amount, h.frozen_amount, h.frozen]),
    { title: 'holdings' },
  )
}

const RULE_NAMES = [
  'max_balance_per_holder',
  'max_holders',
  'lockup_until',
  'max_transfer_amount',
  'daily_volume_per_holder',
] as const

export function showRules(ctx: CliContext, rules: TokenRules): void {
  ctx.out.record(
    RULE_NAMES.map((name) => {
      const value = rules[name]
      return [
        name,
        value !== null && typeof value === 'object'
          ? Object.entries(value)
              .map(([j, n]) => `${j}=${n}`)
              .join(', ')
          : value,
      ]
    }),
  )
}

// ── Pause ───────────────────────────────────────────────────────────────────

export function pause(id: string, options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    const { data, raw } = await (await ctx.rwa()).governance.pauseToken({ params: { id: id }, body: body })
    ctx.out.result(raw, () =>
      ctx.out.success(`paused ${data.token_id}: every transfer is refused until unpaused`),
    )
  })
}

export function unpause(id: string, options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    const { data, raw } = await (await ctx.rwa()).governance.unpauseToken({ params: { id: id }, body: body })
    ctx.out.result(raw, () => ctx.out.success(`unpaused ${data.token_id}: status ${data.status}`))
  })
}

// ── Freezes ─────────────────────────────────────────────────────────────────

function freezeCommand(freeze: boolean) {
  return (id: string, options: Record<string, unknown>, command: Command) =>
    withContext(command, async (ctx) => {
      const body = await requestFrom(ctx, options)
      if (body.amount !== undefined && body.jurisdiction === undefined) {
        throw new ExitError(EXIT.usage, '--amount needs --jurisdiction: the holding whose units are frozen')
      }
      const gov = (await ctx.rwa()).governance
      const answer = freeze
        ? await gov.freezeHolder({ params: { id: id }, body: body as FreezeRequest })
        : unlessPending(ctx, await gov.unfreezeHolder({ params: { id: id }, body: body as FreezeRequest }))
      if (!answer) return
      const { data, raw } = answer
      ctx.out.result(raw, () => {
        showFreezeState(ctx, data)
        const what =
          body.amount === undefined
            ? data.holder_did
            : `${plural(body.amount as number, 'unit')} of ${data.holder_did} in ${body.jurisdiction}`
        ctx.out.success(`${freeze ? 'froze' : 'unfroze'} ${what} for ${data.token_id}`)
      })
    })
}

export function showFreezeState(ctx: CliContext, state: FreezeState): void {
  ctx.out.record([
    ['token_id', state.token_id],
    ['holder_did', state.holder_did],
    ['frozen', state.frozen],
  ])
  showHoldings(ctx, state.holdings)
}

export const freeze = freezeCommand(true)
export const unfreeze = freezeCommand(false)

export function holdings(id: string, options: PageOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const gov = (await ctx.rwa()).governance
    const listing = await fetchListing(ctx, 'holdings', options, (query) =>
      gov.listHoldings({ params: { id: id }, query: query as ListHoldingsQuery }),
    )
    ctx.out.result(listing.raw, () => {
      showHoldings(ctx, listing.items)
      listFooter(ctx, listing)
    })
  })
}

/** `rwa tokens frozen-holders`: the DIDs frozen for the token as a whole, in order; `-q` prints them alone. */
export function frozenHolders(id: string, options: PageOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const gov = (await ctx.rwa()).governance
    const listing = await fetchListing(ctx, 'frozen_holders', options, (query) =>
      gov.listFrozenHolders({ params: { id: id }, query: query as ListFrozenHoldersQuery }),
    )
    ctx.out.result(
      listing.raw,
      () => {
        ctx.out.table(
          ['holder_did'],
          listing.items.map((did) => [did]),
          { title: 'frozen holders' },
        )
        listFooter(ctx, listing)
      },
      listing.items,
    )
  })
}

// ── Forced transfer and recovery ────────────────────────────────────────────

export function forceTransfer(id: string, options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    await confirmDestructive(
      ctx,
      `force the transfer of ${typeof body.amount === 'number' ? plural(body.amount, 'unit') : `${body.amount} units`} of ${id} from ${body.from_did} to ${body.to_did}`,
      'It bypasses every requirement, rule, freeze and pause.',
    )
    const answer = unlessPending(
      ctx,
      await (await ctx.rwa()).governance.forcedTransfer({
        params: { id: id },
        body: body as ForcedTransferRequest,
      }),
    )
    if (!answer) return
    const { data, raw } = answer
    ctx.out.result(raw, () => {
      ctx.out.record([
        ['transfer_id', data.transfer_id],
        ['status', data.status],
        ['route', `${data.from_jurisdiction} -> ${data.to_jurisdiction}`],
        ['sender_did', data.sender_did],
        ['recipient_did', data.recipient_did],
        ['amount', data.amount],
        ['reason', data.reason],
        ['proof_id', data.proof_id],
        ...(data.log_index !== undefined ? ([['log_index', data.log_index]] as Array<[string, number]>) : []),
      ])
      showChecks(ctx, data.compliance_details)
      ctx.out.success(`forced transfer ${data.transfer_id}; proof ${data.proof_id}`)
    })
  })
}

export function recover(id: string, options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    await confirmDestructive(ctx, `move every holding of ${body.lost_did} in ${id} to ${body.new_did}`)
    const answer = unlessPending(
      ctx,
      await (await ctx.rwa()).governance.recoverIdentity({
        params: { id: id },
        body: body as RecoverRequest,
      }),
    )
    if (!answer) return
    const { data, raw } = answer
    ctx.out.result(raw, () => ctx.out.success(showRecovery(ctx, data)))
  })
}

/** A recovery as `rwa tokens recover` prints it: the holdings moved; answers what it did, in words. */
export function showRecovery(ctx: CliContext, data: RecoveryResult): string {
  showHoldings(ctx, data.moved)
  const position = data.log_index !== undefined ? ` (log_index ${data.log_index})` : ''
  return `recovered ${data.lost_did} as ${data.new_did}; proof ${data.proof_id}${position}`
}

// ── Rules and history ───────────────────────────────────────────────────────

/**
 * `rwa tokens rules set`: the flags given change those rules and keep the others (read, then PUT the
 * whole object); `--clear` clears rules by name; `--file` gives the whole object (flags given as well
 * override its fields).
 */
export function setRules(
  id: string,
  options: Record<string, unknown> & { clear?: string[]; file?: string },
  command: Command,
) {
  return withContext(command, async (ctx) => {
    // Flags are checked before anything is read, so a bad flag is named first.
    const cleared = options.clear ? list(options.clear) : []
    for (const name of cleared) {
      if (!(RULE_NAMES as readonly string[]).includes(name)) {
        throw new ExitError(EXIT.usage, `--clear names no rule: ${name}`, `rules: ${RULE_NAMES.join(', ')}`)
      }
    }
    const given = await requestFrom(ctx, options)
    const gov = (await ctx.rwa()).governance
    let body = given
    if (!options.file) {
      body = { ...(await gov.getToken({ params: { id: id } })).data.rules, ...given }
      for (const name of cleared) body[name] = null
      if (ctx.request) ctx.request.body = body
    }
    const { data, raw } = await gov.setTokenRules({ params: { id: id }, body: body as SetTokenRulesRequest })
    ctx.out.result(raw, () => {
      showRules(ctx, data.rules)
      ctx.out.success(`rules of ${data.token_id} updated`)
    })
  })
}

export function getRules(id: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const { data } = await (await ctx.rwa()).governance.getToken({ params: { id: id } })
    ctx.out.result(data.rules, () => showRules(ctx, data.rules))
  })
}

export function showHistory(ctx: CliContext, events: TokenDetail['governance_history']): void {
  ctx.out.table(
    ['at', 'event', 'details'],
    events.map((e) => [
      e.at,
      e.event,
      // One line per detail keeps the table narrow; --json has the structure.
      Object.entries(e.details)
        .map(
          ([k, v]) =>
            `${k}: ${Array.isArray(v) ? v.map((item) => `\n  - ${typeof item === 'object' ? JSON.stringify(item) : String(item)}`).join('') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`,
        )
        .join('\n'),
    ]),
    { title: 'governance history' },
  )
}

export function history(id: string, options: PageOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const gov = (await ctx.rwa()).governance
    const listing = await fetchListing(ctx, 'governance_history', options, (query) =>
      gov.getTokenHistory({ params: { id: id }, query: query as TokenHistoryQuery }),
    )
    ctx.out.result(listing.raw, () => {
      showHistory(ctx, listing.items)
      listFooter(ctx, listing)
    })
  })
}
