import { EXIT, ExitError } from '../exit-error.js'
import type { Flag } from './flag.js'
import { decimal, list, wholeNumber } from './parse.js'

/*
 * The flag tables of the governance commands, one per command group (`rwa jurisdictions`, `trust`,
 * `credentials`, `attestations`, `tokens`, `transfers`) and one for the page flags every list shares.
 * Each entry is a request field with its flag, help line, prompt (required fields), parser and
 * example (see ./flag.ts).
 */

/** `--limit` and `--cursor` of every governance list (`--all` is not a request field). */
export const PAGE: Flag[] = [
  {
    field: 'limit',
    flag: '--limit <n>',
    help: 'items per page, 1–500 (server default 50)',
    parse: wholeNumber,
    example: '50',
  },
  {
    field: 'cursor',
    flag: '--cursor <cursor>',
    help: "start after this cursor (the previous page's next_cursor)",
  },
]

const jurisdiction = (help: string, prompt?: string): Flag => ({
  field: 'jurisdiction',
  flag: '--jurisdiction <id>',
  help,
  example: 'US',
  ...(prompt ? { prompt } : {}),
})
const did = (field: string, help: string, example: string, prompt?: string): Flag => ({
  field,
  flag: `--${field.replaceAll('_', '-')} <did>`,
  help,
  example,
  ...(prompt ? { prompt } : {}),
})
const from: Flag = {
  field: 'from_jurisdiction',
  flag: '--from <jurisdiction_id>',
  help: 'source jurisdiction',
  example: 'US',
}
const to: Flag = {
  field: 'to_jurisdiction',
  flag: '--to <jurisdiction_id>',
  help: 'target jurisdiction',
  example: 'SG',
}
const amount = (help: string, prompt?: string): Flag => ({
  field: 'amount',
  flag: '--amount <n>',
  help,
  parse: wholeNumber,
  example: '250',
  ...(prompt ? { prompt } : {}),
})
const reason = (help: string, prompt?: string): Flag => ({
  field: 'reason',
  flag: '--reason <text>',
  help,
  ...(prompt ? { prompt } : {}),
})
const validUntil: Flag = {
  field: 'valid_until',
  flag: '--valid-until <timestamp>',
  help: 'end of validity (ISO 8601)',
  example: '2027-06-30T00:00:00Z',
}
const credentialId = (help: string, prompt?: string): Flag => ({
  field: 'credential_id',
  flag: '--credential-id <id>',
  help,
  example: 'cred_01JD3Q8ZK2W9...',
  ...(prompt ? { prompt } : {}),
})
const tokenId = (help: string, prompt?: string): Flag => ({
  field: 'token_id',
  flag: '--token-id <id>',
  help,
  example: 'tok_01JD3Q8ZK2W9...',
  ...(prompt ? { prompt } : {}),
})
const status = (help: string): Flag => ({ field: 'status', flag: '--status <status>', help })

/** The fields of a jurisdiction that `register` and `update` both set. */
const jurisdictionConfig: Flag[] = [
  { field: 'name', flag: '--name <name>', help: 'display name' },
  { field: 'regulatory_body', flag: '--regulatory-body <name>', help: 'name of the regulator' },
  {
    field: 'frameworks',
    flag: '--frameworks <list>',
    help: 'regulatory frameworks, comma-separated or repeated',
    parse: list,
    repeatable: true,
  },
  {
    field: 'credential_types',
    flag: '--credential-types <list>',
    help: 'accepted credential types (default PropertyOwnership,RegulatoryAttestation)',
    parse: list,
    repeatable: true,
    example: 'PropertyOwnership,RegulatoryAttestation',
  },
  {
    field: 'transfer_requirements',
    flag: '--transfer-requirements <list>',
    help: 'requirements, e.g. kyc,aml,title_verification',
    parse: list,
    repeatable: true,
    example: 'kyc,aml',
  },
]

/** `rwa jurisdictions`. */
export const JURISDICTIONS = {
  register: [
    {
      field: 'jurisdiction_id',
      flag: '--id <jurisdiction_id>',
      help: 'short code, e.g. US',
      prompt: 'Jurisdiction code (e.g. US)',
      example: 'US',
    },
    ...jurisdictionConfig.map((f): Flag => {
      if (f.field === 'name') return { ...f, prompt: 'Display name' }
      if (f.field === 'regulatory_body') return { ...f, prompt: 'Regulator' }
      return f
    }),
  ],
  update: jurisdictionConfig,
} satisfies Record<string, Flag[]>

