import type { Command } from 'commander'
import type {
  ForcedTransferRequest,
  FreezeRequest,
  FreezeState,
  Holding,
  RecoverRequest,
  SetTokenRulesRequest,
  TokenDetail,
  TokenRules,
} from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { bodyFrom, confirmDestructive, fillRequired, parseInteger, parseList } from '../input.js'
import { fetchListing, listFooter, type PageOptions } from '../paging.js'
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

export function pause(id: string, options: { reason?: string }, command: Command) {
  return withContext(command, async (ctx) => {
    const body = options.reason ? { reason: options.reason } : {}
    const { data, raw } = await (await ctx.rwa()).governance.pauseToken({ params: { id: id }, body: body })
    ctx.out.result(raw, () =>
      ctx.out.success(`paused ${data.token_id}: every transfer is refused until unpaused`),
    )
  })
}

export function unpause(id: string, options: { reason?: string }, command: Command) {
  return withContext(command, async (ctx) => {
    const body = options.reason ? { reason: options.reason } : {}
    const { data, raw } = await (await ctx.rwa()).governance.unpauseToken({ params: { id: id }, body: body })
    ctx.out.result(raw, () => ctx.out.success(`unpaused ${data.token_id}: status ${data.status}`))
  })
}

// ── Freezes ─────────────────────────────────────────────────────────────────

interface FreezeOptions {
  holderDid?: string
  jurisdiction?: string
  amount?: string
  reason?: string
}

function freezeCommand(freeze: boolean) {
  return (id: string, options: FreezeOptions, command: Command) =>
    withContext(command, async (ctx) => {
      const body = await bodyFrom(ctx, undefined, {
        holder_did: options.holderDid,
        jurisdiction: options.jurisdiction,
        amount: parseInteger('--amount', options.amount),
        reason: options.reason,
      })
      await fillRequired(ctx, body, [{ path: 'holder_did', flag: '--holder-did', question: 'Holder DID' }])
      if (body.amount !== undefined && body.jurisdiction === undefined) {
        throw new ExitError(EXIT.usage, '--amount needs --jurisdiction: the holding whose units are frozen')
      }
      const gov = (await ctx.rwa()).governance
      const { data, raw } = freeze
        ? await gov.freezeHolder({ params: { id: id }, body: body as FreezeRequest })
        : await gov.unfreezeHolder({ params: { id: id }, body: body as FreezeRequest })
      ctx.out.result(raw, () => {
        showFreezeState(ctx, data)
        const what =
          body.amount === undefined
            ? data.holder_did
            : `${body.amount} units of ${data.holder_did} in ${body.jurisdiction}`
        ctx.out.success(`${freeze ? 'froze' : 'unfroze'} ${what} for ${data.token_id}`)
      })
    })
}

function showFreezeState(ctx: CliContext, state: FreezeState): void {
  ctx.out.record([
    ['token_id', state.token_id],
    ['holder_did', state.holder_did],
    ['frozen', state.frozen],
  ])
  showHoldings(ctx, state.holdings)
}

export const freeze = freezeCommand(true)
export const unfreeze = freezeCommand(false)

export function holdings(
  id: string,
  options: PageOptions & { holderDid?: string; jurisdiction?: string },
  command: Command,
) {
  return withContext(command, async (ctx) => {
    const gov = (await ctx.rwa()).governance
    const filters = { holder_did: options.holderDid, jurisdiction: options.jurisdiction }
    const listing = await fetchListing(ctx, 'holdings', options, (page) =>
      gov.listHoldings({ params: { id: id }, query: { ...filters, ...page } }),
    )
    ctx.out.result(listing.raw, () => {
      showHoldings(ctx, listing.items)
      listFooter(ctx, listing, 'holdings')
    })
  })
}

// ── Forced transfer and recovery ────────────────────────────────────────────

interface ForcedOptions {
  fromDid?: string
  from?: string
  toDid?: string
  to?: string
  amount?: string
  reason?: string
  file?: string
}

export function forceTransfer(id: string, options: ForcedOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await bodyFrom(ctx, options.file, {
      from_did: options.fromDid,
      from_jurisdiction: options.from,
      to_did: options.toDid,
      to_jurisdiction: options.to,
      amount: parseInteger('--amount', options.amount),
      reason: options.reason,
    })
    await fillRequired(ctx, body, [
      { path: 'from_did', flag: '--from-did', question: 'Take from (DID)' },
      { path: 'from_jurisdiction', flag: '--from', question: 'From jurisdiction' },
      { path: 'to_did', flag: '--to-did', question: 'Give to (DID)' },
      { path: 'to_jurisdiction', flag: '--to', question: 'To jurisdiction' },
      {
        path: 'amount',
        flag: '--amount',
        question: 'Amount (whole units)',
        parse: (a) => parseInteger('amount', a),
      },
      { path: 'reason', flag: '--reason', question: 'Reason (the authority, e.g. a court order)' },
    ])
    await confirmDestructive(
      ctx,
      `force the transfer of ${body.amount} units of ${id} from ${body.from_did} to ${body.to_did}`,
      'It bypasses every requirement, rule, freeze and pause.',
    )
    const { data, raw } = await (await ctx.rwa()).governance.forcedTransfer({
      params: { id: id },
      body: body as ForcedTransferRequest,
    })
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
      ])
      showChecks(ctx, data.compliance_details)
      ctx.out.success(`forced transfer ${data.transfer_id}; proof ${data.proof_id}`)
    })
  })
}

