import type { Command } from 'commander'
import type { FieldOverrides } from '../flags/derive.js'
import { examples } from './help.js'
import { covers, declareOperation } from './operation-command.js'

/** `rwa audit`: the organization's audit log (GET /console/audit), its export and verification; `rwa log verify`, `rwa log inclusion`. */
export function declareAudit(program: Command): void {
  const load = () => import('../commands/audit.js')
  const audit = program.command('audit').description('Who changed what: the audit log of every write')
  const filters: FieldOverrides = {
    action: { help: 'only this action, e.g. jurisdiction.updated', example: 'jurisdiction.updated' },
    target_id: { help: 'only changes of this record (a jurisdiction, token, key... id)', example: 'US' },
    actor_key_id: { help: 'only changes made with this key', example: 'key_01JD...' },
    since: { help: 'at or after this time (ISO 8601)', example: '2026-11-22T00:00:00Z' },
    until: { help: 'before this time (ISO 8601)', example: '2026-11-23T00:00:00Z' },
    org_id: { help: "another organization's log (admin key)", example: 'acme' },
  }
  declareOperation(audit, 'list', {
    operation: 'listAuditEvents',
    description: 'List audit events, newest first',
    flags: filters,
    examples: [
      'rwa audit list',
      'rwa audit list --action jurisdiction.updated --target-id US',
      'rwa audit list --since 2026-11-22T00:00:00Z --all --json',
    ],
    run: async () => (await load()).list,
  })
  declareOperation(audit, 'tail', {
    operation: 'listAuditEvents',
    description: 'Print the latest events, then each new one as it is recorded (Ctrl-C stops)',
    // It pages by itself, from the newest event it printed.
    flags: { ...filters, limit: false, cursor: false },
    options: (c) =>
      c
        .option('--interval <seconds>', 'seconds between two polls (default 2)')
        .option('-n, --lines <n>', 'latest events printed first (default 10)'),
    examples: ['rwa audit tail', 'rwa audit tail --action transfer.forced --json'],
    run: async () => (await load()).tail,
  })

  // The verifiable log (docs/governance.md, "The verifiable log").
  const loadLog = () => import('../commands/audit-log.js')
  const exported = examples(
    audit
      .command('export')
      .description(
        'Write a self-contained audit bundle: two signed checkpoints (before and after the records were read), every log entry, credential, attestation, transfer and proof, the status lists and the trust bundle (JSON files)',
      )
      .requiredOption('--out <dir>', 'the directory to write the bundle to (created if missing)'),
    ['rwa audit export --out audit-2026-11'],
  ).action(async (o, c) => (await import('../commands/audit-export.js')).auditExport(o, c))
  covers(exported, {
    listLogEntries: {
      org_id: "none: an export is of the key's own organization",
      start: 'every entry, from 0',
      end: "to the checkpoint's tree size, 1000 at a time",
    },
    getStatusList: { list_id: 'each status list the credentials and attestations name' },
  })
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
        'accept a bundle that is not a snapshot (the log grew while it was exported): the entries logged between its two signed checkpoints are named, and the status bit of a revocation among them not refused (its record must show it)',
      )
      .option(
        '--accept-new-origin',
        "accept, unpinned, a log this machine holds under another origin (the organization's log moved to a new public URL); prefer --trust",
      ),
    ['rwa audit verify audit-2026-11 --trust trust.json'],
  ).action(async (d, o, c) => (await loadLog()).auditVerify(d, o, c))

  const log = program.command('log').description("The organization's verifiable log of audit events")
  const verify = declareOperation(log, 'verify', {
    operation: 'getLogCheckpoint',
    description:
      'Verify the server\'s latest checkpoint: signed by the pinned log key and consistent with the last one this machine saw of the log it signs (kept under $XDG_STATE_HOME/rwa); exit 8 "log rewritten" otherwise',
    flags: {
      org_id: {
        help: "the organization whose log to verify: another's (admin key), or one this machine never verified while it verifies others",
      },
    },
    options: (c) =>
      c
        .option(
          '--trust <file>',
          "a trust bundle whose log key to pin (default: the key seen at this log's first verify)",
        )
        .option(
          '--accept-new-origin',
          'pin, on first use, a log of an organization this machine holds under another origin (its log moved to a new public URL); prefer --trust',
        ),
    examples: ['rwa log verify', 'rwa log verify --trust trust.json'],
    run: async () => (await loadLog()).logVerify,
  })
  covers(verify, {
    getLogConsistencyProof: {
      org_id: '--org-id',
      from: 'the tree size of the last checkpoint this machine saw',
      to: "the latest checkpoint's tree size",
    },
  })
  declareOperation(log, 'inclusion', {
    operation: 'getLogInclusionProof',
    description:
      "The proof that the event at a log position (its log_index) is in a checkpoint's tree, checked to lead to that tree's root (exit 8 when it does not)",
    flags: {
      org_id: { help: "another organization's log (admin key)" },
      index: { help: "the event's log position (log_index)" },
      tree_size: { help: "the checkpoint's tree size (default: the latest checkpoint's)", required: false },
    },
    examples: ['rwa log inclusion --index 41', 'rwa log inclusion --index 41 --tree-size 120 --json'],
    run: async () => (await import('../commands/log-inclusion.js')).logInclusion,
  })
}