/** `rwa trust`. */
export const TRUST = {
  list: [status('active or revoked'), jurisdiction('relations with this jurisdiction at either end')],
  establish: [
    { ...from, prompt: 'From jurisdiction (source)' },
    { ...to, prompt: 'To jurisdiction (target)' },
    { field: 'mutual', flag: '--mutual', help: 'trust in both directions' },
  ],
  revoke: [
    { ...from, prompt: 'From jurisdiction (source)' },
    { ...to, prompt: 'To jurisdiction (target)' },
  ],
} satisfies Record<string, Flag[]>

/** `rwa credentials`. */
export const CREDENTIALS = {
  list: [
    jurisdiction('issued by this jurisdiction'),
    did('owner_did', 'owned by this DID', 'did:web:acme:alice'),
    status('active or revoked'),
  ],
  issue: [
    jurisdiction('issuing jurisdiction', 'Issuing jurisdiction'),
    did(
      'owner_did',
      'owner, did:<method>:<organization>:<owner>',
      'did:web:acme:alice',
      'Owner DID (did:<method>:<organization>:<owner>)',
    ),
    {
      field: 'property_data.address',
      flag: '--address <address>',
      help: 'location of the property',
      prompt: 'Property address',
    },
    {
      field: 'property_data.type',
      flag: '--type <type>',
      help: 'kind of property, e.g. commercial',
      prompt: 'Property type (e.g. commercial)',
      example: 'commercial',
    },
    {
      field: 'property_data.value_usd',
      flag: '--value-usd <number>',
      help: 'value in US dollars',
      prompt: 'Value in USD',
      parse: decimal,
      example: '2500000',
    },
    {
      field: 'property_data.title_deed',
      flag: '--title-deed <ref>',
      help: 'title deed reference',
      prompt: 'Title deed reference',
    },
    validUntil,
  ],
  revoke: [reason('why it is revoked')],
} satisfies Record<string, Flag[]>

/** `rwa attestations`. */
export const ATTESTATIONS = {
  list: [
    jurisdiction('issued by this jurisdiction'),
    credentialId('about this credential'),
    did('subject_did', 'about this subject', 'did:web:acme:bob'),
    { field: 'type', flag: '--type <requirement>', help: 'of this type, e.g. kyc', example: 'kyc' },
  ],
  submit: [
    jurisdiction('issuing jurisdiction', 'Issuing jurisdiction'),
    did('subject_did', 'who it is about', 'did:web:acme:bob', 'Subject DID'),
    {
      field: 'type',
      flag: '--type <requirement>',
      help: 'the requirement it satisfies, e.g. kyc',
      prompt: 'Requirement it satisfies (e.g. kyc)',
      example: 'kyc',
    },
    {
      field: 'attester',
      flag: '--attester <name>',
      help: 'who performed the check',
      prompt: 'Attester (who performed the check)',
    },
    credentialId('the credential it concerns (required for title_verification)'),
    { field: 'evidence', flag: '--evidence <ref>', help: 'reference to the evidence' },
    validUntil,
  ],
  revoke: [reason('why it is revoked, e.g. found to be false')],
} satisfies Record<string, Flag[]>

/** `--max-holders 50` (every jurisdiction) or `--max-holders US=2000,SG=50`. */
export function maxHolders(value: string | string[], flag: string): number | Record<string, number> {
  const text = String(value)
  if (/^\s*\d+\s*$/.test(text)) return wholeNumber(text, flag)
  const caps: Record<string, number> = {}
  for (const part of text.split(',')) {
    const [j, n] = part.split('=').map((s) => s.trim())
    if (!j || n === undefined || !/^\d+$/.test(n)) {
      throw new ExitError(
        EXIT.usage,
        `${flag} must be a number or JURISDICTION=N pairs, got ${JSON.stringify(text)}`,
        `e.g. ${flag} 50 or ${flag} US=2000,SG=50`,
      )
    }
    caps[j] = wholeNumber(n, flag)
  }
  return caps
}

