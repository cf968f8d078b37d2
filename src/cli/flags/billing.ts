import type { Flag } from './flag.js'
import { durationSeconds, instantIn, list, wholeNumber } from './parse.js'

/*
 * The flag tables of the billing commands: `rwa keys`, `rwa subscription`, `rwa usage`. Each entry
 * is a request field with its flag, help line, prompt (required fields), parser and example
 * (see ./flag.ts).
 */

const org = (help: string): Flag => ({ field: 'org_id', flag: '--org <org_id>', help, example: 'acme' })

/** `rwa keys`. */
export const KEYS = {
  list: [org("organization (default: the key's own)")],
  create: [
    { field: 'name', flag: '--name <name>', help: 'label of the key', prompt: 'Name of the key' },
    org("owning organization (default: the key's own; the admin key must name one, admin for an admin key)"),
    {
      field: 'start_trial',
      flag: '--trial',
      help: "start the organization's 14-day trial if it has none yet",
    },
    {
      field: 'roles',
      flag: '--role <role>',
      help: 'owner, issuer, agent, transfers or auditor; repeat for more (default: owner)',
      parse: list,
      repeatable: true,
      example: 'transfers',
    },
    {
      field: 'expires_at',
      flag: '--expires-in <duration>',
      help: 'the key stops working after that long: 24h, 30m, 10s, 7d (default: never)',
      parse: instantIn,
      example: '24h',
    },
  ],
  reroll: [
    {
      field: 'overlap_seconds',
      flag: '--overlap <duration>',
      help: 'how long the old key keeps working: 1h, 30m, at most 30d (default: it stops at once)',
      parse: durationSeconds,
      example: '1h',
    },
  ],
} satisfies Record<string, Flag[]>

/** `rwa subscription`. */
export const SUBSCRIPTION = {
  get: [org('organization (same as the argument)')],
  set: [
    { ...org('organization'), prompt: 'Organization' },
    {
      field: 'tier',
      flag: '--tier <tier>',
      help: 'free, pro or enterprise',
      prompt: 'Tier (free, pro, enterprise)',
      example: 'pro',
    },
    {
      field: 'payment_subscription_id',
      flag: '--payment-subscription-id <id>',
      help: 'subscription id at the payment provider',
    },
    {
      field: 'payment_customer_id',
      flag: '--payment-customer-id <id>',
      help: 'customer id at the payment provider',
    },
    { field: 'payment_price_id', flag: '--payment-price-id <id>', help: 'price id at the payment provider' },
  ],
} satisfies Record<string, Flag[]>

/** `rwa usage`. */
export const USAGE = [
  org("organization (default: the key's own)"),
  {
    field: 'days',
    flag: '--days <n>',
    help: 'window in days, 1–365 (default 30)',
    parse: wholeNumber,
    example: '30',
  },
] satisfies Flag[]
