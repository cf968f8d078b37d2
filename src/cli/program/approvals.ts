import type { Command } from 'commander'
import { command, declareGroup } from './operation-command.js'

/**
 * `rwa policy` and `rwa approvals`: four eyes (docs/accountability.md, "Four eyes") over /console/rwa/policy
 * and /approvals.
 */
export function declareApprovals(program: Command): void {
  const load = () => import('../commands/approvals.js')
  declareGroup(
    program.command('policy').description('Four eyes: which operations need a second key (owner sets it)'),
    {
      show: command({
        operation: 'getApprovalPolicy',
        description: "Show the organization's four-eyes policy",
        examples: ['rwa policy show'],
        run: async () => (await load()).showPolicy,
      }),
      set: command({
        operation: 'setApprovalPolicy',
        description: 'Set which operations wait for another key to approve them',
        flags: {
          require_approval: {
            flag: '--require-approval <operations>',
            help: 'operations that need a second key, comma-separated: forced_transfer, recover, credential_revoke, unfreeze ("" for none)',
            prompt: 'Operations that need a second key (comma-separated)',
            example: 'forced_transfer,recover',
          },
        },
        file: false,
        examples: [
          'rwa policy set --require-approval forced_transfer,recover',
          'rwa policy set --require-approval ""',
        ],
        run: async () => (await load()).setPolicy,
      }),
    },
  )
  const approval = { id: '<approval_id>' }
  declareGroup(
    program.command('approvals').description('Operations waiting for a second key: list, approve, reject'),
    {
      list: command({
        operation: 'listApprovals',
        description: 'List approvals, newest first',
        flags: { status: { example: 'pending' } },
        examples: ['rwa approvals list --status pending', 'rwa approvals list --all --json'],
        run: async () => (await load()).list,
      }),
      get: command({
        operation: 'getApproval',
        description: 'Show an approval',
        args: approval,
        examples: ['rwa approvals get apr_01JD...'],
        run: async () => (await load()).get,
      }),
      approve: command({
        operation: 'approveApproval',
        description: 'Approve with another key (agent): runs the operation now, as it is then',
        args: approval,
        examples: ['rwa approvals approve apr_01JD... --yes'],
        run: async () => (await load()).approve,
      }),
      reject: command({
        operation: 'rejectApproval',
        description: 'Reject: the operation never runs',
        args: approval,
        examples: ['rwa approvals reject apr_01JD... --reason "wrong recipient"'],
        run: async () => (await load()).reject,
      }),
    },
  )
}
