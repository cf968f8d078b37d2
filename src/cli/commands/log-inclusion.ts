import type { Command } from 'commander'
import { rootFromInclusionProof } from '../../tlog/merkle.js'
import { withContext } from '../context.js'
import { wholeNumber } from '../flags/parse.js'
import { doesNotHold } from './verification.js'

/*
 * `rwa log inclusion --index N [--tree-size N]`: the RFC 9162 inclusion proof of the event at a log
 * position (its `log_index`) in the tree of a checkpoint (docs/governance.md, "`rwa log inclusion`").
 * The proof is checked here to lead from the event's leaf to the root the server names (and, without
 * --tree-size, to the root of the latest checkpoint); exit 8 when it does not.
 */

interface LogInclusionOptions {
  index: string
  treeSize?: string
  org?: string
}

export function logInclusion(options: LogInclusionOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const client = await ctx.rwa()
    const org = options.org !== undefined ? { org_id: options.org } : {}
    const index = wholeNumber(options.index, '--index')
    // Without a size, the latest checkpoint's: the proof is then against the root it signs.
    const checkpoint =
      options.treeSize === undefined ? (await client.audit.getLogCheckpoint({ query: org })).data : undefined
    const treeSize = checkpoint?.tree_size ?? wholeNumber(options.treeSize as string, '--tree-size')
    const { data, raw } = await client.audit.getLogInclusionProof({
      query: { ...org, index, tree_size: treeSize },
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
        ['proof', data.proof.join('\n')],
      ])
      ctx.out.success(
        `log position ${data.index} is in the tree of ${data.tree_size} entries: its proof leads to root ${data.root_hash}${checkpoint ? ", the latest checkpoint's" : ''} (rwa log verify checks that checkpoint's signature)`,
      )
    })
  })
}
