import type { Issuer } from '../../contract/issuers.js'
import type { CliContext } from '../context.js'
import type { Run } from '../invoke.js'
import { listing } from '../paging.js'
import { confirmed, showing } from './shapes.js'

/** `kyc=KYCCredential; aml=AMLCredential,AMLCheck`. */
const requirementsText = (r: Issuer['requirements']): string =>
  Object.entries(r)
    .map(([name, types]) => `${name}=${types.join(',')}`)
    .join('; ')

/** Prints one issuer as a record, then its keys. */
export function showIssuer(ctx: CliContext, i: Issuer): void {
  ctx.out.record([
    ['issuer_id', i.issuer_id],
    ['name', i.name],
    ['did', i.did],
    ['status', i.status],
    ['requirements', requirementsText(i.requirements)],
    ['jurisdictions', i.jurisdictions.join(', ')],
    ['valid_until', i.valid_until ?? '-'],
    ['created_at', i.created_at],
    ['updated_at', i.updated_at],
    ['resolved_at', i.resolved_at],
  ])
  ctx.out.table(
    ['kid', 'first seen', 'retired'],
    i.keys.map((k) => [k.kid, k.first_seen_at, k.retired_at ?? '-']),
    { title: 'keys' },
  )
}

export const list = listing('listIssuers', 'issuers', {
  noun: ['issuer', 'issuers'],
  headers: ['id', 'name', 'status', 'did', 'requirements', 'jurisdictions'],
  row: (_, i) => [
    i.issuer_id,
    i.name,
    i.status,
    i.did,
    requirementsText(i.requirements),
    i.jurisdictions.join(', '),
  ],
  id: (i) => i.issuer_id,
})

export const get = showing('getIssuer', showIssuer, (i) => [i.issuer_id])

export const add: Run<'registerIssuer'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showIssuer(ctx, data)
    ctx.out.success(
      `registered issuer ${data.issuer_id} (${data.keys.length} key${data.keys.length === 1 ? '' : 's'})`,
    )
  }, [data.issuer_id])
}

export const update: Run<'updateIssuer'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showIssuer(ctx, data)
    ctx.out.success(`updated issuer ${data.issuer_id}`)
  }, [data.issuer_id])
}

export const suspend: Run<'updateIssuer'> = async ({ ctx, input, send }) => {
  input.body = { status: 'suspended' }
  const { data, raw } = await send()
  ctx.out.result(raw, () => ctx.out.success(`suspended issuer ${data.issuer_id}`), [data.issuer_id])
}

export const remove = confirmed(
  'removeIssuer',
  ({ params }) => ({ action: `remove issuer ${params.id}` }),
  (ctx, data) => ctx.out.success(`removed issuer ${data.issuer_id}`),
  (data) => [data.issuer_id],
)

export const refresh: Run<'refreshIssuer'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showIssuer(ctx, data)
    ctx.out.success(`resolved ${data.did} again`)
  }, [data.issuer_id])
}
