import type { Command } from 'commander'
import { collect, declareFlags as flags } from '../flags/flag.js'
import { ATTESTATIONS, CREDENTIALS, JURISDICTIONS, TOKENS, TRANSFERS, TRUST } from '../flags/governance.js'
import { examples, fileOption, pageOptions } from './help.js'

/** The governance command groups over /console/rwa/, and `rwa apply`. */
export function declareGovernance(program: Command): void {
  const load = () => import('../commands/jurisdictions.js')
  const j = program.command('jurisdictions').description('Register and manage jurisdictions')
  examples(pageOptions(j.command('list').description('List jurisdictions')), [
    'rwa jurisdictions list',
    'rwa jurisdictions list --all --json',
  ]).action(async (o, c) => (await load()).list(o, c))
  examples(j.command('get').description('Show a jurisdiction').argument('<jurisdiction_id>'), [
    'rwa jurisdictions get US',
  ]).action(async (id, o, c) => (await load()).get(id, o, c))
  examples(
    fileOption(flags(j.command('register').description('Register a jurisdiction'), JURISDICTIONS.register)),
    [
      'rwa jurisdictions register --id US --name "United States" --regulatory-body SEC --frameworks "Reg D" --transfer-requirements kyc,aml',
      'rwa jurisdictions register --file us.json',
    ],
  ).action(async (o, c) => (await load()).register(o, c))
  examples(
    fileOption(
      flags(
        j
          .command('update')
          .description('Change a jurisdiction; fields not given keep their current values')
          .argument('<jurisdiction_id>'),
        JURISDICTIONS.update,
      ),
    ),
    ['rwa jurisdictions update US --transfer-requirements kyc,aml,investor_qualification'],
  ).action(async (id, o, c) => (await load()).update(id, o, c))
  examples(
    j
      .command('remove')
      .description('Remove a jurisdiction nothing refers to any more')
      .argument('<jurisdiction_id>'),
    ['rwa jurisdictions remove SG --yes'],
  ).action(async (id, o, c) => (await load()).remove(id, o, c))

  const loadTrust = () => import('../commands/trust.js')
  const trust = program.command('trust').description('Establish and revoke trust between jurisdictions')
  examples(pageOptions(flags(trust.command('list').description('List trust relations'), TRUST.list)), [
    'rwa trust list',
    'rwa trust list --jurisdiction US --status active',
  ]).action(async (o, c) => (await loadTrust()).list(o, c))
  examples(
    fileOption(
      flags(
        trust
          .command('establish')
          .description('Trust from one jurisdiction to another: transfers may go FROM -> TO'),
        TRUST.establish,
      ),
    ),
    ['rwa trust establish --from US --to SG --mutual'],
  ).action(async (o, c) => (await loadTrust()).establish(o, c))
  examples(
    flags(
      trust.command('revoke').description('Revoke the trust from one jurisdiction to another'),
      TRUST.revoke,
    ),
    ['rwa trust revoke --from US --to SG --yes'],
  ).action(async (o, c) => (await loadTrust()).revoke(o, c))

  const loadCred = () => import('../commands/credentials.js')
  const cred = program.command('credentials').description('Issue and revoke property credentials')
  examples(pageOptions(flags(cred.command('list').description('List credentials'), CREDENTIALS.list)), [
    'rwa credentials list --jurisdiction US',
    'rwa credentials list --owner-did did:web:acme:alice --json',
  ]).action(async (o, c) => (await loadCred()).list(o, c))
  examples(cred.command('get').description('Show a credential').argument('<credential_id>'), [
    'rwa credentials get cred_01JD...',
  ]).action(async (id, o, c) => (await loadCred()).get(id, o, c))
  examples(
    fileOption(
      flags(
        cred.command('issue').description('Issue a PropertyOwnership credential, signed by the jurisdiction'),
        CREDENTIALS.issue,
      ),
    ),
    [
      'rwa credentials issue --jurisdiction US --owner-did did:web:acme:alice --address "1 Main St, Austin TX" --type commercial --value-usd 2500000 --title-deed TX-2024-001',
    ],
  ).action(async (o, c) => (await loadCred()).issue(o, c))
  examples(
    flags(
      cred
        .command('revoke')
        .description('Revoke a credential; tokens backed by it can no longer be transferred')
        .argument('<credential_id>'),
      CREDENTIALS.revoke,
    ),
    ['rwa credentials revoke cred_01JD... --reason "title disputed" --yes'],
  ).action(async (id, o, c) => (await loadCred()).revoke(id, o, c))
  examples(
    verifyOptions(
      cred
        .command('verify')
        .description(
          "Verify a credential or attestation as an auditor would: its issuer's signature, trusted by the trust bundle, validity, the record around it, its status list (exit 8 when it does not hold)",
        ),
    ).argument(
      '<credential>',
      'a credential id (cred_...; att_... for an attestation), a saved record or VC-JWT file, or - for stdin',
    ),
    [
      'rwa credentials verify cred_01JD...',
      'rwa trust-bundle > trust.json && rwa credentials get cred_01JD... --json > credential.json',
      'rwa credentials verify credential.json --trust trust.json     # no key, no server but the status list',
      'rwa credentials verify credential.json --trust trust.json --offline   # status not checked',
    ],
  ).action(async (id, o, c) => (await loadCred()).verify(id, o, c))

  examples(
    maxStatusAge(
      trustOption(
        cred
          .command('status')
          .description(
            "Is it revoked? Its issuer's signature verified against the trust bundle first, then its public status list read as any verifier would (exit 8 when it does not verify, is revoked or its status is not verifiable)",
          ),
      ),
    ).argument(
      '<credential>',
      'a credential or attestation id, a file holding one (or its vc_jwt), or - for stdin',
    ),
    [
      'rwa credentials status cred_01JD...',
      'rwa credentials get cred_01JD... --json | rwa credentials status -',
      'rwa credentials status credential.jwt --trust trust.json     # no key: the trust bundle saved before',
    ],
  ).action(async (p, o, c) => (await loadCred()).status(p, o, c))

  const loadAtt = () => import('../commands/attestations.js')
  importCommand(cred, 'credentials', 'jurisdiction,owner_did,address,type,value_usd,title_deed[,valid_until]')
  const att = program.command('attestations').description('Submit, read and revoke regulatory attestations')
  importCommand(
    att,
    'attestations',
    'jurisdiction,subject_did,type,attester[,credential_id,evidence,valid_until]',
  )
  examples(pageOptions(flags(att.command('list').description('List attestations'), ATTESTATIONS.list)), [
    'rwa attestations list --subject-did did:web:acme:bob',
  ]).action(async (o, c) => (await loadAtt()).list(o, c))
  examples(att.command('get').description('Show an attestation').argument('<attestation_id>'), [
    'rwa attestations get att_01JD...',
  ]).action(async (id, o, c) => (await loadAtt()).get(id, o, c))
  examples(
    fileOption(
      flags(
        att.command('submit').description('Submit a regulatory attestation, signed by the jurisdiction'),
        ATTESTATIONS.submit,
      ),
    ),
    [
      'rwa attestations submit --jurisdiction SG --subject-did did:web:acme:bob --type kyc --attester "Onfido"',
    ],
  ).action(async (o, c) => (await loadAtt()).submit(o, c))
  examples(
    flags(
      att
        .command('revoke')
        .description(
          'Revoke an attestation (for good): its status-list bit is set, and no transfer relies on it any more',
        )
        .argument('<attestation_id>'),
      ATTESTATIONS.revoke,
    ),
    ['rwa attestations revoke att_01JD... --reason "found to be false" --yes'],
  ).action(async (id, o, c) => (await loadAtt()).revoke(id, o, c))

  const loadTok = () => import('../commands/tokens.js')
  const tok = program
    .command('tokens')
    .description('Tokenize credentialed assets, and act as their agent: pause, freeze, force, recover, rules')
  examples(pageOptions(flags(tok.command('list').description('List tokens'), TOKENS.list)), [
    'rwa tokens list',
  ]).action(async (o, c) => (await loadTok()).list(o, c))
  examples(
    tok
      .command('get')
      .description('Show a token, its holdings and governance history')
      .argument('<token_id>'),
    ['rwa tokens get tok_01JD...'],
  ).action(async (id, o, c) => (await loadTok()).get(id, o, c))
  examples(
    fileOption(
      flags(
        tok.command('create').description('Tokenize the asset of an active credential (once per credential)'),
        TOKENS.create,
      ),
    ),
    ['rwa tokens create --credential-id cred_01JD... --total-supply 1000 --symbol AUSTIN1'],
  ).action(async (o, c) => (await loadTok()).create(o, c))

  const loadGov = () => import('../commands/token-governance.js')
  examples(
    pageOptions(
      tok
        .command('history')
        .description("Every event of a token's history, oldest first")
        .argument('<token_id>'),
    ),
    ['rwa tokens history tok_01JD... --all'],
  ).action(async (id, o, c) => (await loadGov()).history(id, o, c))
  examples(
    flags(
      tok
        .command('pause')
        .description('Pause a token: every transfer is refused until unpaused')
        .argument('<token_id>'),
      TOKENS.pause,
    ),
    ['rwa tokens pause tok_01JD... --reason "corporate action"'],
  ).action(async (id, o, c) => (await loadGov()).pause(id, o, c))
  examples(
    flags(tok.command('unpause').description('Unpause a paused token').argument('<token_id>'), TOKENS.pause),
    ['rwa tokens unpause tok_01JD...'],
  ).action(async (id, o, c) => (await loadGov()).unpause(id, o, c))
  const freezeFlags = (command: Command) => flags(command.argument('<token_id>'), TOKENS.freeze)
  examples(
    freezeFlags(
      tok
        .command('freeze')
        .description('Freeze a holder (can neither send nor receive), or units of a holding'),
    ),
    [
      'rwa tokens freeze tok_01JD... --holder-did did:web:lion:bob --reason "sanctions hit"',
      'rwa tokens freeze tok_01JD... --holder-did did:web:acme:alice --jurisdiction US --amount 600',
    ],
  ).action(async (id, o, c) => (await loadGov()).freeze(id, o, c))
  examples(freezeFlags(tok.command('unfreeze').description('Unfreeze a holder, or units of a holding')), [
    'rwa tokens unfreeze tok_01JD... --holder-did did:web:lion:bob',
  ]).action(async (id, o, c) => (await loadGov()).unfreeze(id, o, c))
  examples(
    pageOptions(
      flags(
        tok
          .command('holdings')
          .description('Holdings of a token with their frozen units')
          .argument('<token_id>'),
        TOKENS.holdings,
      ),
    ),
    [
      'rwa tokens holdings tok_01JD...',
      'rwa tokens holdings tok_01JD... --holder-did did:web:lion:bob --json',
    ],
  ).action(async (id, o, c) => (await loadGov()).holdings(id, o, c))
  examples(
    pageOptions(
      tok
        .command('frozen-holders')
        .description('DIDs frozen for a token as a whole (held units or not), in order')
        .argument('<token_id>'),
    ),
    ['rwa tokens frozen-holders tok_01JD...', 'rwa tokens frozen-holders tok_01JD... --all -q'],
  ).action(async (id, o, c) => (await loadGov()).frozenHolders(id, o, c))
  examples(
    fileOption(
      flags(
        tok
          .command('force-transfer')
          .description(
            'Move units by authority (bypasses requirements, rules, freezes, pause); the recipient needs kyc',
          )
          .argument('<token_id>'),
        TOKENS.forceTransfer,
      ),
    ),
    [
      'rwa tokens force-transfer tok_01JD... --from-did did:web:lion:bob --from SG --to-did did:web:acme:alice --to US --amount 100 --reason "court order 2026-77" --yes',
    ],
  ).action(async (id, o, c) => (await loadGov()).forceTransfer(id, o, c))
  examples(
    flags(
      tok
        .command('recover')
        .description("Move a lost identity's holdings and freezes to a new DID that holds kyc where they are")
        .argument('<token_id>'),
      TOKENS.recover,
    ),
    [
      'rwa tokens recover tok_01JD... --lost-did did:web:lion:bob --new-did did:web:lion:bob2 --reason "lost keys" --yes',
    ],
  ).action(async (id, o, c) => (await loadGov()).recover(id, o, c))
  const rules = tok.command('rules').description("A token's transfer rules")
  examples(
    fileOption(
      flags(
        rules
          .command('set')
          .description(
            'Change rules: the flags given change those rules, the others stay; --file replaces all',
          )
          .argument('<token_id>'),
        TOKENS.rules,
      ).option('--clear <names>', 'clear these rules (comma-separated or repeated)', collect),
    ),
    [
      'rwa tokens rules set tok_01JD... --max-balance-per-holder 500 --max-holders SG=50 --reason prospectus',
      'rwa tokens rules set tok_01JD... --clear lockup_until',
    ],
  ).action(async (id, o, c) => (await loadGov()).setRules(id, o, c))
  examples(rules.command('get').description("Show a token's transfer rules").argument('<token_id>'), [
    'rwa tokens rules get tok_01JD... --json',
  ]).action(async (id, o, c) => (await loadGov()).getRules(id, o, c))

  const loadTx = () => import('../commands/transfers.js')
  const tx = program.command('transfers').description('Request and read cross-border transfers')
  importCommand(tx, 'transfers', 'token_id,from_jurisdiction,to_jurisdiction,recipient_did,amount')
  examples(pageOptions(flags(tx.command('list').description('List transfers'), TRANSFERS.list)), [
    'rwa transfers list --status rejected',
  ]).action(async (o, c) => (await loadTx()).list(o, c))
  examples(
    tx.command('get').description('Show a transfer with its compliance proof').argument('<transfer_id>'),
    ['rwa transfers get tx_01JD...'],
  ).action(async (id, o, c) => (await loadTx()).get(id, o, c))
  examples(
    fileOption(
      flags(
        tx.command('request').description('Request a transfer; exits 6 when compliance rejects it'),
        TRANSFERS.request,
      ),
    ),
    [
      'rwa transfers request --token-id tok_01JD... --from US --to SG --recipient-did did:web:acme:bob --amount 100',
    ],
  ).action(async (o, c) => (await loadTx()).request(o, c))

  examples(
    fileOption(
      flags(
        tx
          .command('check')
          .description(
            'Would this transfer be approved now? Records nothing; exits 6 when it would be rejected',
          ),
        TRANSFERS.check,
      ),
    ),
    [
      'rwa transfers check --token-id tok_01JD... --from US --to SG --recipient-did did:web:acme:bob --amount 100',
    ],
  ).action(async (o, c) => (await loadTx()).check(o, c))

  const loadProofs = () => import('../commands/proofs.js')
  const proofs = program.command('proofs').description('Fetch and verify compliance proofs')
  examples(proofs.command('get').description('Show a compliance proof').argument('<proof_id>'), [
    'rwa proofs get prf_01JD...',
  ]).action(async (id, o, c) => (await loadProofs()).get(id, o, c))
  examples(
    verifyOptions(
      proofs
        .command('verify')
        .description(
          'Verify a proof (or a saved transfer) as an auditor would: its key in the trust bundle, the digest recomputed, the signature, its organization and issuers, the record around it (exit 8 when it does not hold)',
        )
        .argument(
          '<proof>',
          'a proof id (prf_...), a file holding a proof or a transfer detail, or - for stdin',
        ),
    ),
    [
      'rwa proofs verify prf_01JD...',
      'rwa trust-bundle > trust.json && rwa transfers get tx_01JD... --json > transfer.json',
      'rwa proofs verify transfer.json --trust trust.json     # offline: no server needed',
      'rwa proofs get prf_01JD... --json | rwa proofs verify - --trust trust.json -q && echo holds',
    ],
  ).action(async (p, o, c) => (await loadProofs()).verify(p, o, c))
  examples(
    program
      .command('trust-bundle')
      .description(
        "Print the organization's trust bundle (proof keys and issuers, JSON), to verify offline with --trust",
      ),
    ['rwa trust-bundle > trust.json', 'rwa proofs verify transfer.json --trust trust.json'],
  ).action(async (o, c) => (await loadProofs()).trustBundle(o, c))
  examples(
    proofs
      .command('jwks')
      .description("Print the service's public proof keys (JWKS), to save for offline verification"),
    ['rwa proofs jwks > jwks.json'],
  ).action(async (o, c) => (await loadProofs()).jwks(o, c))

  examples(
    program
      .command('apply')
      .description(
        'Apply a manifest of jurisdictions, trust, credentials, attestations and tokens with their rules (idempotent)',
      )
      .requiredOption('-f, --file <file>', 'manifest, JSON or YAML; - for stdin')
      .option('--dry-run', 'show what would change and change nothing')
      .addHelpText(
        'after',
        `
Manifest (JSON or YAML), applied in this order; each entry is the API's request body:
  jurisdictions:  [{ jurisdiction_id, name, regulatory_body, transfer_requirements?, ... }]
  trust:          [{ from_jurisdiction, to_jurisdiction, mutual? }]
  credentials:    [{ ref?, jurisdiction, owner_did, property_data, valid_until? }]
  attestations:   [{ jurisdiction, subject_did, type, attester, credential?: REF | credential_id }]
  tokens:         [{ credential: REF | credential_id, total_supply, symbol?, rules? }]
A second apply of the same manifest changes nothing (docs/cli.md, "apply").`,
      ),
    [
      'rwa apply -f governance.yaml --dry-run',
      'rwa apply -f governance.yaml',
      'cat governance.json | rwa apply -f -',
    ],
  ).action(async (o, c) => (await import('../commands/apply.js')).apply(o, c))
}

