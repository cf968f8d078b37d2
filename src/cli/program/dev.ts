import type { Command } from 'commander'
import { examples } from './help.js'

/*
 * `rwa dev`: tools for trying rwa on this machine. `rwa dev issuer` is a KYC provider on loopback
 * (src/cli/commands/dev-issuer.ts): `start` (also what `rwa dev issuer` alone runs) serves it, the other
 * commands change or show it from another shell.
 */
export function declareDev(program: Command): void {
  const load = () => import('../commands/dev-issuer.js')
  const dev = program.command('dev').description('Tools for trying rwa on this machine')
  const issuer = dev
    .command('issuer')
    .description(
      'A local test issuer (a KYC provider): a did:web on 127.0.0.1 with its revocation and suspension lists',
    )
  const dirOption = (command: Command) =>
    command.option(
      '--dir <dir>',
      "the issuer's directory: its keys, what it issued, its lists (env RWA_DEV_ISSUER_DIR, default $XDG_CONFIG_HOME/rwa/dev-issuer)",
    )

  examples(
    dirOption(
      issuer
        .command('start', { isDefault: true })
        .description(
          'Serve the issuer over http on 127.0.0.1 until Ctrl-C (made on first start; `rwa dev issuer` alone runs this)',
        )
        .option(
          '--port <port>',
          'port to listen on; the DID names it (did:web:127.0.0.1%3A4610), so keep it (default: the one used before, else 4610; 0 picks a free one)',
        ),
    ),
    ['rwa dev issuer start', 'rwa dev issuer start --port 0 --dir ./issuer --json'],
  ).action(async (o, c) => (await load()).start(o, c))

  examples(
    dirOption(
      issuer
        .command('issue')
        .description(
          'Issue a VC-JWT (EdDSA, with revocation and suspension entries); prints it alone on stdout',
        )
        .option('--subject <did>', 'the DID the credential is about (required)')
        .option(
          '--type <type>',
          'a VC type besides VerifiableCredential; repeat (or comma-separate) for several (default KYCCredential)',
          (value: string, previous: string[] = []) => [...previous, value],
        )
        .option('--valid-for <duration>', 'how long it is valid from now: 30d, 12h, 90s (default 30d)'),
    ),
    [
      'rwa dev issuer issue --subject did:web:acme:bob --type KYCCredential > bob.jwt',
      'rwa dev issuer issue --subject did:web:acme:bob --valid-for 1h | rwa attestations submit --vc -',
    ],
  ).action(async (o, c) => (await load()).issue(o, c))

  const changes = [
    ['revoke', 'Revoke a credential it issued, for good (its bit in the revocation list)'],
    ['suspend', 'Suspend a credential it issued (its bit in the suspension list) until `reinstate`'],
    ['reinstate', 'Reinstate a suspended credential (clears its suspension bit)'],
  ] as const
  for (const [name, description] of changes) {
    examples(
      dirOption(
        issuer
          .command(name)
          .description(description)
          .argument('<id>', 'its id as `issue` and `show` print it (vc-1), or the VC id (urn:uuid:…)'),
      ),
      [`rwa dev issuer ${name} vc-1`],
    ).action(async (id, o, c) => (await load()).change(name)(id, o, c))
  }

  examples(
    dirOption(
      issuer
        .command('rotate-key')
        .description(
          'Sign with a new key from now on; the old keys leave the DID document (a server retires them and keeps verifying what they signed)',
        )
        .option(
          '--form <form>',
          'jwk or multikey: how the document lists the new key (default: the other form)',
        ),
    ),
    ['rwa dev issuer rotate-key'],
  ).action(async (o, c) => (await load()).rotateKey(o, c))

  examples(
    dirOption(
      issuer
        .command('show')
        .description('Show the DID, its keys and the credentials it issued, with their state'),
    ),
    ['rwa dev issuer show', 'rwa dev issuer show --json'],
  ).action(async (o, c) => (await load()).show(o, c))
}
