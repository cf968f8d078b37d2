import type { Command } from 'commander'
import { covers } from './operation-command.js'
import { examples } from './help.js'

/*
 * The governance commands that are more than one call of one operation: verifying as an auditor would,
 * importing a CSV file, applying a manifest. Each says which operations it covers (`covers`), field by
 * field, so that the coverage test (test/cli/command-coverage.test.ts) knows how they are given.
 */

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

/** `rwa credentials verify` and `rwa credentials status`. */
export function verifyCommands(cred: Command): void {
  const load = () => import('../commands/credentials.js')
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
  ).action(async (id, o, c) => (await load()).verify(id, o, c))

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
  ).action(async (p, o, c) => (await load()).status(p, o, c))
}

/** `rwa proofs verify`. */
export function proofVerifyCommand(proofs: Command): void {
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
  ).action(async (p, o, c) => (await import('../commands/proofs.js')).verify(p, o, c))
}

/**
 * `rwa <group> import FILE.csv`: rows as batches of up to 1,000 (docs/batches.md, "Imports from CSV"),
 * resumable after an interruption without doing anything twice.
 */
export function importCommand(
  group: Command,
  kind: 'credentials' | 'attestations' | 'transfers' | 'identities',
  header: string,
): void {
  const command = examples(
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
  ).action(async (file, o, c) => (await import('../commands/imports/command.js')).importCsv(kind)(file, o, c))
  covers(command, {
    batch: {
      operations: 'one operation a row of the CSV file',
      atomic: 'false: a refused row is reported and the others kept',
      dry_run: 'never',
    },
    getKeySelf: {},
  })
}

/** `rwa apply`. */
export function applyCommand(program: Command): void {
  const command = examples(
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
  covers(command, {
    batch: {
      operations: 'the changes the manifest (--file) makes',
      atomic: 'true: all or nothing',
      dry_run: '--dry-run',
    },
  })
}
