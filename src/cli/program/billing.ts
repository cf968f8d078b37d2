import type { Command } from 'commander'
import { examples, fileOption } from './help.js'

/** `rwa keys`, `rwa subscription`, `rwa usage`, `rwa pricing`, `rwa stats`. */
export function declareBilling(program: Command): void {
  const keys = program.command('keys').description('Create, list and revoke API keys')
  examples(
    keys
      .command('list')
      .description('List the API keys of an organization (masked)')
      .option('--org <org_id>', "organization (default: the key's own)"),
    ['rwa keys list', 'rwa keys list --org acme --json'],
  ).action(async (o, c) => (await import('../commands/keys.js')).list(o, c))
  examples(
    fileOption(
      keys
        .command('create')
        .description('Create an API key; the raw key is printed once and cannot be retrieved again')
        .option('--name <name>', 'label of the key')
        .option('--org <org_id>', "owning organization (default: the key's own; the admin key may name any)")
        .option('--trial', "start the organization's 14-day trial if it has none yet"),
    ),
    [
      'rwa keys create --name ci',
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

  const subscription = program
    .command('subscription')
    .description("Show or set an organization's subscription")
  examples(
    subscription
      .command('get')
      .description('Show the subscription, tier and limits in force')
      .argument('[org_id]', "organization (default: the key's own)")
      .option('--org <org_id>', 'organization (same as the argument)'),
    ['rwa subscription get', 'rwa subscription get acme --json'],
  ).action(async (org, o, c) => (await import('../commands/subscription.js')).get(org, o, c))
  examples(
    fileOption(
      subscription
        .command('set')
        .description('Set the tier of an organization (admin key; normally done by the payment webhook)')
        .option('--org <org_id>', 'organization')
        .option('--tier <tier>', 'free, pro or enterprise')
        .option('--payment-subscription-id <id>', 'subscription id at the payment provider')
        .option('--payment-customer-id <id>', 'customer id at the payment provider')
        .option('--payment-price-id <id>', 'price id at the payment provider'),
    ),
    ['rwa subscription set --org acme --tier pro'],
  ).action(async (o, c) => (await import('../commands/subscription.js')).set(o, c))

  examples(
    program
      .command('usage')
      .description('Show request and DID usage per day and in total')
      .option('--org <org_id>', "organization (default: the key's own)")
      .option('--days <n>', 'window in days, 1–365 (default 30)'),
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
