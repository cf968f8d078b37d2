import type { CliContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { confirmDestructive } from '../input.js'
import type { Run } from '../invoke.js'
import { type Cell, plural, yesNo } from '../output.js'
import { confirmed } from './shapes.js'

/** `rwa keys create`: the one output that shows a raw API key. */
export const create: Run<'createKey'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  const fields: Array<[string, Cell]> = [
    ['api_key', data.api_key],
    ['key_id', data.key_id],
    ['org_id', data.org_id],
    ['name', data.name],
    ['tier', data.tier],
    ['roles', data.roles.join(', ')],
    ['expires_at', data.expires_at ?? 'never'],
    ['created_at', data.created_at],
    ['trial_ends_at', data.trial_ends_at],
  ]
  if (data.api_key === null) {
    ctx.out.result(raw, () => ctx.out.record(fields), [])
    throw lostCreate(ctx, data)
  }
  printNewKey(ctx, raw, data.api_key, data.warning, fields)
}

/**
 * A create replayed without its key (the same --idempotency-key after a lost answer, or while another
 * run of the same step had it): the key exists but cannot be shown again, so the command fails (exit 5,
 * a conflict) rather than let a pipeline go on without a key, and says what is left to do.
 */
function lostCreate(
  ctx: CliContext,
  data: { key_id: string; org_id: string; name: string; roles: readonly string[] },
): ExitError {
  const message = `the new key ${data.key_id} was shown only in the first answer to --idempotency-key ${ctx.options.idempotencyKey ?? ''}, and cannot be recovered`
  const create = `\`rwa keys create --org-id ${data.org_id} --name ${JSON.stringify(data.name)}${data.roles.map((r) => ` --roles ${r}`).join('')}\``
  return new ExitError(
    EXIT.conflict,
    message,
    `revoke the lost key (\`rwa keys revoke ${data.key_id}\`) and make another with a new --idempotency-key (${create})`,
  )
}

/**
 * A new raw key (create, reroll), printed once whatever the mode (with -q it is the one line on stdout).
 */
function printNewKey(
  ctx: CliContext,
  raw: unknown,
  apiKey: string,
  warning: string,
  fields: Array<[string, Cell]>,
) {
  ctx.out.result(raw, () => ctx.out.record(fields), [apiKey])
  if (!ctx.out.json) ctx.out.warn(warning)
}

/** `rwa keys list`: masked keys of an organization. */
export const list: Run<'listKeys'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(
    raw,
    () => {
      ctx.out.table(
        ['key_id', 'prefix', 'name', 'org', 'roles', 'tier', 'expires_at', 'last_used_at', 'revoked'],
        data.keys.map((k) => [
          k.key_id,
          k.key_prefix,
          k.name,
          k.org_id,
          k.roles.join(','),
          k.tier,
          k.expires_at ?? 'never',
          k.last_used_at,
          // Revoked red, as a revoked credential; replaced by a reroll yellow; in force a plain no.
          k.revoked_reason === 'revoked'
            ? ctx.out.style.red(k.revoked_reason)
            : k.revoked_reason === 'rerolled'
              ? ctx.out.style.yellow(k.revoked_reason)
              : yesNo(ctx.out.style, false, 'attention'),
        ]),
      )
      ctx.out.info(plural(data.total, 'key'))
    },
    data.keys.map((k) => k.key_id),
  )
}

/** `rwa keys revoke KEY_ID`: permanent, so it confirms. */
export const revoke = confirmed(
  'revokeKey',
  ({ params }) => ({ action: `revoke API key ${params.key_id}`, warning: 'This cannot be undone.' }),
  (ctx, data) => ctx.out.success(`revoked ${data.key_id}`),
  (data) => [data.key_id],
)

/**
 * `rwa keys reroll KEY_ID [--overlap 1h]`: the new raw key, printed once. Without an overlap the old key
 * stops at once, so that asks for confirmation like a revocation.
 */
export const reroll: Run<'rerollKey'> = async ({ ctx, input, send }) => {
  if (!input.body.overlap_seconds) {
    await confirmDestructive(
      ctx,
      `reroll API key ${input.params.key_id} with no overlap`,
      'The old key stops working at once (--overlap 1h keeps it working for an hour).',
    )
  }
  const { data, raw } = await send()
  const fields: Array<[string, Cell]> = [
    ['api_key', data.api_key],
    ['key_id', data.key_id],
    ['org_id', data.org_id],
    ['name', data.name],
    ['roles', data.roles.join(', ')],
    ['expires_at', data.expires_at ?? 'never'],
    ['replaces', data.previous_key_id],
    ['old key stops at', data.previous_key_revoked_at],
  ]
  if (data.api_key === null) {
    ctx.out.result(raw, () => ctx.out.record(fields), [])
    throw lostReroll(ctx, data)
  }
  printNewKey(ctx, raw, data.api_key, data.warning, fields)
}

/**
 * A reroll replayed without its key (the same --idempotency-key after a lost answer): the new key
 * cannot be had again, so the command fails (exit 5, a conflict), saying what is left to do: the old
 * key works until its overlap ends, long enough to make a new key and revoke the lost one (which ends
 * the old one with it: docs/keys.md, "Revocation").
 */
function lostReroll(
  ctx: CliContext,
  data: {
    key_id: string
    org_id: string
    name: string
    roles: readonly string[]
    previous_key_id: string
    previous_key_revoked_at: string
  },
): ExitError {
  const message = `the new key ${data.key_id} was shown only in the first answer to --idempotency-key ${ctx.options.idempotencyKey ?? ''}, and cannot be recovered`
  const create = `\`rwa keys create --org-id ${data.org_id} --name ${JSON.stringify(data.name)}${data.roles.map((r) => ` --roles ${r}`).join('')}\``
  const revokeLost = `\`rwa keys revoke ${data.key_id}\``
  const hint =
    Date.parse(data.previous_key_revoked_at) > Date.now()
      ? `the old key ${data.previous_key_id} still works until ${data.previous_key_revoked_at}: with it, make a new key now (${create}), switch to that, then revoke the lost one (${revokeLost}, which ends the old key too)`
      : `the old key ${data.previous_key_id} stopped at ${data.previous_key_revoked_at}: with another owner key, make a new key (${create}) and revoke the lost one (${revokeLost})`
  return new ExitError(EXIT.conflict, message, hint)
}

/** `rwa whoami`: the key in use, as the server sees it. */
export const whoami: Run<'getKeySelf'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    ctx.out.record([
      ['key_id', data.key_id],
      ['prefix', data.key_prefix],
      ['name', data.name],
      ['org_id', data.admin ? `${data.org_id} (admin key: acts on every organization)` : data.org_id],
      ['roles', data.roles.join(', ')],
      ['tier', data.tier],
      ['requests_per_minute', data.limits.requests_per_minute],
      ['requests_per_day', data.limits.requests_per_day],
      ['trial_ends_at', data.trial_ends_at],
      ['expires_at', data.expires_at ?? 'never'],
    ])
  }, [data.key_id])
}
