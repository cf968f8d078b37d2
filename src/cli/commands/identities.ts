import type { Identity } from '../../contract/identities.js'
import type { CliContext } from '../context.js'
import type { Run } from '../invoke.js'
import { listing } from '../paging.js'
import { showing } from './shapes.js'

/** Prints one identity as a record. */
export function showIdentity(ctx: CliContext, i: Identity): void {
  ctx.out.record([
    ['identity_id', i.identity_id],
    ['country', i.country],
    ['category', i.category ?? '-'],
    ['dids', i.dids.join(', ')],
    ['created_at', i.created_at],
    ['updated_at', i.updated_at],
  ])
}

export const list = listing('listIdentities', 'identities', {
  noun: ['identity', 'identities'],
  headers: ['id', 'country', 'category', 'dids'],
  row: (_, i) => [i.identity_id, i.country, i.category ?? '-', i.dids.join(', ')],
  id: (i) => i.identity_id,
})

export const get = showing('getIdentity', showIdentity, (i) => [i.identity_id])

export const create: Run<'createIdentity'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showIdentity(ctx, data)
    ctx.out.success(`created identity ${data.identity_id}`)
  }, [data.identity_id])
}

export const update: Run<'updateIdentity'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showIdentity(ctx, data)
    ctx.out.success(`updated identity ${data.identity_id}`)
  }, [data.identity_id])
}

/** `add-did` and `remove-did`: the identity with its DIDs now. */
export const changeDids: Run<'changeIdentityDids'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showIdentity(ctx, data)
    ctx.out.success(
      `identity ${data.identity_id} has ${data.dids.length} DID${data.dids.length === 1 ? '' : 's'}`,
    )
  }, [data.identity_id])
}

/** `rwa tokens holders`: a row per identity (or lone DID), its DIDs' units after it. */
export const holders = listing('listHolders', 'holders', {
  noun: ['holder', 'holders'],
  headers: ['identity_id', 'country', 'category', 'total', 'dids'],
  row: (_, x) => [
    x.identity_id ?? '-',
    x.country ?? '-',
    x.category ?? '-',
    x.total,
    x.dids.map((d) => `${d.holder_did}=${d.amount}`).join(', '),
  ],
  id: (x) => x.identity_id ?? x.dids[0]?.holder_did ?? '',
})
