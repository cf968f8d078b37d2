import type { Flag } from './flag.js'

/*
 * The flag table of `rwa audit` (see ./flag.ts): the filters of GET /console/audit, which `list` and
 * `tail` share, and how often `tail` asks.
 */

const FILTERS: Flag[] = [
  {
    field: 'action',
    flag: '--action <action>',
    help: 'only this action, e.g. jurisdiction.updated',
    example: 'jurisdiction.updated',
  },
  {
    field: 'target_id',
    flag: '--target-id <id>',
    help: 'only changes of this record (a jurisdiction, token, key... id)',
    example: 'US',
  },
  {
    field: 'actor_key_id',
    flag: '--actor-key-id <key_id>',
    help: 'only changes made with this key',
    example: 'key_01JD...',
  },
  {
    field: 'since',
    flag: '--since <time>',
    help: 'at or after this time (ISO 8601)',
    example: '2026-11-22T00:00:00Z',
  },
  {
    field: 'until',
    flag: '--until <time>',
    help: 'before this time (ISO 8601)',
    example: '2026-11-23T00:00:00Z',
  },
  {
    field: 'org_id',
    flag: '--org-id <org_id>',
    help: "another organization's log (admin key)",
    example: 'acme',
  },
]

export const AUDIT = {
  list: FILTERS,
  tail: FILTERS,
} satisfies Record<string, Flag[]>
