import type { Command } from 'commander'
import { list } from '../flags/parse.js'
import { command, declareGroup } from './operation-command.js'
import { importCommand } from './workflows.js'

/*
 * `rwa identities`: investors' identities (docs/identities.md), one command an operation (three of
 * `changeIdentityDids`: `dids`, and `add-did` and `remove-did` for one direction). DIDs are given as `--did`, repeated or
 * comma-separated.
 */

const did = (help: string) =>
  ({
    flag: '--did <did>',
    help: `${help}; repeat (or comma-separate) for several`,
    parse: list,
    example: 'did:web:acme:alice',
  }) as const

export function declareIdentities(program: Command): void {
  const identities = () => import('../commands/identities.js')
  const identity = { id: '<identity_id>' }
  const group = declareGroup(
    program
      .command('identities')
      .description("Investors' identities: the DIDs of one investor, its country and category"),
    {
      list: command({
        operation: 'listIdentities',
        description: 'List identities, newest first',
        flags: {
          country: { help: 'of this country (an assigned ISO 3166-1 alpha-2 code or XK, e.g. US)' },
          category: { help: 'of this category: retail, professional, accredited, qualified or institutional' },
          did: { help: 'the identity this DID belongs to' },
        },
        examples: ['rwa identities list', 'rwa identities list --country US --category accredited --json'],
        run: async () => (await identities()).list,
      }),
      get: command({
        operation: 'getIdentity',
        description: 'Show an identity and its DIDs',
        args: identity,
        examples: ['rwa identities get idn_01JD5Z8Q4N7T0000000000ABCD'],
        run: async () => (await identities()).get,
      }),
      create: command({
        operation: 'createIdentity',
        description: 'Create an identity: the DIDs of one investor, its country and category',
        flags: {
          dids: did('a DID of the investor (in no other identity)'),
          country: { example: 'US' },
          identity_id: { help: 'an id of your choice (default: an idn_ id)' },
        },
        examples: [
          'rwa identities create --did did:web:acme:alice --did did:web:acme:alice-cold --country US --category accredited',
        ],
        run: async () => (await identities()).create,
      }),
      update: command({
        operation: 'updateIdentity',
        description: "Change an identity's country or category; fields not given keep their values",
        args: identity,
        partial: true,
        examples: [
          'rwa identities update investor-42 --country SG',
          'rwa identities update investor-42 --category qualified',
        ],
        run: async () => (await identities()).update,
      }),
      dids: command({
        operation: 'changeIdentityDids',
        description: 'Add and remove DIDs of an identity in one change',
        args: identity,
        flags: {
          add: { ...did('a DID to add'), flag: '--add <did>' },
          remove: { ...did('a DID of the identity to remove'), flag: '--remove <did>' },
        },
        examples: [
          'rwa identities dids investor-42 --add did:web:acme:alice-new --remove did:web:acme:alice-cold',
        ],
        run: async () => (await identities()).changeDids,
      }),
      'add-did': command({
        operation: 'changeIdentityDids',
        description: 'Add DIDs to an identity (none may be in another identity)',
        args: identity,
        flags: { add: { ...did('a DID to add'), required: true }, remove: false },
        file: false,
        examples: ['rwa identities add-did investor-42 --did did:web:acme:alice-new'],
        run: async () => (await identities()).changeDids,
      }),
      'remove-did': command({
        operation: 'changeIdentityDids',
        description: 'Remove DIDs from an identity (each is then free for another; one DID stays)',
        args: identity,
        flags: { add: false, remove: { ...did('a DID of the identity to remove'), required: true } },
        file: false,
        examples: ['rwa identities remove-did investor-42 --did did:web:acme:alice-cold'],
        run: async () => (await identities()).changeDids,
      }),
    },
  )
  importCommand(
    group,
    'identities',
    '[identity_id,]dids,country[,category]  (dids: DIDs separated by ";" or spaces)',
  )
}
