import type { Run } from '../invoke.js'
import { plural } from '../output.js'
import { limitRows, withOrg } from './subscription.js'

/** `rwa usage [--org-id] [--days]`: totals and one row per day with traffic. */
export const usage: Run<'getUsage'> = async ({ ctx, input, send }) => {
  const { data, raw } = await send(await withOrg(ctx, input))
  ctx.out.result(raw, () => {
    ctx.out.record([
      ['org_id', data.org_id],
      ['tier', data.tier],
      ['trial_ends_at', data.trial_ends_at],
      ['total_requests', data.totals.total_requests],
      ['total_dids_created', data.totals.total_dids_created],
      ['total_skills_registered', data.totals.total_skills_registered],
      ...limitRows(data.limits),
    ])
    // A 30-day window is mostly empty days: the table shows the days with traffic and says so.
    const active = data.daily_usage.filter((d) => d.request_count + d.dids_created + d.skills_registered > 0)
    ctx.out.table(
      ['date', 'requests', 'dids_created', 'skills_registered'],
      active.map((d) => [d.date, d.request_count, d.dids_created, d.skills_registered]),
      { title: 'days with traffic' },
    )
    const quiet = data.daily_usage.length - active.length
    ctx.out.info(
      `${active.length} of ${plural(data.daily_usage.length, 'day')} had traffic${quiet === 0 ? '' : quiet === 1 ? '; the one without any is not shown (--json lists every day)' : `; the ${quiet} without any are not shown (--json lists every day)`}`,
    )
  })
}

/** `rwa pricing`: public, works without a key. */
export const pricing: Run<'getPricing'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(
    raw,
    () => {
      ctx.out.table(
        ['tier', 'name', 'price', 'requests/day', 'requests/min', 'max_dids', 'max_skills', 'description'],
        Object.entries(data.tiers).map(([tier, t]) => [
          tier,
          t.name,
          t.price,
          t.limits.requests_per_day,
          t.limits.requests_per_minute,
          t.limits.max_dids,
          t.limits.max_skills,
          t.description,
        ]),
      )
      ctx.out.info(`free trial: ${data.free_trial_days} days`)
    },
    Object.keys(data.tiers),
  )
}

/** `rwa stats` (admin). */
export const stats: Run<'getStats'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () =>
    ctx.out.record([
      ['total_keys', data.total_keys],
      ['active_keys', data.active_keys],
      ['free', data.by_tier.free],
      ['pro', data.by_tier.pro],
      ['enterprise', data.by_tier.enterprise],
    ]),
  )
}
