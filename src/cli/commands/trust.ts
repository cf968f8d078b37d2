import type { TrustRelation } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import type { Run } from '../invoke.js'
import { yesNo } from '../output.js'
import { listing } from '../paging.js'
import { confirmed } from './shapes.js'

const arrow = (t: { from_jurisdiction: string; to_jurisdiction: string; mutual: boolean }) =>
  `${t.from_jurisdiction} ${t.mutual ? '<->' : '->'} ${t.to_jurisdiction}`

function showTrust(ctx: CliContext, t: TrustRelation): void {
  ctx.out.record([
    ['trust_id', t.trust_id],
    ['relation', arrow(t)],
    ['mutual', yesNo(ctx.out.style, t.mutual, 'neutral')],
    ['status', t.status],
    ['created_at', t.created_at],
    ['revoked_at', t.revoked_at],
  ])
}

export const list = listing('listTrust', 'trust_relations', {
  noun: ['trust relation', 'trust relations'],
  headers: ['trust_id', 'relation', 'status', 'created_at'],
  row: (_, t) => [t.trust_id, arrow(t), t.status, t.created_at],
  id: (t) => t.trust_id,
})

export const establish: Run<'establishTrust'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showTrust(ctx, data)
    ctx.out.success(`trust established: ${arrow(data)}`)
  }, [data.trust_id])
}

export const revoke = confirmed(
  'revokeTrust',
  ({ query }) => ({ action: `revoke trust ${query.from_jurisdiction} -> ${query.to_jurisdiction}` }),
  (ctx, data) => ctx.out.success(`trust revoked: ${arrow(data)} (${data.trust_id})`),
  (data) => [data.trust_id],
)
