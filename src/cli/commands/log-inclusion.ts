import { rootFromInclusionProof } from '../../tlog/merkle.js'
import type { Run } from '../invoke.js'
import { doesNotHold } from './verification.js'

/*
 * `rwa log inclusion --index N [--tree-size N]`: the RFC 9162 inclusion proof of the event at a log
 * position (its `log_index`) in the tree of a checkpoint (docs/governance.md, "`rwa log inclusion`"). The
 * proof is checked here to lead from the event's leaf to the root the server names (and, without
 * --tree-size, to the root of the latest checkpoint); exit 8 when it does not.
 */

export const logInclusion: Run<'getLogInclusionProof'> = async ({ ctx, input, send }) => {
  const { org_id, index } = input.query
  const org = org_id !== undefined ? { org_id } : {}
  // Without a size, the latest checkpoint's: the proof is then against the root it signs.
  const checkpoint =
    input.query.tree_size === undefined
      ? (await ctx.call('getLogCheckpoint', { params: {}, query: org, body: {} })).data
      : undefined
  const { data, raw } = await send({
    ...input,
    query: { ...input.query, ...(checkpoint ? { tree_size: checkpoint.tree_size } : {}) },
  })
  const root = rootFromInclusionProof(
    data.index,
    data.tree_size,
    Buffer.from(data.leaf_hash, 'base64'),
    data.proof.map((hash) => Buffer.from(hash, 'base64')),
  ).toString('base64')
  if (root !== data.root_hash || (checkpoint !== undefined && root !== checkpoint.root_hash)) {
    throw doesNotHold(
      `the inclusion proof of log position ${index} leads to root ${root}, not to ${root !== data.root_hash ? `the root it names (${data.root_hash})` : `the latest checkpoint's (${checkpoint?.root_hash})`}`,
      'the server answers proofs that do not hold: keep this answer as evidence, and run rwa log verify',
    )
  }
  ctx.out.result(raw, () => {
    ctx.out.record([
      ['index', data.index],
      ['tree_size', data.tree_size],
      ['leaf_hash', data.leaf_hash],
      ['root_hash', data.root_hash],
      // One hash a line, as --json lists them.
      ['proof', data.proof],
    ])
    ctx.out.success(
      `log position ${data.index} is in the tree of ${data.tree_size} entries: its proof leads to root ${data.root_hash}${checkpoint ? ", the latest checkpoint's" : ''} (rwa log verify checks that checkpoint's signature)`,
    )
  })
}
