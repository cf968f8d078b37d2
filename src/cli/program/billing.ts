import type { Command } from 'commander'
import { durationSeconds, instantIn } from '../flags/parse.js'
import { command, declareGroup, declareOperation } from './operation-command.js'

/** `rwa keys`, `rwa whoami`, `rwa subscription`, `rwa usage`, `rwa pricing`, `rwa stats`. */
export function declareBilling(program: Command): void {
  const keys = () => import('../commands/keys.js')
  declareGroup(program.command('keys').description('Create, list, reroll and revoke API keys'), {
    list: command({
      operation: 'listKeys',
      description: 'List the API keys of an organization (masked)',
      flags: { org_id: { help: "organization (default: the key's own)" } },
      examples: ['rwa keys list', 'rwa keys list --org-id acme --json'],
      run: async () => (await keys()).list,
    }),
    create: command({
      operation: 'createKey',
      description: 'Create an API key; the raw key is printed once and cannot be retrieved again',
      flags: {
        org_id: {
          help: "owning organization (default: the key's own; the admin key must name one, admin for an admin key)",
        },
        name: { prompt: 'Name of the key' },
        roles: { help: 'owner, issuer, agent, transfers or auditor; repeat for more (default: owner)' },
        expires_at: {
          flag: '--expires-in <duration>',
          help: 'the key stops working after that long: 24h, 30m, 10s, 7d (default: never)',
          parse: instantIn,
          example: '24h',
        },
      },
      examples: [
        'rwa keys create --name ci',
        'rwa keys create --name ci --roles transfers --expires-in 24h',
        'rwa keys create --org-id acme --name "acme ops" --start-trial --json | jq -r .api_key',
      ],
      run: async () => (await keys()).create,
    }),
    revoke: command({
      operation: 'revokeKey',
      description: 'Revoke an API key for good',
      args: { key_id: ['<key_id>', 'key to revoke (key_...)'] },
      examples: ['rwa keys revoke key_01JD3Q... --yes'],
      run: async () => (await keys()).revoke,
    }),
    reroll: command({
      operation: 'rerollKey',
      description:
        'Replace a key by a new one with the same name, roles and expiry; the old one works for --overlap',
      args: { key_id: ['<key_id>', 'key to replace (key_...)'] },
      flags: {
        overlap_seconds: {
          flag: '--overlap <duration>',
          help: 'how long the old key keeps working: 1h, 30m, at most 30d (default: it stops at once)',
          parse: durationSeconds,
          example: '1h',
        },
      },
      file: false,
      examples: [
        'rwa keys reroll key_01JD3Q... --overlap 1h --json | jq -r .api_key',
        'rwa keys reroll key_01JD3Q... --yes',
      ],
      run: async () => (await keys()).reroll,
    }),
  })
  declareOperation(program, 'whoami', {
    operation: 'getKeySelf',
    description: 'Show the key in use: its organization, roles, tier and expiry',
    examples: ['rwa whoami', 'rwa whoami --json | jq -r .roles[]'],
    run: async () => (await keys()).whoami,
  })

  const subscription = () => import('../commands/subscription.js')
  // The organization of a billing path: the key's own unless named (by flag, or by argument for `get`).
  const org = { org_id: { help: "organization (default: the key's own)", required: false } }
  declareGroup(program.command('subscription').description("Show or set an organization's subscription"), {
    get: command({
      operation: 'getSubscription',
      description: 'Show the subscription, tier and limits in force',
      args: { org_id: ['[org_id]', "organization (default: the key's own)"] },
      flags: { org_id: { help: 'organization (same as the argument)', required: false } },
      examples: ['rwa subscription get', 'rwa subscription get acme --json'],
      run: async () => (await subscription()).get,
    }),
    set: command({
      operation: 'updateSubscription',
      description: 'Set the tier of an organization (admin key; normally done by the payment webhook)',
      flags: {
        org_id: { help: 'organization', prompt: 'Organization' },
        tier: { prompt: 'Tier (free, pro, enterprise)' },
        payment_subscription_id: { help: 'subscription id at the payment provider' },
        payment_customer_id: { help: 'customer id at the payment provider' },
        payment_price_id: { help: 'price id at the payment provider' },
      },
      examples: ['rwa subscription set --org-id acme --tier pro'],
      run: async () => (await subscription()).set,
    }),
  })

  const reports = () => import('../commands/reports.js')
  declareOperation(program, 'usage', {
    operation: 'getUsage',
    description: 'Show request and DID usage per day and in total',
    flags: org,
    examples: ['rwa usage', 'rwa usage --days 7 --json'],
    run: async () => (await reports()).usage,
  })
  declareOperation(program, 'pricing', {
    operation: 'getPricing',
    description: 'Show the pricing tiers (public, no key needed)',
    examples: ['rwa pricing', 'rwa pricing --json | jq .tiers.pro'],
    run: async () => (await reports()).pricing,
  })
  declareOperation(program, 'stats', {
    operation: 'getStats',
    description: 'Show key counts by tier (admin key)',
    examples: ['rwa stats'],
    run: async () => (await reports()).stats,
  })
}
