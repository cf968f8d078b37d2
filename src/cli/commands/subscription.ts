import type { Limits } from '../../contract/limits.js'
import type { CliContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import type { OperationRequest, Run } from '../invoke.js'
import type { Cell } from '../output.js'

/**
 * The caller's own organization: the billing endpoints take an org id in the path, and a key lists
 * its own organization's keys, its own among them.
 */
export async function callerOrg(ctx: CliContext): Promise<string> {
  const { data } = await ctx.call('listKeys', { params: {}, query: {}, body: {} })
  const org = data.keys[0]?.org_id
  if (!org)
    throw new ExitError(EXIT.unexpected, 'could not tell the organization of this key', 'pass --org-id ORG')
  return org
}

/** The organization of a billing path: the one given (argument or `--org-id`), else the key's own. */
export async function withOrg(ctx: CliContext, input: OperationRequest): Promise<OperationRequest> {
  if (input.params.org_id !== undefined) return input
  return { ...input, params: { ...input.params, org_id: await callerOrg(ctx) } }
}

/** The four limits as record rows. */
export const limitRows = (limits: Limits): Array<[string, Cell]> => [
  ['requests_per_day', limits.requests_per_day],
  ['requests_per_minute', limits.requests_per_minute],
  ['max_dids', limits.max_dids],
  ['max_skills', limits.max_skills],
]

/** `rwa subscription get [ORG]`. */
export const get: Run<'getSubscription'> = async ({ ctx, input, send }) => {
  const { data, raw } = await send(await withOrg(ctx, input))
  ctx.out.result(raw, () => {
    ctx.out.record([
      ['org_id', data.org_id],
      ['tier', data.tier],
      ['status', data.status],
      ['trial_ends_at', data.trial_ends_at],
      ...limitRows(data.limits),
      ['payment_subscription_id', data.subscription?.payment_subscription_id],
      ['payment_customer_id', data.subscription?.payment_customer_id],
      ['current_period_start', data.subscription?.current_period_start],
      ['current_period_end', data.subscription?.current_period_end],
      ['cancel_at_period_end', data.subscription?.cancel_at_period_end],
    ])
  }, [data.org_id])
}

/** `rwa subscription set` (admin): what the payment-confirmation handler does, by hand. */
export const set: Run<'updateSubscription'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    ctx.out.record([['org_id', data.org_id], ['tier', data.tier], ...limitRows(data.limits)])
    ctx.out.success(`subscription of ${data.org_id} set to ${data.tier}`)
  }, [data.org_id])
}
