import type { Command } from 'commander'
import { SERVER_SETTINGS, serverSettingsHelp } from '../../contract/server-settings.js'
import { examples } from './help.js'
import { declareOperation } from './operation-command.js'

/** Commands that work on this machine: the server, the sandbox, the console, profiles, completion, version. */
export function declareLocal(program: Command, version: string): void {
  const server = program.command('server').description('Run the rwa server')
  const start = server
    .command('start')
    .description(
      'Start the server over SQLite, or over PostgreSQL and Redis as one of several instances (binds the port first: a busy port creates nothing)',
    )
  for (const setting of SERVER_SETTINGS) {
    if (setting.flag) {
      const byDefault = setting.default === undefined ? '' : `, default ${setting.default}`
      start.option(setting.flag, `${setting.description} (env ${setting.env}${byDefault})`)
    }
  }
  start.addHelpText('after', serverSettingsHelp())
  examples(start, [
    'rwa server start',
    'rwa server start --port 8080 --db /var/lib/rwa/rwa.db',
    'rwa server start --database-url postgres://rwa@db:5432/rwa --redis-url redis://cache:6379',
    'RWA_ADMIN_KEY=rwa_live_... rwa server start --port 0    # CI: a known admin key, any free port',
  ]).action(async (options) => (await import('../commands/server.js')).serverStart(options))

  declareOperation(server, 'rotate-signing-key', {
    operation: 'rotateSigningKey',
    description:
      'Rotate the proof-signing key of the server at --url / RWA_URL (admin key): new proofs carry the new kid; the retired key stays in the JWKS and trust bundles, so older proofs verify',
    examples: [
      'rwa server rotate-signing-key --reason "yearly rotation"',
      'RWA_URL=https://rwa.example.com RWA_API_KEY=$ADMIN_KEY rwa server rotate-signing-key --json',
    ],
    run: async () => (await import('../commands/signing-keys.js')).rotate,
  })

  examples(
    program
      .command('sandbox')
      .description('Start a local server on a temporary (or given) database; --demo seeds an example')
      .option(
        '--demo',
        'seed three jurisdictions, trust, credentials, attestations, a token and two transfers',
      )
      .option(
        '--db <path>',
        'SQLite database file (env RWA_DB; default: a new temporary one, deleted on exit)',
      )
      .option('--host <host>', 'interface to listen on (env RWA_HOST, default 127.0.0.1)')
      .option('--port <port>', 'port to listen on; 0 picks a free one (env RWA_PORT, default 4600)')
      .option(
        '--log-level <level>',
        'server log on stderr: warn keeps the terminal for the connection lines; info logs each request (env RWA_LOG_LEVEL, default warn)',
      )
      .option(
        '--url-file <file>',
        'write the URL into this file once ready (demo seeded), removed on exit (env RWA_URL_FILE)',
      )
      .option(
        '--master-key-file <path>',
        'file holding the master key the signing keys are encrypted under (env RWA_MASTER_KEY_FILE, or RWA_MASTER_KEY; default: <db>.master-key)',
      ),
    ['rwa sandbox --demo', 'rwa sandbox --port 0 --db ./sandbox.db', 'rwa sandbox --log-level info'],
  ).action(async (o, c) => (await import('../commands/sandbox.js')).sandbox(o, c))

  examples(
    program
      .command('ui')
      .description(
        'Open the console (a web UI) of the server at --url / RWA_URL in a browser; sign in there with an API key (the URL never carries one)',
      )
      .option('--no-open', 'only print the URL'),
    [
      'rwa ui',
      'RWA_URL=https://rwa.example.com rwa ui',
      'rwa ui --no-open    # prints http://127.0.0.1:4600/console/ui/',
    ],
  ).action(async (o, c) => (await import('../commands/ui.js')).ui(o, c))

  const loadConfig = () => import('../commands/config.js')
  const config = program
    .command('config')
    .description('Manage connection profiles ($XDG_CONFIG_HOME/rwa/config.json, mode 0600)')
  examples(
    config
      .command('set')
      .description('Save --url and an API key (--api-key-file, --api-key-stdin or --api-key) as a profile')
      .argument('<profile>', 'profile name')
      .option('--use', 'also make it the profile in use'),
    [
      'rwa config set local --url http://127.0.0.1:4600 --api-key-file ~/.rwa-key',
      'pass show rwa/prod | rwa config set prod --url https://rwa.example.com --api-key-stdin --use',
    ],
  ).action(async (name, o, c) => (await loadConfig()).set(name, o, c))
  examples(config.command('use').description('Use a profile when none is named').argument('<profile>'), [
    'rwa config use prod',
  ]).action(async (name, o, c) => (await loadConfig()).use(name, o, c))
  examples(config.command('list').description('List profiles (keys masked)'), ['rwa config list']).action(
    async (o, c) => (await loadConfig()).list(o, c),
  )
  examples(
    config.command('show').description('Show the connection in effect and where each part comes from'),
    ['rwa config show', 'RWA_PROFILE=prod rwa config show --json'],
  ).action(async (o, c) => (await loadConfig()).show(o, c))
  examples(config.command('remove').description('Remove a profile').argument('<profile>'), [
    'rwa config remove old --yes',
  ]).action(async (name, o, c) => (await loadConfig()).remove(name, o, c))
  examples(config.command('path').description('Print the path of the profiles file'), [
    'rwa config path',
  ]).action(async (o, c) => (await loadConfig()).path(o, c))

  examples(
    program
      .command('completion')
      .description('Print a shell completion script')
      .argument('<shell>', 'bash or zsh'),
    ['source <(rwa completion bash)', "echo 'source <(rwa completion zsh)' >> ~/.zshrc"],
  ).action(async (shell, o, c) => (await import('../commands/completion.js')).completion(shell, o, c))

  examples(program.command('version').description('Print the CLI version'), [
    'rwa version',
    'rwa version --json',
  ]).action((_options, command: Command) => {
    const json = command.optsWithGlobals<{ json?: boolean }>().json === true
    process.stdout.write(json ? `${JSON.stringify({ version }, null, 2)}\n` : `${version}\n`)
  })
}
