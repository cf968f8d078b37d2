import type { Command } from 'commander'
import { AUDIT } from '../flags/audit.js'
import { declareFlags as flags } from '../flags/flag.js'
import { examples, pageOptions } from './help.js'

/** `rwa audit`: the organization's audit log (GET /console/audit). */
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
}
