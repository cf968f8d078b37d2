import type { Command } from 'commander'
import type { BillingClient } from '../../client/billing.js'
import type { UpdateSubscriptionRequest } from '../../contract/billing.js'
import { type Limits, tierSchema } from '../../contract/limits.js'
import type { Cell } from '../output.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { requestFrom } from '../input.js'

/**
 * The caller's own organization: the billing endpoints take an org id in the path, and a key lists
 * its own organization's keys, its own among them.
 */
export async function callerOrg(billing: BillingClient): Promise<string> {
  const { data } = await billing.listKeys()
  const org = data.keys[0]?.org_id
  if (!org)
    throw new ExitError(EXIT.unexpected, 'could not tell the organization of this key', 'pass --org ORG')
  return org
}

/** `--org`, or the organization of the key in use. */
export async function orgOf(ctx: CliContext, org: string | undefined): Promise<string> {
  return org ?? callerOrg(await ctx.billing())
}

/** The four limits as record rows. */
export const limitRows = (limits: Limits): Array<[string, Cell]> => [
  ['requests_per_day', limits.requests_per_day],
  ['requests_per_minute', limits.requests_per_minute],
  ['max_dids', limits.max_dids],
  ['max_skills', limits.max_skills],
]

/** `rwa subscription get`. */
export function get(orgArg: string | undefined, options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const { org_id } = (await requestFrom(ctx, options)) as { org_id?: string }
    const billing = await ctx.billing()
    const org = await orgOf(ctx, orgArg ?? org_id)
    const { data, raw } = await billing.getSubscription({ params: { org_id: org } })
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
  })
}

/** `rwa subscription set` (admin): what the payment-confirmation handler does, by hand. */
export function set(options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    if (!tierSchema.safeParse(body.tier).success) {
      throw new ExitError(
        EXIT.usage,
        `--tier must be one of ${tierSchema.options.join(', ')}, got ${JSON.stringify(body.tier)}`,
      )
    }
    const billing = await ctx.billing()
    const { data, raw } = await billing.updateSubscription({ body: body as UpdateSubscriptionRequest })
    ctx.out.result(raw, () => {
      ctx.out.record([['org_id', data.org_id], ['tier', data.tier], ...limitRows(data.limits)])
      ctx.out.success(`subscription of ${data.org_id} set to ${data.tier}`)
    }, [data.org_id])
  })
}