/** `--max-status-age`: how old a status list may be (docs/cli.md, "Auditing offline"). */
function maxStatusAge(command: Command): Command {
  return command.option(
    '--max-status-age <duration>',
    'the oldest status list accepted, by its signing time: 24h, 30m, 10s (default 24h)',
  )
}

/** `--trust`: the trust anchors a signature must be by. */
function trustOption(command: Command): Command {
  return command.option(
    '--trust <file>',
    "the trust bundle saved with `rwa trust-bundle` (default: the server's, which needs a key)",
  )
}

/** The options of every verify command (docs/cli.md, "Auditing offline"): the trust anchors, the status check. */
function verifyOptions(command: Command): Command {
  return maxStatusAge(
    trustOption(command).option(
      '--offline',
      'do not check the status list (the output says "status not checked")',
    ),
  )
}

/**
 * `rwa <group> import FILE.csv`: rows as batches of up to 1,000 (docs/batches.md, "Imports from CSV"),
 * resumable after an interruption without doing anything twice.
 */
function importCommand(
  group: Command,
  kind: 'credentials' | 'attestations' | 'transfers',
  header: string,
): void {
  examples(
    group
      .command('import')
      .description(
        `Import ${kind} from a CSV file (header row = field names), in batches, resumable after an interruption`,
      )
      .argument('<file>', 'CSV file; its first line names the fields')
      .option(
        '--chunk-size <rows>',
        'rows per batch, 1 to 1000 (default: half the per-minute limit, at most 1000)',
      )
      .option(
        '--again',
        'import the file although an earlier version of it was imported (its rows are all sent again)',
      )
      .addHelpText(
        'after',
        `
Header (dotted names nest; empty cells are left out), checked before anything is sent; UTF-8 text:
  ${header}
Each row counts as a request. A refused row (or a transfer rejected by compliance) is listed (exit 6)
and the others are kept. Run it again after an interruption: the rows done are skipped, and none is run
twice (the state is kept per server, organization, file and content under $XDG_STATE_HOME/rwa/imports,
else ~/.local/state/rwa/imports; docs/batches.md). Ctrl-C stops at once, losing nothing.`,
      ),
    [`rwa ${kind} import ${kind}.csv`, `rwa ${kind} import ${kind}.csv --json > results.json`],
  ).action(async (file, o, c) => (await import('../commands/imports.js')).importCsv(kind)(file, o, c))
}
