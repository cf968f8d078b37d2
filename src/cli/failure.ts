import { ApiProblemError, ConnectionError, UnexpectedResponseError } from '../client/errors.js'
import type { ErrorCode, FieldError } from '../contract/errors.js'
import { EXIT, ExitError } from './exit-error.js'

/*
 * Failures in CLI terms. The server's `detail` is written for every client (curl included); here it is
 * said the CLI way: a refused field is named by the flag that gave it, with an example value; an
 * endpoint the detail names becomes the `rwa` command that calls it; and the hint fits the command
 * that ran and the case at hand.
 */

/** The exit code of each API error code (see `rwa --help`). */
export const EXIT_OF_CODE: Record<ErrorCode, number> = {
  invalid_request: EXIT.usage,
  payload_too_large: EXIT.usage,
  unsupported_media_type: EXIT.usage,
  unprocessable: EXIT.usage,
  unauthenticated: EXIT.auth,
  forbidden: EXIT.auth,
  plan_required: EXIT.auth,
  not_found: EXIT.notFound,
  conflict: EXIT.conflict,
  quota_exceeded: EXIT.conflict,
  rate_limited: EXIT.conflict,
  internal: EXIT.unexpected,
  unavailable: EXIT.unreachable,
}

/** What main() prints and the code it exits with, for any error a command throws. */
export interface Failure {
  code: number
  message: string
  hint?: string
  /** Shown only with --verbose. */
  details?: string
}

/** What a failure message may use of the command that failed. */
export interface FailureContext {
  /** The command as typed after `rwa`, e.g. `transfers request`. */
  command: string
  /** Its positional arguments, and their names (`credential_id`). */
  args: string[]
  argumentNames: string[]
  /** The long flags the command accepts (its own, not the global ones). */
  flags: string[]
  /** The values given to those flags. */
  flagValues?: Record<string, unknown>
  /** The body it sent, and which fields of it came from flags or from `--file`. */
  request?: { body: Record<string, unknown>; fromFlags: Set<string>; file?: string }
  /** With `--wait`: how many seconds it was allowed to wait. */
  waitMaxSeconds?: number
}

/** A failure of a command action, with the context to describe it (thrown by `withContext`). */
export class CommandFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly context: FailureContext,
  ) {
    super(error instanceof Error ? error.message : String(error))
    this.name = 'CommandFailure'
  }
}

/** Flags whose name is not the field's name with `_` as `-`. */
const FLAG_OF_FIELD: Record<string, string> = {
  from_jurisdiction: '--from',
  to_jurisdiction: '--to',
  jurisdiction_id: '--id',
  org_id: '--org',
  start_trial: '--trial',
}

/** An example value for each flag that expects a format, shown when the message has none. */
export const FLAG_EXAMPLES: Record<string, string> = {
  '--recipient-did': 'did:web:acme:bob',
  '--sender-did': 'did:web:acme:alice',
  '--owner-did': 'did:web:acme:alice',
  '--subject-did': 'did:web:acme:bob',
  '--valid-until': '2027-06-30T00:00:00Z',
  '--total-supply': '1000',
  '--amount': '250',
  '--value-usd': '2500000',
  '--id': 'US',
  '--jurisdiction': 'US',
  '--from': 'US',
  '--to': 'SG',
  '--symbol': 'ATX',
  '--credential-id': 'cred_01JD3Q8ZK2W9...',
  '--token-id': 'tok_01JD3Q8ZK2W9...',
  '--type': 'kyc',
  '--transfer-requirements': 'kyc,aml',
  '--credential-types': 'PropertyOwnership,RegulatoryAttestation',
  '--org': 'acme',
  '--tier': 'pro',
  '--days': '30',
  '--limit': '50',
}

/** The flag (or `<argument>`) of the command that gave a refused field, if one did. */
function flagOfField(path: string, context: FailureContext): string | undefined {
  if (context.request?.body && !context.request.fromFlags.has(path) && hasPath(context.request.body, path))
    return undefined
  const last = path.split('.').at(-1)!
  const flag = FLAG_OF_FIELD[last] ?? `--${last.replaceAll('_', '-')}`
  if (context.flags.includes(flag)) return flag
  // A path parameter is the command's one argument (`rwa credentials get <credential_id>`).
  if (path === 'id' && context.argumentNames.length === 1) return `<${context.argumentNames[0]}>`
  return undefined
}

