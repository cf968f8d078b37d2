import type { Command } from 'commander'
import { AUDIT } from '../flags/audit.js'
import { declareFlags as flags } from '../flags/flag.js'
import { examples, pageOptions } from './help.js'

/** `rwa audit`: the organization's audit log (GET /console/audit), its export and verification; `rwa log verify`, `rwa log inclusion`. */
export function declareAudit(program: Command): void {
  const load = () => import('../commands/audit.js')
  const audit = program.command('audit').description('Who changed what: the audit log of every write')
  examples(
    pageOptions(flags(audit.command('list').description('List audit events, newest first'), AUDIT.list)),
    [
      'rwa audit list',
      'rwa audit list --action jurisdiction.updated --target-id US',
      'rwa audit list --since 2026-11-22T00:00:00Z --all --json',
    ],
  ).action(async (o, c) => (await load()).list(o, c))
  examples(
    flags(
      audit
        .command('tail')
        .description('Print the latest events, then each new one as it is recorded (Ctrl-C stops)')
        .option('--interval <seconds>', 'seconds between two polls (default 2)')
        .option('-n, --lines <n>', 'latest events printed first (default 10)'),
      AUDIT.tail,
    ),
    ['rwa audit tail', 'rwa audit tail --action transfer.forced --json'],
  ).action(async (o, c) => (await load()).tail(o, c))

  // The verifiable log (docs/governance.md, "The verifiable log").
  const loadLog = () => import('../commands/audit-log.js')
  examples(
    audit
      .command('export')
      .description(
        'Write a self-contained audit bundle: two signed checkpoints (before and after the records were read), every log entry, credential, attestation, transfer and proof, the status lists and the trust bundle (JSON files)',
      )
      .requiredOption('--out <dir>', 'the directory to write the bundle to (created if missing)'),
    ['rwa audit export --out audit-2026-11'],
  ).action(async (o, c) => (await loadLog()).auditExport(o, c))
  examples(
    audit
      .command('verify')
      .description(
        "Verify an audit bundle offline: the checkpoints' signatures, the entries rebuilding their roots, every record's entry, every proof, credential, attestation and status list signed by a key of the trust bundle and equal to its record, revocations the same in records, lists and log; exit 8 if anything does not hold",
      )
      .argument('<dir>', 'a directory written by rwa audit export')
      .option(
        '--trust <file>',
        'a trust bundle obtained apart from the export: pins the log key, the proof keys and the issuers',
      )
      .option(
        '--accept-window',
        'accept a bundle that is not a snapshot (the log grew while it was exported): the entries logged between its two signed checkpoints are named, and a revocation among them not refused',
      ),
    ['rwa audit verify audit-2026-11 --trust trust.json'],
  ).action(async (d, o, c) => (await loadLog()).auditVerify(d, o, c))
  const log = program.command('log').description("The organization's verifiable log of audit events")
  examples(
    log
      .command('verify')
      .description(
        'Verify the server\'s latest checkpoint: signed by the pinned log key and consistent with the last one this machine saw of the log it signs (kept under $XDG_STATE_HOME/rwa); exit 8 "log rewritten" otherwise',
      )
      .option(
        '--trust <file>',
        "a trust bundle whose log key to pin (default: the key seen at this log's first verify)",
      )
      .option('--org <org_id>', "another organization's log (admin key)"),
    ['rwa log verify', 'rwa log verify --trust trust.json'],
  ).action(async (o, c) => (await loadLog()).logVerify(o, c))
  const loadInclusion = () => import('../commands/log-inclusion.js')
  examples(
    log
      .command('inclusion')
      .description(
        "The proof that the event at a log position (its log_index) is in a checkpoint's tree, checked to lead to that tree's root (exit 8 when it does not)",
      )
      .requiredOption('--index <n>', "the event's log position (log_index)")
      .option('--tree-size <n>', "the checkpoint's tree size (default: the latest checkpoint's)")
      .option('--org <org_id>', "another organization's log (admin key)"),
    ['rwa log inclusion --index 41', 'rwa log inclusion --index 41 --tree-size 120 --json'],
  ).action(async (o, c) => (await loadInclusion()).logInclusion(o, c))
}
