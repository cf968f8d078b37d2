import { Command, CommanderError } from 'commander'
import { EXIT, ExitError } from './exit-error.js'

const VERSION = '0.1.0'

/** Declares every command; each action lazy-imports its module, so `--help` loads nothing else. */
export function buildProgram(): Command {
  const program = new Command('rwa')
    .description('Govern tokenized real-world assets across jurisdictions, and manage rwa billing.')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride()

  const server = program.command('server').description('Run the rwa server')
  server
    .command('start')
    .description('Start the embedded server over SQLite')
    .option('--host <host>', 'interface to listen on (env RWA_HOST, default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (env RWA_PORT, default 4600)')
    .option('--db <path>', 'SQLite database file (env RWA_DB, default ./rwa.db)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ rwa server start\n  $ rwa server start --port 8080 --db /var/lib/rwa/rwa.db\n',
    )
    .action(async (options) => (await import('./commands/server.js')).serverStart(options))

  program
    .command('version')
    .description('Print the CLI version')
    .action(() => {
      process.stdout.write(`${VERSION}\n`)
    })
  return program
}

/** The one place that turns failures into a message on stderr and an exit code. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram()
  try {
    await program.parseAsync(argv)
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed help, the version or the usage error.
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage
      return
    }
    if (error instanceof ExitError) {
      process.stderr.write(`error: ${error.message}\n`)
      if (error.hint) process.stderr.write(`hint: ${error.hint}\n`)
      process.exitCode = error.code
      return
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = EXIT.unexpected
  }
}
