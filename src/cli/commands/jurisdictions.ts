import type { Jurisdiction } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import type { Run } from '../invoke.js'
import { listing } from '../paging.js'
import { confirmed, showing } from './shapes.js'

/** Prints one jurisdiction as a record. */
export function showJurisdiction(ctx: CliContext, j: Jurisdiction): void {
  ctx.out.record([
    ['jurisdiction_id', j.jurisdiction_id],
    ['name', j.name],
    ['regulatory_body', j.regulatory_body],
    ['frameworks', j.frameworks.join(', ')],
    ['credential_types', j.credential_types.join(', ')],
    ['transfer_requirements', j.transfer_requirements.join(', ')],
    ['external_only', j.external_only.join(', ')],
    ['issuer_did', j.issuer_did],
    ['created_at', j.created_at],
    ['updated_at', j.updated_at],
  ])
}

export const list = listing('listJurisdictions', 'jurisdictions', {
  noun: ['jurisdiction', 'jurisdictions'],
  headers: ['id', 'name', 'regulator', 'requirements', 'credential types'],
  row: (_, j) => [
    j.jurisdiction_id,
    j.name,
    j.regulatory_body,
    j.transfer_requirements.join(', '),
    j.credential_types.join(', '),
  ],
  id: (j) => j.jurisdiction_id,
})

export const get = showing('getJurisdiction', showJurisdiction, (j) => [j.jurisdiction_id])

export const register: Run<'registerJurisdiction'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showJurisdiction(ctx, data)
    ctx.out.success(`registered jurisdiction ${data.jurisdiction_id}`)
  }, [data.jurisdiction_id])
}

/**
 * PUT replaces every mutable field, so without --file the current record is read first and only the
 * flags given change it.
 */
export const update: Run<'updateJurisdiction'> = async ({ ctx, input, send }) => {
  if (!ctx.request?.file) {
    const { data: current } = await ctx.call('getJurisdiction', { params: input.params, query: {}, body: {} })
    const { name, regulatory_body, frameworks, credential_types, transfer_requirements, external_only } =
      current
    input.body = {
      name,
      regulatory_body,
      frameworks,
      credential_types,
      transfer_requirements,
      external_only,
      ...input.body,
    }
  }
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showJurisdiction(ctx, data)
    ctx.out.success(`updated jurisdiction ${data.jurisdiction_id}`)
  }, [data.jurisdiction_id])
}

export const remove = confirmed(
  'removeJurisdiction',
  ({ params }) => ({ action: `remove jurisdiction ${params.id}` }),
  (ctx, data) => ctx.out.success(`removed jurisdiction ${data.jurisdiction_id}`),
  (data) => [data.jurisdiction_id],
)
