import type { Command } from 'commander'
import { KEYS, SUBSCRIPTION, USAGE } from '../flags/billing.js'
import { declareFlags as flags } from '../flags/flag.js'
import { examples, fileOption } from './help.js'

/** `rwa keys`, `rwa subscription`, `rwa usage`, `rwa pricing`, `rwa stats`. */
export function declareBilling(program: Command): void {
  const keys = program.command('keys').description('Create, list, reroll and revoke API keys')
  examples(
    flags(keys.command('list').description('List the API keys of an organization (masked)'), KEYS.list),
    ['rwa keys list', 'rwa keys list --org acme --json'],
  ).action(async (o, c) => (await import('../commands/keys.js')).list(o, c))
  examples(
    fileOption(
      flags(
        keys
          .command('create')
          .description('Create an API key; the raw key is printed once and cannot be retrieved again'),
        KEYS.create,
      ),
    ),
    [
      'rwa keys create --name ci',
      'rwa keys create --name ci --role transfers --expires-in 24h',
      'rwa keys create --org acme --name "acme ops" --trial --json | jq -r .api_key',
    ],
  ).action(async (o, c) => (await import('../commands/keys.js')).create(o, c))
  examples(
    keys
      .command('revoke')
      .description('Revoke an API key for good')
      .argument('<key_id>', 'key to revoke (key_...)'),
    ['rwa keys revoke key_01JD3Q... --yes'],
  ).action(async (id, o, c) => (await import('../commands/keys.js')).revoke(id, o, c))
  examples(
    flags(
      keys
        .command('reroll')
        .description(
          'Replace a key by a new one with the same name, roles and expiry; the old one works for --overlap',
        )
        .argument('<key_id>', 'key to replace (key_...)'),
      KEYS.reroll,
    ),
    [
      'rwa keys reroll key_01JD3Q... --overlap 1h --json | jq -r .api_key',
      'rwa keys reroll key_01JD3Q... --yes',
    ],
  ).action(async (id, o, c) => (await import('../commands/keys.js')).reroll(id, o, c))
  examples(
    program.command('whoami').description('Show the key in use: its organization, roles, tier and expiry'),
    ['rwa whoami', 'rwa whoami --json | jq -r .roles[]'],
  ).action(async (o, c) => (await import('../commands/keys.js')).whoami(o, c))

  const subscription = program
    .command('subscription')
    .description("Show or set an organization's subscription")
  examples(
    flags(
      subscription
        .command('get')
        .description('Show the subscription, tier and limits in force')
        .argument('[org_id]', "organization (default: the key's own)"),
      SUBSCRIPTION.get,
    ),
    ['rwa subscription get', 'rwa subscription get acme --json'],
  ).action(async (org, o, c) => (await import('../commands/subscription.js')).get(org, o, c))
  examples(
    fileOption(
      flags(
        subscription
          .command('set')
          .description('Set the tier of an organization (admin key; normally done by the payment webhook)'),
        SUBSCRIPTION.set,
      ),
    ),
    ['rwa subscription set --org acme --tier pro'],
  ).action(async (o, c) => (await import('../commands/subscription.js')).set(o, c))

  examples(
    flags(program.command('usage').description('Show request and DID usage per day and in total'), USAGE),
    ['rwa usage', 'rwa usage --days 7 --json'],
  ).action(async (o, c) => (await import('../commands/reports.js')).usage(o, c))
  examples(program.command('pricing').description('Show the pricing tiers (public, no key needed)'), [
    'rwa pricing',
    'rwa pricing --json | jq .tiers.pro',
  ]).action(async (o, c) => (await import('../commands/reports.js')).pricing(o, c))
  examples(program.command('stats').description('Show key counts by tier (admin key)'), ['rwa stats']).action(
    async (o, c) => (await import('../commands/reports.js')).stats(o, c),
  )
}
