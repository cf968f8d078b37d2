import type { Command } from 'commander'
import { EXIT, ExitError } from '../exit-error.js'
import { list, requirementTypes } from '../flags/parse.js'
import { command, declareGroup } from './operation-command.js'

/*
 * `rwa issuers`: the trusted issuers registry (docs/issuers.md), one command an operation of it (two of
 * `updateIssuer`: `update`, and `suspend`, which sets its status alone). Requirements are given as
 * `--requirement kyc=KYCCredential`, repeated; jurisdictions as `--jurisdiction US`, repeated.
 */

const requirement = {
  flag: '--requirement <requirement=types>',
  help: 'a requirement the issuer is trusted for and the VC types that meet it, e.g. kyc=KYCCredential; repeat for each',
  parse: requirementTypes,
  repeatable: true,
  example: 'kyc=KYCCredential',
} as const

const jurisdiction = {
  flag: '--jurisdiction <id>',
  help: 'a jurisdiction that recognises its credentials; repeat (or comma-separate) for several',
  parse: list,
  example: 'US',
} as const

export function declareIssuers(program: Command): void {
  const issuers = () => import('../commands/issuers.js')
  const issuer = { id: '<issuer_id>' }
  declareGroup(
    program.command('issuers').description('Register and manage trusted issuers (KYC, AML, investor checks)'),
    {
      list: command({
        operation: 'listIssuers',
        description: 'List trusted issuers',
        flags: {
          jurisdiction: { help: 'recognised by this jurisdiction' },
          requirement: { help: 'trusted for this requirement, e.g. kyc' },
        },
        examples: ['rwa issuers list', 'rwa issuers list --jurisdiction US --requirement kyc --json'],
        run: async () => (await issuers()).list,
      }),
      get: command({
        operation: 'getIssuer',
        description: 'Show a trusted issuer and every key it ever had',
        args: issuer,
        examples: ['rwa issuers get acme-kyc'],
        run: async () => (await issuers()).get,
      }),
      add: command({
        operation: 'registerIssuer',
        description: 'Register a trusted issuer: its DID is resolved now, its Ed25519 keys kept for life',
        flags: {
          issuer_id: { prompt: 'Issuer id (e.g. acme-kyc)' },
          requirements: requirement,
          jurisdictions: jurisdiction,
          valid_until: { example: '2027-06-30T00:00:00Z' },
        },
        // The id as the first argument, like every other issuers command's (`--issuer-id` works too).
        options: (c) =>
          c
            .argument('[issuer_id]', 'the issuer id (or --issuer-id)')
            .hook('preAction', (self) => {
              const given = self.args[0]
              if (given === undefined) return
              const flag = self.getOptionValue('issuerId') as string | undefined
              if (flag !== undefined && flag !== given) {
                throw new ExitError(
                  EXIT.usage,
                  `the issuer id is given twice: ${JSON.stringify(given)} and --issuer-id ${JSON.stringify(flag)}`,
                  'give it once, as the first argument',
                )
              }
              self.setOptionValue('issuerId', given)
            }),
        examples: [
          'rwa issuers add acme-kyc --name "Acme KYC" --did did:web:kyc.acme.example --requirement kyc=KYCCredential --jurisdiction US --jurisdiction SG',
        ],
        run: async () => (await issuers()).add,
      }),
      update: command({
        operation: 'updateIssuer',
        description: 'Change a trusted issuer; fields not given keep their values',
        args: issuer,
        partial: true,
        flags: {
          requirements: { ...requirement, help: `${requirement.help} (replaces them all)` },
          jurisdictions: { ...jurisdiction, help: `${jurisdiction.help} (replaces them all)` },
        },
        examples: [
          'rwa issuers update acme-kyc --jurisdiction US',
          'rwa issuers update acme-kyc --status active',
        ],
        run: async () => (await issuers()).update,
      }),
      suspend: command({
        operation: 'updateIssuer',
        description:
          'Suspend a trusted issuer: its credentials are refused until `rwa issuers update ID --status active`',
        args: issuer,
        flags: { name: false, requirements: false, jurisdictions: false, valid_until: false, status: false },
        file: false,
        examples: ['rwa issuers suspend acme-kyc'],
        run: async () => (await issuers()).suspend,
      }),
      remove: command({
        operation: 'removeIssuer',
        description: 'Remove a trusted issuer (its record and keys are kept, its credentials refused)',
        args: issuer,
        examples: ['rwa issuers remove acme-kyc --yes'],
        run: async () => (await issuers()).remove,
      }),
      refresh: command({
        operation: 'refreshIssuer',
        description: "Resolve the issuer's DID again now: new keys added, keys gone from it retired",
        args: issuer,
        examples: ['rwa issuers refresh acme-kyc'],
        run: async () => (await issuers()).refresh,
      }),
    },
  )
}
