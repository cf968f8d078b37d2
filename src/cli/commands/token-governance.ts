import type { FreezeState, Holding, RecoveryResult, TokenDetail, TokenRules } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { list } from '../flags/parse.js'
import { confirmDestructive } from '../input.js'
import type { Run } from '../invoke.js'
import { plural } from '../output.js'
import { listing } from '../paging.js'
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
  'min_holding',
  'transfer_windows',
  'lockup_days_after_receipt',
  'max_supply',
  'country_allow',
  'country_deny',
  'max_holders_per_country',
  'max_ownership_percent',
  'allowed_categories',
] as const

export function showRules(ctx: CliContext, rules: TokenRules): void {
  ctx.out.record(
    RULE_NAMES.map((name) => {
      const value = rules[name]
      return [
        name,
        Array.isArray(value)
          ? value
              .map((v) => (typeof v === 'object' ? `${v.seconds}s=${v.max_volume}` : v))
              .join(', ')
          : value !== null && typeof value === 'object'
            ? Object.entries(value)
                .map(([j, n]) => `${j}=${n}`)
                .join(', ')
            : value,
      ]
    }),
  )
}

// ── Pause ───────────────────────────────────────────────────────────────────

export const pause: Run<'pauseToken'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () =>
    ctx.out.success(`paused ${data.token_id}: every transfer is refused until unpaused`),
  )
}

export const unpause: Run<'unpauseToken'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => ctx.out.success(`unpaused ${data.token_id}: status ${data.status}`))
}

// ── Freezes ─────────────────────────────────────────────────────────────────

/** `rwa tokens freeze|unfreeze`: a holder as a whole, or units of one of its holdings (`--amount`). */
function freezeRun<K extends 'freezeHolder' | 'unfreezeHolder'>(freeze: boolean): Run<K> {
  return async ({ ctx, input, send }) => {
    const { body } = input
    if (body.amount !== undefined && body.jurisdiction === undefined) {
      throw new ExitError(EXIT.usage, '--amount needs --jurisdiction: the holding whose units are frozen')
    }
    const answer = unlessPending(ctx, await send())
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
  }
}

export function showFreezeState(ctx: CliContext, state: FreezeState): void {
  ctx.out.record([
    ['token_id', state.token_id],
    ['holder_did', state.holder_did],
    ['frozen', state.frozen],
  ])
  showHoldings(ctx, state.holdings)
}

export const freeze = freezeRun<'freezeHolder'>(true)
export const unfreeze = freezeRun<'unfreezeHolder'>(false)

export const holdings = listing('listHoldings', 'holdings', {
  noun: ['holding', 'holdings'],
  show: showHoldings,
})

/** `rwa tokens frozen-holders`: the DIDs frozen for the token as a whole, in order; `-q` prints them alone. */
export const frozenHolders = listing('listFrozenHolders', 'frozen_holders', {
  noun: ['frozen holder', 'frozen holders'],
  headers: ['holder_did'],
  row: (_, did) => [did],
  title: 'frozen holders',
  id: (did) => did,
})

// ── Forced transfer and recovery ────────────────────────────────────────────

export const forceTransfer: Run<'forcedTransfer'> = async ({ ctx, input, send }) => {
  const { body, params } = input
  await confirmDestructive(
    ctx,
    `force the transfer of ${typeof body.amount === 'number' ? plural(body.amount, 'unit') : `${body.amount} units`} of ${params.id} from ${body.from_did} to ${body.to_did}`,
    'It bypasses every requirement, rule, freeze and pause.',
  )
  const answer = unlessPending(ctx, await send())
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
}

export const recover: Run<'recoverIdentity'> = async ({ ctx, input, send }) => {
  const { body, params } = input
  await confirmDestructive(ctx, `move every holding of ${body.lost_did} in ${params.id} to ${body.new_did}`)
  const answer = unlessPending(ctx, await send())
  if (!answer) return
  const { data, raw } = answer
  ctx.out.result(raw, () => ctx.out.success(showRecovery(ctx, data)))
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
export const setRules: Run<'setTokenRules'> = async ({ ctx, input, send }) => {
  const { clear } = ctx.command.opts() as { clear?: string[] }
  const cleared = clear ? list(clear) : []
  for (const name of cleared) {
    if (!(RULE_NAMES as readonly string[]).includes(name)) {
      throw new ExitError(EXIT.usage, `--clear names no rule: ${name}`, `rules: ${RULE_NAMES.join(', ')}`)
    }
  }
  if (!ctx.request?.file) {
    const { data: token } = await ctx.call('getToken', { params: input.params, query: {}, body: {} })
    input.body = { ...token.rules, ...input.body }
    for (const name of cleared) input.body[name] = null
    if (ctx.request) ctx.request.body = input.body
  }
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showRules(ctx, data.rules)
    ctx.out.success(`rules of ${data.token_id} updated`)
  })
}

export const getRules: Run<'getToken'> = async ({ ctx, send }) => {
  const { data } = await send()
  ctx.out.result(data.rules, () => showRules(ctx, data.rules))
}

export function showHistory(ctx: CliContext, events: TokenDetail['governance_history']): void {
  ctx.out.table(
    ['at', 'event', 'details'],
    events.map((e) => [
      e.at,
      e.event,
      // One line per detail keeps the table narrow (lines, so the breaks are the CLI's and the text
      // escaped line by line); --json has the structure.
      Object.entries(e.details).flatMap(([k, v]) =>
        Array.isArray(v)
          ? [
              `${k}:`,
              ...v.map((item) => `  - ${typeof item === 'object' ? JSON.stringify(item) : String(item)}`),
            ]
          : [`${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`],
      ),
    ]),
    { title: 'governance history' },
  )
}

export const history = listing('getTokenHistory', 'governance_history', {
  noun: ['event', 'events'],
  show: showHistory,
})
