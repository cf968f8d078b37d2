import { Command, CommanderError } from 'commander'
import { EXIT, ExitError } from './exit-error.js'
import { declareApprovals } from './program/approvals.js'
import { declareAudit } from './program/audit.js'
import { declareEvents } from './program/events.js'
import { declareBilling } from './program/billing.js'
import { declareGovernance } from './program/governance.js'
import { declareIdentities } from './program/identities.js'
import { declareIssuers } from './program/issuers.js'
import { formatHelp } from './program/help.js'
import { declareLocal } from './program/local.js'
import { declareTokens } from './program/tokens.js'

const VERSION = '0.1.0'

/** The exit codes as `rwa --help` shows them (also in docs/cli.md). */
export const EXIT_CODES_HELP = `
Exit codes (from a refusal's code and reason, never its wording; docs/cli.md):
  0  ok
  1  unexpected error, or an answer no rwa server gives (a --url that is another server: a web
     page, another API, not HTTP, plain http asked for https)
  2  usage or validation error (bad flags, missing input, unknown profile, invalid request, a --url
     of an rwa server without that path)
  3  authentication or permission (no/unknown/revoked key, forbidden, plan required)
  4  not found (a record the server does not have)
  5  conflict or limit (already exists, in use, quota or rate limit)
  6  transfer rejected by compliance
  7  cannot reach the server, or it cannot reach a service it needs (503)
  8  a verification does not hold: bad signature, untrusted issuer, tampered record,
     revoked, stale or missing status
130  interrupted (Ctrl-C at a prompt)

Output: tables fitted to the terminal; tab-separated values with a header line when stdout is not a
terminal; --json for the API's JSON; -q for ids only, one a line (nothing for commands without ids:
the exit code is the answer).

Connection: --url/RWA_URL (default http://127.0.0.1:4600), --api-key-file/--api-key-stdin/--api-key/
RWA_API_KEY, --profile/RWA_PROFILE. A flag wins over the environment, which wins over the profile.

Examples:
  $ rwa sandbox --demo
  $ export RWA_URL=http://127.0.0.1:4600 RWA_API_KEY=rwa_live_...
  $ rwa jurisdictions list
  $ rwa transfers request --token-id tok_... --from US --to SG --recipient-did did:web:acme:bob --amount 10
`

/** Declares every command; each action lazy-imports its module, so `--help` loads nothing else. */
export function buildProgram(): Command {
  const program = new Command('rwa')
    .description('Govern tokenized real-world assets across jurisdictions, and manage rwa billing.')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true, formatHelp })
    .exitOverride()
    .option('--url <url>', 'server URL (env RWA_URL, default http://127.0.0.1:4600)')
    .option('--api-key <key>', 'API key (env RWA_API_KEY); prefer --api-key-file or --api-key-stdin')
    .option('--api-key-file <path>', 'read the API key from a file')
    .option('--api-key-stdin', 'read the API key from stdin')
    .option('--profile <name>', 'use a saved profile (env RWA_PROFILE)')
    .option('--json', "print the API's JSON exactly, for scripts")
    .option('--no-color', 'no colors (also NO_COLOR, TERM=dumb, or when stdout is not a terminal)')
    .option('--no-input', 'never prompt; fail listing missing flags instead')
    .option('-y, --yes', 'confirm destructive actions (revoke, remove) without asking')
    .option('-q, --quiet', 'print only ids, one a line (for xargs); no messages but warnings and errors')
    .option('--wait', 'on a rate limit (429), wait for Retry-After and try again, saying so on stderr')
    .option('--wait-max <seconds>', 'with --wait, wait at most this long in all (default 120)')
    .option(
      '--idempotency-key <key>',
      'Idempotency-Key of the POST (later POSTs of the command: KEY-2, KEY-3...): run again with it, the server replays the answers instead of acting twice',
    )
    .option('--verbose', 'on errors, print the request id and the full problem details')
    .addHelpText('after', EXIT_CODES_HELP)

  declareBilling(program)
  declareGovernance(program)
  declareIssuers(program)
  declareIdentities(program)
  declareTokens(program)
  declareApprovals(program)
  declareAudit(program)
  declareEvents(program)
  declareLocal(program, VERSION)
  return program
}

/** The one place that turns failures into a message on stderr and an exit code. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram()
  // `rwa ... | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
    process.exit(process.exitCode ?? EXIT.ok)
  })
  try {
    await program.parseAsync(argv)
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed help, the version or the usage error.
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage
      return
    }
    // Only a failure needs the code that words failures: `rwa --help` does not load it.
    const { describeFailure, isPromptClosed } = await import('./failure.js')
    if (isPromptClosed(error)) {
      // Ctrl-C at a prompt: quiet, and the shell's convention for an interrupt (128 + SIGINT).
      process.exitCode = EXIT.interrupted
      return
    }
    const failure = describeFailure(error)
    // A refusal quotes stored text (names, ids): its control characters and bidi overrides are escaped.
    const { escapeExceptStyles: shown } = await import('../text/escape.js')
    process.stderr.write(`error: ${shown(failure.message)}\n`)
    if (failure.hint) process.stderr.write(`hint: ${shown(failure.hint)}\n`)
    if (program.opts().verbose && failure.details) process.stderr.write(`${shown(failure.details)}\n`)
    process.exitCode = failure.code
  }
}

export { ExitError }