export function recover(
  id: string,
  options: { lostDid?: string; newDid?: string; reason?: string },
  command: Command,
) {
  return withContext(command, async (ctx) => {
    const body = await bodyFrom(ctx, undefined, {
      lost_did: options.lostDid,
      new_did: options.newDid,
      reason: options.reason,
    })
    await fillRequired(ctx, body, [
      { path: 'lost_did', flag: '--lost-did', question: 'Lost identity (DID)' },
      { path: 'new_did', flag: '--new-did', question: 'New identity (DID)' },
      { path: 'reason', flag: '--reason', question: 'Reason' },
    ])
    await confirmDestructive(ctx, `move every holding of ${body.lost_did} in ${id} to ${body.new_did}`)
    const { data, raw } = await (await ctx.rwa()).governance.recoverIdentity({
      params: { id: id },
      body: body as RecoverRequest,
    })
    ctx.out.result(raw, () => {
      showHoldings(ctx, data.moved)
      ctx.out.success(`recovered ${data.lost_did} as ${data.new_did}; proof ${data.proof_id}`)
    })
  })
}

// ── Rules and history ───────────────────────────────────────────────────────

interface RulesOptions {
  maxBalancePerHolder?: string
  maxHolders?: string
  lockupUntil?: string
  maxTransferAmount?: string
  dailyVolumePerHolder?: string
  clear?: string[]
  reason?: string
  file?: string
}

/** `--max-holders 50` (every jurisdiction) or `--max-holders US=2000,SG=50`. */
function parseMaxHolders(value: string | undefined): TokenRules['max_holders'] | undefined {
  if (value === undefined) return undefined
  if (/^\d+$/.test(value.trim())) return parseInteger('--max-holders', value)
  const caps: Record<string, number> = {}
  for (const part of value.split(',')) {
    const [j, n] = part.split('=').map((s) => s.trim())
    if (!j || n === undefined || !/^\d+$/.test(n)) {
      throw new ExitError(
        EXIT.usage,
        `--max-holders must be a number or JURISDICTION=N pairs, got ${JSON.stringify(value)}`,
        'e.g. --max-holders 50 or --max-holders US=2000,SG=50',
      )
    }
    caps[j] = Number(n)
  }
  return caps
}

/**
 * `rwa tokens rules set`: the flags given change those rules and keep the others (read, then PUT the
 * whole object); `--clear` clears rules by name; `--file` gives the whole object as is.
 */
export function setRules(id: string, options: RulesOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const gov = (await ctx.rwa()).governance
    // Flags are checked before anything is read, so a bad flag is named first.
    const cleared = parseList(options.clear) ?? []
    for (const name of cleared) {
      if (!(RULE_NAMES as readonly string[]).includes(name)) {
        throw new ExitError(EXIT.usage, `--clear names no rule: ${name}`, `rules: ${RULE_NAMES.join(', ')}`)
      }
    }
    const given: Partial<TokenRules> = {
      max_balance_per_holder: parseInteger('--max-balance-per-holder', options.maxBalancePerHolder),
      max_holders: parseMaxHolders(options.maxHolders),
      lockup_until: options.lockupUntil,
      max_transfer_amount: parseInteger('--max-transfer-amount', options.maxTransferAmount),
      daily_volume_per_holder: parseInteger('--daily-volume-per-holder', options.dailyVolumePerHolder),
    }
    let body: Record<string, unknown>
    if (options.file) body = await bodyFrom(ctx, options.file, {})
    else {
      body = { ...(await gov.getToken({ params: { id: id } })).data.rules }
      for (const [name, value] of Object.entries(given)) if (value !== undefined) body[name] = value
      for (const name of cleared) body[name] = null
    }
    if (options.reason) body.reason = options.reason
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
    const listing = await fetchListing(ctx, 'governance_history', options, (page) =>
      gov.getTokenHistory({ params: { id: id }, query: page }),
    )
    ctx.out.result(listing.raw, () => {
      showHistory(ctx, listing.items)
      listFooter(ctx, listing, 'events')
    })
  })
}