function hasPath(body: Record<string, unknown>, path: string): boolean {
  let value: unknown = body
  for (const key of path.split('.')) {
    if (!value || typeof value !== 'object' || !(key in value)) return false
    value = (value as Record<string, unknown>)[key]
  }
  return true
}

function valueAt(body: Record<string, unknown> | undefined, path: string): unknown {
  let value: unknown = body
  for (const key of path.split('.')) {
    if (!value || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/** One refused field in CLI terms: `--recipient-did: expected a DID, e.g. did:web:acme:alice (got "bob")`. */
function describeField(path: string, messages: string[], context: FailureContext): string {
  const flag = flagOfField(path, context)
  const given =
    flag?.startsWith('<') === true
      ? context.args[0]
      : (valueAt(context.request?.body, path) ?? (flag ? context.flagValues?.[flag] : undefined))
  const got = given === undefined ? [] : [`got ${JSON.stringify(given)}`]
  const example = flag && FLAG_EXAMPLES[flag] && !messages.some((m) => m.includes('e.g.'))
  const notes = [...got, ...(example ? [`e.g. ${flag} ${FLAG_EXAMPLES[flag]}`] : [])]
  const name =
    flag ??
    (context.request?.file !== undefined && hasPath(context.request.body, path)
      ? `${path} (from --file ${context.request.file})`
      : path)
  return `${name}: ${messages.join('; ')}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`
}

/** The refused fields, one entry per path, in the order the server gave them. */
function fieldsOf(errors: FieldError[]): Array<[string, string[]]> {
  const byPath = new Map<string, string[]>()
  for (const e of errors) {
    const messages = byPath.get(e.path) ?? []
    if (!messages.includes(e.message)) messages.push(e.message)
    byPath.set(e.path, messages)
  }
  return [...byPath]
}

/**
 * Endpoints a `detail` may name, and the `rwa` command that calls each: a CLI user is told the command.
 * The server's wording stays what it is for curl users.
 */
const COMMAND_OF_ENDPOINT: Array<[RegExp, (match: RegExpExecArray, detail: string) => string]> = [
  [/POST \/console\/billing\/keys with start_trial: true/, () => '`rwa keys create --trial --name NAME`'],
  [
    /POST \/console\/billing\/keys/,
    (_, detail) => {
      const org = /No organization (\S+?):/.exec(detail)?.[1]
      return `\`rwa keys create ${org ? `--org ${org} ` : ''}--name NAME\``
    },
  ],
  [/GET \/console\/billing\/pricing/, () => '`rwa pricing`'],
  [
    /PUT \/console\/rwa\/jurisdictions\/([A-Za-z0-9_-]+)/,
    (match, detail) => {
      const refused = /does not accept (\S+) credentials \(it accepts: ([^)]*)\)/.exec(detail)
      const accepted = refused?.[2] === 'none' ? [] : (refused?.[2]?.split(', ') ?? [])
      const types = refused ? ` --credential-types ${[...accepted, refused[1]].join(',')}` : ''
      return `\`rwa jurisdictions update ${match[1]}${types}\``
    },
  ],
]

/** `detail` with every endpoint it names replaced by the command that calls it. */
export function inCliTerms(detail: string): string {
  let text = detail
  for (const [pattern, command] of COMMAND_OF_ENDPOINT) {
    const match = pattern.exec(text)
    if (match) text = text.replace(pattern, command(match, detail))
  }
  return text
}

/** What shows the things of the kind a 404 names. */
const LIST_OF_KIND: Array<[RegExp, string]> = [
  [/^No jurisdiction/, '`rwa jurisdictions list` shows what exists'],
  [/^No credential/, '`rwa credentials list` shows what exists'],
  [/^No attestation/, '`rwa attestations list` shows what exists'],
  [/^No token/, '`rwa tokens list` shows what exists'],
  [/^No transfer/, '`rwa transfers list` shows what exists'],
  [/^No proof/, "`rwa transfers list` shows each transfer's proof_id"],
  [/^No API key/, '`rwa keys list` shows what exists'],
]

/** Command groups with a `get ID` subcommand. */
const GETTABLE = new Set(['jurisdictions', 'credentials', 'attestations', 'tokens', 'transfers', 'proofs'])

type Hint = (problem: ApiProblemError, context: FailureContext) => string | undefined

/** What to do about a 409, by command: each names the command that shows or changes the state. */
const CONFLICT_HINTS: Record<string, Hint> = {
  'keys revoke': (p) =>
    /last active admin key/.test(p.detail)
      ? 'create another admin key first: `rwa keys create --org admin --name NAME`'
      : '`rwa keys list` shows each key and whether it is revoked; `rwa keys create --name NAME` makes a new one',
  'jurisdictions register': (_, c) => {
    const id = String(valueAt(c.request?.body, 'jurisdiction_id') ?? 'ID')
    return `\`rwa jurisdictions get ${id}\` shows it; \`rwa jurisdictions update ${id}\` changes it`
  },
  'jurisdictions remove': (p, c) => {
    const id = c.args[0] ?? 'ID'
    if (/credential|attestation|token/.test(p.detail)) {
      return `credentials, attestations and tokens keep a jurisdiction for good (they are its audit trail), so ${id} cannot be removed; \`rwa jurisdictions update ${id}\` changes its requirements instead`
    }
    return `\`rwa trust list --jurisdiction ${id} --status active\` lists them; \`rwa trust revoke --from A --to B --yes\` revokes one`
  },
  'trust establish': (_, c) => {
    const from = String(valueAt(c.request?.body, 'from_jurisdiction') ?? 'A')
    const to = String(valueAt(c.request?.body, 'to_jurisdiction') ?? 'B')
    return `\`rwa trust list --jurisdiction ${from}\` shows it; to change it, \`rwa trust revoke --from ${from} --to ${to} --yes\` first`
  },
  'credentials revoke': (_, c) => `\`rwa credentials get ${c.args[0] ?? 'ID'}\` shows when and why`,
  'tokens create': (p, c) => {
    const token = /already tokenized as (\S+)/.exec(p.detail)?.[1]
    if (token) return `\`rwa tokens get ${token}\` shows it`
    return `\`rwa credentials get ${String(valueAt(c.request?.body, 'credential_id') ?? 'ID')}\` shows the credential; only an active one can be tokenized`
  },
  'transfers request': (_, c) =>
    `\`rwa tokens get ${String(valueAt(c.request?.body, 'token_id') ?? 'ID')}\` lists who holds how much where`,
}

function rateLimitHint(problem: ApiProblemError, context: FailureContext | undefined): string {
  const tiers = '`rwa pricing` lists the limits of each tier'
  if (context?.waitMaxSeconds && problem.retryAfterSeconds !== undefined) {
    return `the next slot is ${problem.retryAfterSeconds} s away, more than --wait-max ${context.waitMaxSeconds} allows: raise --wait-max, or see ${tiers.replace(' lists', ' for')}`
  }
  return `add --wait to wait for it and retry (up to --wait-max seconds, default 120); ${tiers}`
}

/** The hint for an API error: specific to the command and the case where it can be, else per code. */
function hintOf(problem: ApiProblemError, context: FailureContext | undefined): string | undefined {
  const command = context?.command ?? ''
  const group = command.split(' ')[0] ?? ''
  switch (problem.code) {
    case 'invalid_request':
      return command
        ? `\`rwa ${command} --help\` lists its flags and arguments`
        : 'check the values named above'
    case 'unprocessable':
      if (/is not a requirement/.test(problem.detail))
        return 'a jurisdiction lists its requirements: `rwa jurisdictions update ID --transfer-requirements kyc,aml,...`'
      if (/does not accept/.test(problem.detail)) {
        const id = /^Jurisdiction (\S+) does not accept/.exec(problem.detail)?.[1] ?? 'ID'
        return `\`rwa jurisdictions get ${id}\` shows what it accepts and requires`
      }
      return 'the request is well-formed but the governance rules refuse it (docs/governance.md)'
    case 'unauthenticated':
      if (/revoked/.test(problem.detail))
        return 'use another key of the organization, or have one created: `rwa keys create --org ORG --name NAME` (admin key)'
      return 'check the API key: --api-key-file, --api-key-stdin, RWA_API_KEY, or `rwa config show` for the profile in use'
    case 'forbidden':
      if (/requires the admin API key/.test(problem.detail))
        return 'use the admin key: printed once when the server first started (or set with RWA_ADMIN_KEY)'
      return "this key acts on its own organization only: drop --org, or use that organization's key"
    case 'plan_required':
      return "`rwa subscription get` shows the organization's tier and trial"
    case 'quota_exceeded':
      return '`rwa usage` shows what is used; `rwa pricing` lists the quotas of each tier'
    case 'rate_limited':
      return rateLimitHint(problem, context)
    case 'not_found': {
      if (/^No route for/.test(problem.detail))
        return 'is --url (or RWA_URL) the base URL of an rwa server? `rwa config show` shows the one in use'
      if (/^No active trust/.test(problem.detail))
        return '`rwa trust list --status active` lists the trust in force'
      if (/^No organization/.test(problem.detail))
        return 'an organization exists once its first key is created'
      const list = LIST_OF_KIND.find(([pattern]) => pattern.test(problem.detail))?.[1]
      if (list) return list
      return `\`rwa ${group || '<group>'} list\` shows what exists`
    }
    case 'conflict': {
      const specific = context && CONFLICT_HINTS[command]?.(problem, context)
      if (specific) return specific
      if (GETTABLE.has(group) && context?.args[0])
        return `\`rwa ${group} get ${context.args[0]}\` shows its current state`
      return `\`rwa ${group || '<group>'} list\` shows the current state`
    }
    case 'payload_too_large':
      return 'request bodies are limited to 1 MiB'
    case 'internal':
      return 'the server logged the details; retry, and report it if it persists'
    case 'unavailable':
      return 'the server cannot reach a service it needs; retry later (its log says which)'
    default:
      return undefined
  }
}

/** The one-line message of an API error, in CLI terms (several refused fields take a line each). */
function messageOf(problem: ApiProblemError, context: FailureContext | undefined): string {
  const fields = fieldsOf(problem.errors)
  const ctx: FailureContext = context ?? { command: '', args: [], argumentNames: [], flags: [] }
  if (problem.code === 'invalid_request' && fields.length > 0) {
    const lines = fields.map(([path, messages]) => describeField(path, messages, ctx))
    return lines.length === 1 ? lines[0]! : `${lines.length} values were refused:\n  ${lines.join('\n  ')}`
  }
  const detail = inCliTerms(problem.detail)
  if (fields.length === 0) return detail
  const named = fields.map(([path, messages]) => describeField(path, messages, ctx))
  return `${detail} (${named.join('; ')})`
}

/** Turns any thrown value into a message, a hint and an exit code. */
export function describeFailure(thrown: unknown): Failure {
  const context = thrown instanceof CommandFailure ? thrown.context : undefined
  const error = thrown instanceof CommandFailure ? thrown.error : thrown
  if (error instanceof ExitError) return { code: error.code, message: error.message, hint: error.hint }
  if (error instanceof ApiProblemError) {
    return {
      code: EXIT_OF_CODE[error.code],
      message: messageOf(error, context),
      hint: hintOf(error, context),
      details: withRequestId(error.requestId, JSON.stringify(error.problem, null, 2)),
    }
  }
  if (error instanceof ConnectionError) {
    return {
      code: EXIT.unreachable,
      message: error.message,
      hint: 'is the server running there? Start one with `rwa server start` or `rwa sandbox`, or pass --url',
      details: error.cause instanceof Error ? (error.cause.stack ?? error.cause.message) : undefined,
    }
  }
  if (error instanceof UnexpectedResponseError) {
    return {
      code: EXIT.unexpected,
      message: error.message,
      details: withRequestId(error.requestId, error.body.slice(0, 4000)),
    }
  }
  const message = error instanceof Error ? error.message : String(error)
  return {
    code: EXIT.unexpected,
    message,
    hint: 'run again with --verbose for details',
    details: error instanceof Error ? error.stack : undefined,
  }
}

/** True for a prompt the user closed with Ctrl-C (inquirer's ExitPromptError). */
export function isPromptClosed(thrown: unknown): boolean {
  const error = thrown instanceof CommandFailure ? thrown.error : thrown
  return error instanceof Error && error.name === 'ExitPromptError'
}

/** --verbose leads with the request id, which finds the request's line in the server log. */
const withRequestId = (requestId: string | undefined, details: string): string =>
  requestId === undefined ? details : `request id: ${requestId}\n${details}`
