import type { Command } from 'commander'
import type { FlagOverride } from '../flags/derive.js'
import { fileText } from '../flags/parse.js'
import { command, declareGroup } from './operation-command.js'
import { importCommand, verifyCommands } from './workflows.js'

/*
 * `rwa jurisdictions`, `rwa trust`, `rwa credentials` and `rwa attestations`: one command an operation,
 * its flags from the operation's request; each entry says only where the command says it differently.
 * Tokens, transfers and proofs are in ./tokens.ts.
 */

/** `--from` and `--to`: the short names of the two ends of a trust relation or a transfer. */
export const from = (help: string): FlagOverride => ({ flag: '--from', help })
export const to = (help: string): FlagOverride => ({ flag: '--to', help })

export function declareGovernance(program: Command): void {
  const jurisdictions = () => import('../commands/jurisdictions.js')
  const jurisdiction = { id: '<jurisdiction_id>' }
  declareGroup(program.command('jurisdictions').description('Register and manage jurisdictions'), {
    list: command({
      operation: 'listJurisdictions',
      description: 'List jurisdictions',
      examples: ['rwa jurisdictions list', 'rwa jurisdictions list --all --json'],
      run: async () => (await jurisdictions()).list,
    }),
    get: command({
      operation: 'getJurisdiction',
      description: 'Show a jurisdiction',
      args: jurisdiction,
      examples: ['rwa jurisdictions get US'],
      run: async () => (await jurisdictions()).get,
    }),
    register: command({
      operation: 'registerJurisdiction',
      description: 'Register a jurisdiction',
      flags: { jurisdiction_id: { prompt: 'Jurisdiction code (e.g. US)' } },
      examples: [
        'rwa jurisdictions register --jurisdiction-id US --name "United States" --regulatory-body SEC --frameworks "Reg D" --transfer-requirements kyc,aml',
        'rwa jurisdictions register --file us.json',
      ],
      run: async () => (await jurisdictions()).register,
    }),
    update: command({
      operation: 'updateJurisdiction',
      description: 'Change a jurisdiction; fields not given keep their current values',
      args: jurisdiction,
      partial: true,
      file: true,
      examples: ['rwa jurisdictions update US --transfer-requirements kyc,aml,investor_qualification'],
      run: async () => (await jurisdictions()).update,
    }),
    remove: command({
      operation: 'removeJurisdiction',
      description: 'Remove a jurisdiction nothing refers to any more',
      args: jurisdiction,
      examples: ['rwa jurisdictions remove SG --yes'],
      run: async () => (await jurisdictions()).remove,
    }),
  })

  const trust = () => import('../commands/trust.js')
  declareGroup(program.command('trust').description('Establish and revoke trust between jurisdictions'), {
    list: command({
      operation: 'listTrust',
      description: 'List trust relations',
      examples: ['rwa trust list', 'rwa trust list --jurisdiction US --status active'],
      run: async () => (await trust()).list,
    }),
    establish: command({
      operation: 'establishTrust',
      description: 'Trust from one jurisdiction to another: transfers may go FROM -> TO',
      flags: {
        from_jurisdiction: { flag: '--from', prompt: 'From jurisdiction (source)' },
        to_jurisdiction: { flag: '--to', prompt: 'To jurisdiction (target)' },
      },
      examples: ['rwa trust establish --from US --to SG --mutual'],
      run: async () => (await trust()).establish,
    }),
    revoke: command({
      operation: 'revokeTrust',
      description: 'Revoke the trust from one jurisdiction to another',
      flags: {
        from_jurisdiction: {
          ...from('source jurisdiction'),
          required: true,
          prompt: 'From jurisdiction (source)',
        },
        to_jurisdiction: { ...to('target jurisdiction'), required: true, prompt: 'To jurisdiction (target)' },
      },
      file: false,
      examples: ['rwa trust revoke --from US --to SG --yes'],
      run: async () => (await trust()).revoke,
    }),
  })

  const credentials = () => import('../commands/credentials.js')
  const credential = { id: '<credential_id>' }
  const cred = program.command('credentials').description('Issue and revoke property credentials')
  declareGroup(cred, {
    list: command({
      operation: 'listCredentials',
      description: 'List credentials',
      flags: {
        jurisdiction: { help: 'issued by this jurisdiction' },
        owner_did: { help: 'owned by this DID' },
      },
      examples: [
        'rwa credentials list --jurisdiction US',
        'rwa credentials list --owner-did did:web:acme:alice --json',
      ],
      run: async () => (await credentials()).list,
    }),
    get: command({
      operation: 'getCredential',
      description: 'Show a credential',
      args: credential,
      examples: ['rwa credentials get cred_01JD...'],
      run: async () => (await credentials()).get,
    }),
    issue: command({
      operation: 'issueCredential',
      description: 'Issue a PropertyOwnership credential, signed by the jurisdiction',
      flags: {
        jurisdiction: { help: 'issuing jurisdiction' },
        owner_did: {
          help: 'owner, did:<method>:<organization>:<owner>',
          prompt: 'Owner DID (did:<method>:<organization>:<owner>)',
        },
        'property_data.value_usd': { example: '2500000' },
        valid_until: { example: '2027-06-30T00:00:00Z' },
      },
      examples: [
        'rwa credentials issue --jurisdiction US --owner-did did:web:acme:alice --address "1 Main St, Austin TX" --type commercial --value-usd 2500000 --title-deed TX-2024-001',
      ],
      run: async () => (await credentials()).issue,
    }),
    revoke: command({
      operation: 'revokeCredential',
      description: 'Revoke a credential; tokens backed by it can no longer be transferred',
      args: credential,
      examples: ['rwa credentials revoke cred_01JD... --reason "title disputed" --yes'],
      run: async () => (await credentials()).revoke,
    }),
    suspend: command({
      operation: 'suspendCredential',
      description:
        'Suspend a credential until reinstated: its suspension bit is set, and its transfers fail credential_valid meanwhile',
      args: credential,
      examples: ['rwa credentials suspend cred_01JD... --reason "title disputed" --yes'],
      run: async () => (await credentials()).suspend,
    }),
    reinstate: command({
      operation: 'reinstateCredential',
      description: 'Reinstate a suspended credential: its suspension bit is cleared',
      args: credential,
      examples: ['rwa credentials reinstate cred_01JD...'],
      run: async () => (await credentials()).reinstate,
    }),
  })
  verifyCommands(cred)
  importCommand(cred, 'credentials', 'jurisdiction,owner_did,address,type,value_usd,title_deed[,valid_until]')

  const attestations = () => import('../commands/attestations.js')
  const attestation = { id: '<attestation_id>' }
  const att = program
    .command('attestations')
    .description('Submit, read, suspend, reinstate and revoke regulatory attestations')
  importCommand(
    att,
    'attestations',
    'jurisdiction,subject_did,type,attester[,credential_id,evidence,valid_until]',
  )
  declareGroup(att, {
    list: command({
      operation: 'listAttestations',
      description: 'List attestations',
      flags: {
        jurisdiction: { help: 'issued by this jurisdiction' },
        credential_id: { help: 'about this credential' },
        subject_did: { help: 'about this subject' },
        type: { flag: '--type <requirement>', help: 'of this type, e.g. kyc' },
      },
      examples: ['rwa attestations list --subject-did did:web:acme:bob'],
      run: async () => (await attestations()).list,
    }),
    get: command({
      operation: 'getAttestation',
      description: 'Show an attestation',
      args: attestation,
      examples: ['rwa attestations get att_01JD...'],
      run: async () => (await attestations()).get,
    }),
    submit: command({
      operation: 'submitAttestation',
      description:
        "Submit a regulatory attestation, signed by the jurisdiction; or a trusted issuer's credential (--vc FILE)",
      flags: {
        type: { flag: '--type <requirement>' },
        vc_jwt: {
          flag: '--vc <file>',
          help: "a trusted issuer's VC-JWT, read from FILE (- for stdin): submitted alone, verified now",
          parse: fileText,
          example: 'kyc.jwt',
        },
      },
      examples: [
        'rwa attestations submit --jurisdiction SG --subject-did did:web:acme:bob --type kyc --attester "Onfido"',
        'rwa attestations submit --vc kyc.jwt',
      ],
      run: async () => (await attestations()).submit,
    }),
    revoke: command({
      operation: 'revokeAttestation',
      description:
        'Revoke an attestation (for good): its status-list bit is set, and no transfer relies on it any more',
      args: attestation,
      examples: ['rwa attestations revoke att_01JD... --reason "found to be false" --yes'],
      run: async () => (await attestations()).revoke,
    }),
    suspend: command({
      operation: 'suspendAttestation',
      description:
        "Suspend the organization's own attestation until reinstated: its suspension bit is set, and it meets no requirement meanwhile",
      args: attestation,
      examples: ['rwa attestations suspend att_01JD... --reason "under review" --yes'],
      run: async () => (await attestations()).suspend,
    }),
    reinstate: command({
      operation: 'reinstateAttestation',
      description: "Reinstate the organization's own suspended attestation: its suspension bit is cleared",
      args: attestation,
      examples: ['rwa attestations reinstate att_01JD...'],
      run: async () => (await attestations()).reinstate,
    }),
  })
}