const holderDid = (help: string, prompt?: string) => did('holder_did', help, 'did:web:acme:bob', prompt)
const freezeFlags: Flag[] = [
  holderDid('the holder', 'Holder DID'),
  jurisdiction('the holding whose units are (un)frozen (with --amount)'),
  amount('units of that holding; without it the whole holder'),
  reason('why (kept in the token history)'),
]

/** `rwa tokens`, its agent's commands and `rwa tokens rules`. */
export const TOKENS = {
  list: [
    jurisdiction("in this credential's jurisdiction"),
    did('owner_did', 'owned by this DID', 'did:web:acme:alice'),
    status('active, paused or frozen'),
  ],
  create: [
    credentialId('credential of the asset', 'Credential of the asset (cred_...)'),
    {
      field: 'total_supply',
      flag: '--total-supply <n>',
      help: 'number of whole units',
      prompt: 'Total supply (whole units)',
      parse: wholeNumber,
      example: '1000',
    },
    {
      field: 'symbol',
      flag: '--symbol <symbol>',
      help: 'ticker, 1–12 upper-case letters or digits',
      example: 'ATX',
    },
  ],
  pause: [reason('why (kept in the token history)')],
  freeze: freezeFlags,
  holdings: [holderDid('of this holder'), jurisdiction('in this jurisdiction')],
  forceTransfer: [
    did('from_did', 'whose units are taken', 'did:web:acme:bob', 'Take from (DID)'),
    { ...from, help: 'where they are held', prompt: 'From jurisdiction' },
    did('to_did', 'who receives them', 'did:web:acme:alice', 'Give to (DID)'),
    { ...to, help: 'where they go', prompt: 'To jurisdiction' },
    amount('whole units', 'Amount (whole units)'),
    reason('the authority, e.g. a court order', 'Reason (the authority, e.g. a court order)'),
  ],
  recover: [
    did('lost_did', 'the lost identity', 'did:web:acme:bob', 'Lost identity (DID)'),
    did('new_did', 'the new identity', 'did:web:acme:bob2', 'New identity (DID)'),
    reason('why', 'Reason'),
  ],
  rules: [
    {
      field: 'max_balance_per_holder',
      flag: '--max-balance-per-holder <n>',
      help: "cap on a recipient's total across jurisdictions",
      parse: wholeNumber,
      example: '500',
    },
    {
      field: 'max_holders',
      flag: '--max-holders <n|J=N,...>',
      help: 'cap on holders in the target jurisdiction: one number, or per jurisdiction',
      parse: maxHolders,
      example: 'US=2000,SG=50',
    },
    {
      field: 'lockup_until',
      flag: '--lockup-until <timestamp>',
      help: 'before this instant only forced transfers move the token',
      example: '2027-01-01T00:00:00Z',
    },
    {
      field: 'max_transfer_amount',
      flag: '--max-transfer-amount <n>',
      help: 'largest amount of one transfer',
      parse: wholeNumber,
      example: '100',
    },
    {
      field: 'daily_volume_per_holder',
      flag: '--daily-volume-per-holder <n>',
      help: "cap on a sender's approved volume per UTC day",
      parse: wholeNumber,
      example: '1000',
    },
    reason('why (kept in the token history)'),
  ],
} satisfies Record<string, Flag[]>

/** `rwa transfers`: `request` and `check` take the same fields. */
const transfer: Flag[] = [
  tokenId('token to move', 'Token (tok_...)'),
  { ...from, prompt: 'From jurisdiction' },
  { ...to, prompt: 'To jurisdiction' },
  did('recipient_did', 'recipient', 'did:web:acme:bob', 'Recipient DID'),
  amount('whole units to move', 'Amount (whole units)'),
  did('sender_did', "whose holding moves (default the token's owner)", 'did:web:acme:alice'),
]

export const TRANSFERS = {
  list: [
    tokenId('of this token'),
    status('approved, rejected or forced'),
    jurisdiction('with this jurisdiction as source or target'),
  ],
  request: transfer,
  check: transfer,
} satisfies Record<string, Flag[]>

/** `rwa server rotate-signing-key`: the proof key's rotation (admin key). */
export const SIGNING_KEYS = {
  rotate: [
    {
      field: 'reason',
      flag: '--reason <text>',
      help: 'why the key is rotated, for the audit log',
      example: 'yearly rotation',
    },
  ],
}
