import type { Command } from 'commander'
import { collect, examples, fileOption, pageOptions } from './help.js'

const jurisdictionFlags = (command: Command): Command =>
  command
    .option('--name <name>', 'display name')
    .option('--regulatory-body <name>', 'name of the regulator')
    .option('--frameworks <list>', 'regulatory frameworks, comma-separated or repeated', collect)
    .option(
      '--credential-types <list>',
      'accepted credential types (default PropertyOwnership,RegulatoryAttestation)',
      collect,
    )
    .option('--transfer-requirements <list>', 'requirements, e.g. kyc,aml,title_verification', collect)

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
    fileOption(
      jurisdictionFlags(
        j
          .command('register')
          .description('Register a jurisdiction')
          .option('--id <jurisdiction_id>', 'short code, e.g. US'),
      ),
    ),
    [
      'rwa jurisdictions register --id US --name "United States" --regulatory-body SEC --frameworks "Reg D" --transfer-requirements kyc,aml',
      'rwa jurisdictions register --file us.json',
    ],
  ).action(async (o, c) => (await load()).register(o, c))
  examples(
    fileOption(
      jurisdictionFlags(
        j
          .command('update')
          .description('Change a jurisdiction; fields not given keep their current values')
          .argument('<jurisdiction_id>'),
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
  examples(
    pageOptions(
      trust
        .command('list')
        .description('List trust relations')
        .option('--status <status>', 'active or revoked')
        .option('--jurisdiction <id>', 'relations with this jurisdiction at either end'),
    ),
    ['rwa trust list', 'rwa trust list --jurisdiction US --status active'],
  ).action(async (o, c) => (await loadTrust()).list(o, c))
  examples(
    fileOption(
      trust
        .command('establish')
        .description('Trust from one jurisdiction to another: transfers may go FROM -> TO')
        .option('--from <jurisdiction_id>', 'source jurisdiction')
        .option('--to <jurisdiction_id>', 'target jurisdiction')
        .option('--mutual', 'trust in both directions'),
    ),
    ['rwa trust establish --from US --to SG --mutual'],
  ).action(async (o, c) => (await loadTrust()).establish(o, c))
  examples(
    trust
      .command('revoke')
      .description('Revoke the trust from one jurisdiction to another')
      .option('--from <jurisdiction_id>', 'source jurisdiction')
      .option('--to <jurisdiction_id>', 'target jurisdiction'),
    ['rwa trust revoke --from US --to SG --yes'],
  ).action(async (o, c) => (await loadTrust()).revoke(o, c))

  const loadCred = () => import('../commands/credentials.js')
  const cred = program.command('credentials').description('Issue and revoke property credentials')
  examples(
    pageOptions(
      cred
        .command('list')
        .description('List credentials')
        .option('--jurisdiction <id>', 'issued by this jurisdiction')
        .option('--owner-did <did>', 'owned by this DID')
        .option('--status <status>', 'active or revoked'),
    ),
    ['rwa credentials list --jurisdiction US', 'rwa credentials list --owner-did did:web:acme:alice --json'],
  ).action(async (o, c) => (await loadCred()).list(o, c))
  examples(cred.command('get').description('Show a credential').argument('<credential_id>'), [
    'rwa credentials get cred_01JD...',
  ]).action(async (id, o, c) => (await loadCred()).get(id, o, c))
  examples(
    fileOption(
      cred
        .command('issue')
        .description('Issue a PropertyOwnership credential, signed by the jurisdiction')
        .option('--jurisdiction <id>', 'issuing jurisdiction')
        .option('--owner-did <did>', 'owner, did:<method>:<organization>:<owner>')
        .option('--address <address>', 'location of the property')
        .option('--type <type>', 'kind of property, e.g. commercial')
        .option('--value-usd <number>', 'value in US dollars')
        .option('--title-deed <ref>', 'title deed reference')
        .option('--valid-until <timestamp>', 'end of validity (ISO 8601)'),
    ),
    [
      'rwa credentials issue --jurisdiction US --owner-did did:web:acme:alice --address "1 Main St, Austin TX" --type commercial --value-usd 2500000 --title-deed TX-2024-001',
    ],
  ).action(async (o, c) => (await loadCred()).issue(o, c))
  examples(
    cred
      .command('revoke')
      .description('Revoke a credential; tokens backed by it can no longer be transferred')
      .argument('<credential_id>')
      .option('--reason <text>', 'why it is revoked'),
    ['rwa credentials revoke cred_01JD... --reason "title disputed" --yes'],
  ).action(async (id, o, c) => (await loadCred()).revoke(id, o, c))
  examples(
    cred
      .command('verify')
      .description(
        "Verify a credential's VC-JWT offline: signature by its issuer's did:key, validity, and the record around it",
      )
      .argument(
        '<credential>',
        'a credential id (cred_...; att_... for an attestation), a saved record or VC-JWT file, or - for stdin',
      ),
    [
      'rwa credentials verify cred_01JD...',
      'rwa credentials get cred_01JD... --json > credential.json && rwa credentials verify credential.json',
    ],
  ).action(async (id, o, c) => (await loadCred()).verify(id, o, c))

  examples(
    cred
      .command('status')
      .description('Is it revoked? Checked as any verifier would, through its public status list')
      .argument(
        '<credential>',
        'a credential or attestation id, a file holding one (or its vc_jwt), or - for stdin',
      ),
    [
      'rwa credentials status cred_01JD...',
      'rwa credentials get cred_01JD... --json | rwa credentials status -',
    ],
  ).action(async (p, o, c) => (await loadCred()).status(p, o, c))

  const loadAtt = () => import('../commands/attestations.js')
  const att = program.command('attestations').description('Submit and read regulatory attestations')
  examples(
    pageOptions(
      att
        .command('list')
        .description('List attestations')
        .option('--jurisdiction <id>', 'issued by this jurisdiction')
        .option('--credential-id <id>', 'about this credential')
        .option('--subject-did <did>', 'about this subject')
        .option('--type <requirement>', 'of this type, e.g. kyc'),
    ),
    ['rwa attestations list --subject-did did:web:acme:bob'],
  ).action(async (o, c) => (await loadAtt()).list(o, c))
  examples(att.command('get').description('Show an attestation').argument('<attestation_id>'), [
    'rwa attestations get att_01JD...',
  ]).action(async (id, o, c) => (await loadAtt()).get(id, o, c))
  examples(
    fileOption(
      att
        .command('submit')
        .description('Submit a regulatory attestation, signed by the jurisdiction')
        .option('--jurisdiction <id>', 'issuing jurisdiction')
        .option('--subject-did <did>', 'who it is about')
        .option('--type <requirement>', 'the requirement it satisfies, e.g. kyc')
        .option('--attester <name>', 'who performed the check')
        .option('--credential-id <id>', 'the credential it concerns (required for title_verification)')
        .option('--evidence <ref>', 'reference to the evidence')
        .option('--valid-until <timestamp>', 'end of validity (ISO 8601)'),
    ),
    [
      'rwa attestations submit --jurisdiction SG --subject-did did:web:acme:bob --type kyc --attester "Onfido"',
    ],
  ).action(async (o, c) => (await loadAtt()).submit(o, c))

  const loadTok = () => import('../commands/tokens.js')
  const tok = program
    .command('tokens')
    .description('Tokenize credentialed assets, and act as their agent: pause, freeze, force, recover, rules')
  examples(
    pageOptions(
      tok
        .command('list')
        .description('List tokens')
        .option('--jurisdiction <id>', "in this credential's jurisdiction")
        .option('--owner-did <did>', 'owned by this DID')
        .option('--status <status>', 'active, paused or frozen'),
    ),
    ['rwa tokens list'],
  ).action(async (o, c) => (await loadTok()).list(o, c))
  examples(
    tok
      .command('get')
      .description('Show a token, its holdings and governance history')
      .argument('<token_id>'),
    ['rwa tokens get tok_01JD...'],
  ).action(async (id, o, c) => (await loadTok()).get(id, o, c))
  examples(
    fileOption(
      tok
        .command('create')
        .description('Tokenize the asset of an active credential (once per credential)')
        .option('--credential-id <id>', 'credential of the asset')
        .option('--total-supply <n>', 'number of whole units')
        .option('--symbol <symbol>', 'ticker, 1–12 upper-case letters or digits'),
    ),
    ['rwa tokens create --credential-id cred_01JD... --total-supply 1000 --symbol AUSTIN1'],
  ).action(async (o, c) => (await loadTok()).create(o, c))

  const loadGov = () => import('../commands/token-governance.js')
  const reason = (command: Command) => command.option('--reason <text>', 'why (kept in the token history)')
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
    reason(
      tok
        .command('pause')
        .description('Pause a token: every transfer is refused until unpaused')
        .argument('<token_id>'),
    ),
    ['rwa tokens pause tok_01JD... --reason "corporate action"'],
  ).action(async (id, o, c) => (await loadGov()).pause(id, o, c))
  examples(reason(tok.command('unpause').description('Unpause a paused token').argument('<token_id>')), [
    'rwa tokens unpause tok_01JD...',
  ]).action(async (id, o, c) => (await loadGov()).unpause(id, o, c))
  const freezeFlags = (command: Command) =>
    reason(
      command
        .argument('<token_id>')
        .option('--holder-did <did>', 'the holder')
        .option('--jurisdiction <id>', 'the holding whose units are (un)frozen (with --amount)')
        .option('--amount <n>', 'units of that holding; without it the whole holder'),
    )
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
      tok
        .command('holdings')
        .description('Holdings of a token with their frozen units')
        .argument('<token_id>')
        .option('--holder-did <did>', 'of this holder')
        .option('--jurisdiction <id>', 'in this jurisdiction'),
    ),
    [
      'rwa tokens holdings tok_01JD...',
      'rwa tokens holdings tok_01JD... --holder-did did:web:lion:bob --json',
    ],
  ).action(async (id, o, c) => (await loadGov()).holdings(id, o, c))
  examples(
    fileOption(
      tok
        .command('force-transfer')
        .description(
          'Move units by authority (bypasses requirements, rules, freezes, pause); the recipient needs kyc',
        )
        .argument('<token_id>')
        .option('--from-did <did>', 'whose units are taken')
        .option('--from <jurisdiction_id>', 'where they are held')
        .option('--to-did <did>', 'who receives them')
        .option('--to <jurisdiction_id>', 'where they go')
        .option('--amount <n>', 'whole units')
        .option('--reason <text>', 'the authority, e.g. a court order (required)'),
    ),
    [
      'rwa tokens force-transfer tok_01JD... --from-did did:web:lion:bob --from SG --to-did did:web:acme:alice --to US --amount 100 --reason "court order 2026-77" --yes',
    ],
  ).action(async (id, o, c) => (await loadGov()).forceTransfer(id, o, c))
  examples(
    tok
      .command('recover')
      .description("Move a lost identity's holdings and freezes to a new DID that holds kyc where they are")
      .argument('<token_id>')
      .option('--lost-did <did>', 'the lost identity')
      .option('--new-did <did>', 'the new identity')
      .option('--reason <text>', 'why (required)'),
    [
      'rwa tokens recover tok_01JD... --lost-did did:web:lion:bob --new-did did:web:lion:bob2 --reason "lost keys" --yes',
    ],
  ).action(async (id, o, c) => (await loadGov()).recover(id, o, c))
  const rules = tok.command('rules').description("A token's transfer rules")
  examples(
    reason(
      fileOption(
        rules
          .command('set')
          .description(
            'Change rules: the flags given change those rules, the others stay; --file replaces all',
          )
          .argument('<token_id>')
          .option('--max-balance-per-holder <n>', "cap on a recipient's total across jurisdictions")
          .option(
            '--max-holders <n|J=N,...>',
            'cap on holders in the target jurisdiction: one number, or per jurisdiction',
          )
          .option('--lockup-until <timestamp>', 'before this instant only forced transfers move the token')
          .option('--max-transfer-amount <n>', 'largest amount of one transfer')
          .option('--daily-volume-per-holder <n>', "cap on a sender's approved volume per UTC day")
          .option('--clear <names>', 'clear these rules (comma-separated or repeated)', collect),
      ),
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
  examples(
    pageOptions(
      tx
        .command('list')
        .description('List transfers')
        .option('--token-id <id>', 'of this token')
        .option('--status <status>', 'approved, rejected or forced')
        .option('--jurisdiction <id>', 'with this jurisdiction as source or target'),
    ),
    ['rwa transfers list --status rejected'],
  ).action(async (o, c) => (await loadTx()).list(o, c))
  examples(
    tx.command('get').description('Show a transfer with its compliance proof').argument('<transfer_id>'),
    ['rwa transfers get tx_01JD...'],
  ).action(async (id, o, c) => (await loadTx()).get(id, o, c))
  examples(
    fileOption(
      tx
        .command('request')
        .description('Request a transfer; exits 6 when compliance rejects it')
        .option('--token-id <id>', 'token to move')
        .option('--from <jurisdiction_id>', 'source jurisdiction')
        .option('--to <jurisdiction_id>', 'target jurisdiction')
        .option('--recipient-did <did>', 'recipient')
        .option('--amount <n>', 'whole units to move')
        .option('--sender-did <did>', "whose holding moves (default the token's owner)"),
    ),
    [
      'rwa transfers request --token-id tok_01JD... --from US --to SG --recipient-did did:web:acme:bob --amount 100',
    ],
  ).action(async (o, c) => (await loadTx()).request(o, c))

  examples(
    fileOption(
      tx
        .command('check')
        .description(
          'Would this transfer be approved now? Records nothing; exits 6 when it would be rejected',
        )
        .option('--token-id <id>', 'token to move')
        .option('--from <jurisdiction_id>', 'source jurisdiction')
        .option('--to <jurisdiction_id>', 'target jurisdiction')
        .option('--recipient-did <did>', 'recipient')
        .option('--amount <n>', 'whole units to move')
        .option('--sender-did <did>', "whose holding moves (default the token's owner)"),
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
    proofs
      .command('verify')
      .description(
        "Recompute a proof's digest and check its signature, with the keys of --jwks FILE (offline) or the server's",
      )
      .argument(
        '<proof>',
        'a proof id (prf_...), a file holding a proof or a transfer detail, or - for stdin',
      )
      .option(
        '--jwks <file>',
        'the service keys saved with `rwa proofs jwks`: verify with no network at all',
      ),
    [
      'rwa proofs verify prf_01JD...',
      'rwa proofs jwks > jwks.json && rwa proofs get prf_01JD... --json > proof.json',
      'rwa proofs verify proof.json --jwks jwks.json     # offline: no server needed',
      'rwa transfers get tx_01JD... --json | rwa proofs verify - --jwks jwks.json -q && echo holds',
    ],
  ).action(async (p, o, c) => (await loadProofs()).verify(p, o, c))
  examples(
    proofs
      .command('jwks')
      .description("Print the service's public proof keys (JWKS), to save for offline verification"),
    ['rwa proofs jwks > jwks.json'],
  ).action(async (o, c) => (await loadProofs()).jwks(o, c))

  examples(
    program
      .command('apply')
      .description('Apply a manifest of jurisdictions, trust, credentials and attestations (idempotent)')
      .requiredOption('-f, --file <file>', 'manifest, JSON or YAML; - for stdin')
      .option('--dry-run', 'show what would change and change nothing'),
    [
      'rwa apply -f governance.yaml --dry-run',
      'rwa apply -f governance.yaml',
      'cat governance.json | rwa apply -f -',
    ],
  ).action(async (o, c) => (await import('../commands/apply.js')).apply(o, c))
}
