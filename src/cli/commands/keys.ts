import type { Command } from 'commander'
import { withContext } from '../context.js'
import type { CreateKeyRequest } from '../../contract/billing.js'
import { plural } from '../output.js'
import { confirmDestructive, requestFrom } from '../input.js'

/** `rwa keys create`: the one output that shows a raw API key. */
export function create(options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    const billing = await ctx.billing()
    const { data, raw } = await billing.createKey({ body: body as CreateKeyRequest })
    ctx.out.result(
      raw,
      () => {
        ctx.out.record([
          ['api_key', data.api_key],
          ['key_id', data.key_id],
          ['org_id', data.org_id],
          ['name', data.name],
          ['tier', data.tier],
          ['created_at', data.created_at],
          ['trial_ends_at', data.trial_ends_at],
        ])
      },
      data.api_key === null ? [] : [data.api_key],
    )
    // The raw key is printed once, whatever the mode: with -q it is the one line on stdout.
    if (ctx.out.json) return
    if (data.api_key === null) {
      ctx.out.warn(
        'this answer replays an earlier request with the same --idempotency-key: the raw key was shown only in the first answer',
      )
    } else ctx.out.warn(data.warning)
  })
}

/** `rwa keys list`: masked keys of an organization. */
export function list(options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const query = await requestFrom(ctx, options)
    const billing = await ctx.billing()
    const { data, raw } = await billing.listKeys({ query: query as { org_id?: string } })
    ctx.out.result(
      raw,
      () => {
        ctx.out.table(
          ['key_id', 'prefix', 'name', 'org', 'tier', 'created_at', 'last_used_at', 'revoked'],
          data.keys.map((k) => [
            k.key_id,
            k.key_prefix,
            k.name,
            k.org_id,
            k.tier,
            k.created_at,
            k.last_used_at,
            k.revoked,
          ]),
        )
        ctx.out.info(plural(data.total, 'key'))
      },
      data.keys.map((k) => k.key_id),
    )
  })
}

/** `rwa keys revoke KEY_ID`: permanent, so it confirms. */
export function revoke(keyId: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    await confirmDestructive(ctx, `revoke API key ${keyId}`, 'This cannot be undone.')
    const billing = await ctx.billing()
    const { data, raw } = await billing.revokeKey({ params: { key_id: keyId } })
    ctx.out.result(raw, () => ctx.out.success(`revoked ${data.key_id}`), [data.key_id])
  })
}
