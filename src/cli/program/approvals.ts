import type { Command } from 'commander'
import { APPROVALS } from '../flags/approvals.js'
import { declareFlags as flags } from '../flags/flag.js'
import { examples, pageOptions } from './help.js'

/**
 * `rwa policy` and `rwa approvals`: four eyes (docs/accountability.md, "Four eyes") over /console/rwa/policy
 * and /approvals.
 */
export function declareApprovals(program: Command): void {
  const load = () => import('../commands/approvals.js')
  const policy = program
    .command('policy')
    .description('Four eyes: which operations need a second key (owner sets it)')
  examples(policy.command('show').description("Show the organization's four-eyes policy"), [
    'rwa policy show',
  ]).action(async (o, c) => (await load()).showPolicyCommand(o, c))
  examples(
    flags(
      policy.command('set').description('Set which operations wait for another key to approve them'),
      APPROVALS.setPolicy,
    ),
    ['rwa policy set --require-approval forced_transfer,recover', 'rwa policy set --require-approval ""'],
  ).action(async (o, c) => (await load()).setPolicy(o, c))

  const approvals = program
    .command('approvals')
    .description('Operations waiting for a second key: list, approve, reject')
  examples(
    pageOptions(flags(approvals.command('list').description('List approvals, newest first'), APPROVALS.list)),
    ['rwa approvals list --status pending', 'rwa approvals list --all --json'],
  ).action(async (o, c) => (await load()).list(o, c))
  examples(approvals.command('get').description('Show an approval').argument('<approval_id>'), [
    'rwa approvals get apr_01JD...',
  ]).action(async (id, o, c) => (await load()).get(id, o, c))
  examples(
    approvals
      .command('approve')
      .description('Approve with another key (agent): runs the operation now, as it is then')
      .argument('<approval_id>'),
    ['rwa approvals approve apr_01JD... --yes'],
  ).action(async (id, o, c) => (await load()).approve(id, o, c))
  examples(
    flags(
      approvals.command('reject').description('Reject: the operation never runs').argument('<approval_id>'),
      APPROVALS.reject,
    ),
    ['rwa approvals reject apr_01JD... --reason "wrong recipient"'],
  ).action(async (id, o, c) => (await load()).reject(id, o, c))
}
