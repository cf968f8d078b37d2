import type { Flag } from './flag.js'
import { list } from './parse.js'

/* The flag tables of `rwa policy` and `rwa approvals` (see ./flag.ts). */

export const APPROVALS = {
  setPolicy: [
    {
      field: 'require_approval',
      flag: '--require-approval <operations>',
      help: 'operations that need a second key, comma-separated: forced_transfer, recover, credential_revoke, unfreeze ("" for none)',
      prompt: 'Operations that need a second key (comma-separated)',
      parse: list,
      example: 'forced_transfer,recover',
    },
  ],
  list: [
    {
      field: 'status',
      flag: '--status <status>',
      help: 'pending, approved, rejected, expired, failed or cancelled',
      example: 'pending',
    },
  ],
  reject: [
    { field: 'reason', flag: '--reason <text>', help: 'why, for the record', example: 'wrong recipient' },
  ],
} satisfies Record<string, Flag[]>
