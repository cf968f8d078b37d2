import type { TokenDetail } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { confirmDestructive } from '../input.js'
import type { Run } from '../invoke.js'
import { plural } from '../output.js'
import { unlessPending } from './pending.js'
import { showToken } from './tokens.js'

/*
 * `rwa tokens mint|burn`: units into or out of existence in one holding (docs/governance.md, "Supply:
 * mint and burn"). Each prints the token with its new supply, or the pending approval when the
 * organization's four-eyes policy covers it.
 */

/** A token after a mint or a burn; answers what was done, in words. */
export function showSupply(ctx: CliContext, token: TokenDetail, done: 'minted' | 'burned'): string {
  showToken(ctx, token)
  return `${done} units of ${token.token_id}: supply now ${token.supply}`
}

export const mint: Run<'mintTokens'> = async ({ ctx, input, send }) => {
  const { body, params } = input
  await confirmDestructive(
    ctx,
    `mint ${typeof body.amount === 'number' ? plural(body.amount, 'unit') : `${body.amount} units`} of ${params.id} to ${body.to_did} in ${body.jurisdiction}`,
  )
  const answer = unlessPending(ctx, await send())
  if (!answer) return
  const { data, raw } = answer
  ctx.out.result(raw, () => ctx.out.success(showSupply(ctx, data, 'minted')), [data.token_id])
}

export const burn: Run<'burnTokens'> = async ({ ctx, input, send }) => {
  const { body, params } = input
  await confirmDestructive(
    ctx,
    `burn ${typeof body.amount === 'number' ? plural(body.amount, 'unit') : `${body.amount} units`} of ${params.id} held by ${body.from_did} in ${body.jurisdiction}`,
    'Burnt units are gone for good; frozen units are taken after the unfrozen ones.',
  )
  const answer = unlessPending(ctx, await send())
  if (!answer) return
  const { data, raw } = answer
  ctx.out.result(raw, () => ctx.out.success(showSupply(ctx, data, 'burned')), [data.token_id])
}
