import { ApiProblemError, ConnectionError, UnexpectedResponseError } from '../client/errors.js'
import type { ErrorCode, FieldError, Reason } from '../contract/errors.js'
import { CommandFailure, type FailureContext } from './command-failure.js'
import { EXIT, ExitError } from './exit-error.js'
import { type Flag, longOf } from './flags/flag.js'

/*
 * Failures in CLI terms, from what a refusal says to programs: its `code`, its `reason` (one of
 * REASONS in src/contract/errors.ts) and its `context` (the ids and values involved). The `detail` is
 * prose for people: it is shown as the message, and nothing here reads it, so rewording it on the
 * server changes no hint, exit code or flag named (test/cli/failure.test.ts holds that).
 *
 * - A refused field (`errors`) is named by the flag that gave it, from the command's flag table, with
 *   the value as typed and an example; a field from `--file` is named as such, a path id by its
 *   argument.
 * - The hint is the reason's: it names the `rwa` command that shows or changes what the refusal is
 *   about, from the context's ids, and never repeats the message. A reason without a hint of its own
 *   gets its code's.
 * - The exit code is the code's (`EXIT_OF_CODE`), or the reason's where it differs (`EXIT_OF_REASON`).
 */

/** The exit code of each API error code (see `rwa --help` and docs/cli.md). */
export const EXIT_OF_CODE: Record<ErrorCode, number> = {
  invalid_request: EXIT.usage,
  payload_too_large: EXIT.usage,
  unsupported_media_type: EXIT.usage,
  unprocessable: EXIT.usage,
  unauthenticated: EXIT.auth,
  forbidden: EXIT.auth,
  plan_required: EXIT.auth,
  not_found: EXIT.notFound,
  method_not_allowed: EXIT.usage,
  conflict: EXIT.conflict,
  quota_exceeded: EXIT.conflict,
  rate_limited: EXIT.conflict,
  internal: EXIT.unexpected,
  unavailable: EXIT.unreachable,
}

/**
 * Reasons whose exit code is not their code's. A path no operation has is not a record that does not
 * exist: exit 4 would tell a script `rwa tokens get X || create` to create; it is the `--url` (or the
 * server's version) that is wrong, a usage error.
 */
export const EXIT_OF_REASON: Partial<Record<Reason, number>> = {
  route_not_found: EXIT.usage,
}

/** What main() prints and the code it exits with, for any error a command throws. */
export interface Failure {
  code: number
  message: string
  hint?: string
  /** Shown only with --verbose. */
  details?: string
}

export { CommandFailure, type FailureContext }

/** A problem's context value at `key` as text, or `fallback` (a placeholder the user fills in). */
function text(problem: ApiProblemError, key: string, fallback: string): string {
  const value = problem.context[key]
  return typeof value === 'string' && value !== '' ? word(value) : fallback
}

/** A value as one shell word: as it is when it needs no quoting, else single-quoted. */
const word = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`

const count = (problem: ApiProblemError, key: string): number => {
  const value = problem.context[key]
  return typeof value === 'number' ? value : 0
}

/** The value given for a field, as typed: bare when it reads as a number, else quoted. */
function typed(value: unknown): string {
  const shown = Array.isArray(value) ? value.join(',') : value
  if (typeof shown === 'string')
    return /^[-+]?\d[\d.]*(e[-+]?\d+)?$/i.test(shown) ? shown : JSON.stringify(shown)
  return JSON.stringify(shown)
}

function valueAt(body: Record<string, unknown> | undefined, path: string): unknown {
  let value: unknown = body
  for (const key of path.split('.')) {
    if (!value || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/** The name a refused field goes by on this command line, the value it was given, an example. */
function nameOfField(
  path: string,
  where: unknown,
  context: FailureContext,
): { name: string; given?: string; example?: string } {
  const request = context.request
  const inBody = request !== undefined && valueAt(request.body, path) !== undefined
  // An element of a list (`roles.0`) goes by the flag of its list (`--roles`), with its own value.
  const list = path.replace(/(\.\d+)+$/, '')
  // Given by a flag: the field itself, or the list or object it lies in.
  const byFlag = [...(request?.fromFlags ?? [])].some((key) => path === key || path.startsWith(`${key}.`))
  if (request?.file !== undefined && inBody && !byFlag && where !== 'path') {
    return { name: `${path} (from --file ${request.file})`, given: typed(valueAt(request.body, path)) }
  }
  // The part the server names (`where`): `id` of the path is not an `id` of the body.
  const part = where === 'body' || where === 'query' || where === 'path' ? where : undefined
  const inPart = (f: Flag) => part === undefined || f.in === part
  const flag =
    context.fields.find((f) => (f.field === path || f.field === list) && inPart(f)) ??
    // A key of an object a flag gives (`max_holders_per_country.QQ` of `--max-holders-per-country
    // US=5,QQ=5`) goes by that flag, with the flag's value as typed.
    context.fields.find((f) => path.startsWith(`${f.field}.`) && inPart(f))
  const flagGiven = flag !== undefined && context.flagValues?.[longOf(flag)] !== undefined
  // A path parameter the command took as its one argument (`rwa credentials get <credential_id>`).
  if (!flagGiven && where === 'path' && context.argumentNames.length === 1 && context.args[0] !== undefined) {
    return { name: `<${context.argumentNames[0]}>`, given: JSON.stringify(context.args[0]) }
  }
  const given = flagGiven
    ? typed(list !== path && inBody ? valueAt(request?.body, path) : context.flagValues?.[longOf(flag)])
    : inBody
      ? typed(valueAt(request?.body, path))
      : undefined
  // Named as typed: an earlier spelling (`--id`) by itself.
  const name = flag && (context.spelled?.[longOf(flag)] ?? longOf(flag))
  if (flag) return { name: name!, given, example: flag.example && `${name} ${flag.example}` }
  return { name: path, given }
}

/** One refused field in CLI terms: `--recipient-did: expected a DID, e.g. did:web:acme:alice (got "bob")`. */
function describeField(
  path: string,
  messages: string[],
  where: unknown,
  context: FailureContext,
  /** Whether the value's form could be what was refused: not for one in use by something else (409). */
  formRefused: boolean,
): string {
  const { name, given, example } = nameOfField(path, where, context)
  // A message that names the value itself (`QQ is not one`) needs no `got "QQ"` after it.
  const raw = given?.startsWith('"') ? (JSON.parse(given) as string) : given
  const named = raw !== undefined && messages.some((m) => m.includes(`${raw} is not`))
  const notes = [
    ...(given === undefined || named ? [] : [`got ${given}`]),
    ...(formRefused && example && !messages.some((m) => m.includes('e.g.')) ? [`e.g. ${example}`] : []),
  ]
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

/** The message: each refused field in CLI terms when the problem names fields, else its `detail`. */
function messageOf(problem: ApiProblemError, context: FailureContext): string {
  const fields = fieldsOf(problem.errors)
  if (fields.length === 0) return problem.detail
  const formRefused = problem.code !== 'conflict'
  const lines = fields.map(([path, messages]) =>
    describeField(path, messages, problem.context.where, context, formRefused),
  )
  return lines.length === 1 ? lines[0]! : `${lines.length} values were refused:\n  ${lines.join('\n  ')}`
}

/** A hint: what to run next. `null` says the reason has none (not even its code's). */
type Hint = (problem: ApiProblemError, context: FailureContext) => string | null

/** The `rwa` command that lists what a `<kind>_not_found` names. */
const listOf =
  (group: string): Hint =>
  () =>
    `\`rwa ${group} list\` shows what exists`

const rateLimited: Hint = (problem, context) => {
  const tiers = '`rwa pricing` lists the limits of each tier'
  const retryAfter = problem.retryAfterSeconds ?? (count(problem, 'retry_after_seconds') || undefined)
  if (context.waitMaxSeconds && retryAfter !== undefined) {
    return `the next slot is ${retryAfter} s away, more than --wait-max ${context.waitMaxSeconds} allows: raise --wait-max, or see ${tiers.replace(' lists', ' for')}`
  }
  return `add --wait to wait for it and retry (up to --wait-max seconds, default 120); ${tiers}`
}

const tokenOf = (problem: ApiProblemError, context: FailureContext): string =>
  text(problem, 'token_id', context.args[0] ? word(context.args[0]) : 'TOKEN')

/** The hint of each reason that has one of its own; keyed by reason, fed by the context. */
const HINTS: Partial<Record<Reason, Hint>> = {
  org_id_required: () => 'name it: `--org-id ORG` (`--org-id admin` makes another admin key)',
  invalid_cursor: () =>
    "give --cursor the next_cursor a page's footer printed, or leave it out to start over",
  // 401
  key_missing: () =>
    'pass --api-key-file FILE or --api-key-stdin, set RWA_API_KEY, or save a profile with `rwa config set`',
  key_malformed: () => '`rwa config show` shows which key is in use and where it comes from',
  key_unknown: () =>
    '`rwa config show` shows which key is in use and where it comes from; is --url the server that issued it?',
  key_revoked: (p) =>
    p.context.revoked_reason === 'rerolled'
      ? 'use the key that replaced it (`rwa keys list` with an owner key shows which); the old one is gone for good'
      : "use another key of the organization, or have one created: `rwa keys create --name NAME` with an owner's or the admin key",
  key_expired: () =>
    "its time is up: have a new one created, `rwa keys create --name NAME --expires-in 24h` with an owner's or the admin key",
  // 403
  other_organization: (p) =>
    `drop --org-id, or use a key of ${text(p, 'org_id', 'that organization')} (or the admin key)`,
  role_required: (p) => {
    const roles = Array.isArray(p.context.roles) ? p.context.roles.map(String) : []
    const role = roles.find((r) => r !== 'owner') ?? 'owner'
    return `\`rwa whoami\` shows the roles of the key in use; an owner makes a fitting one: \`rwa keys create --name NAME --roles ${word(role)}\``
  },
  approval_requires_another_key: (p) =>
    `four eyes: another key with the agent role (or an owner) approves it: \`rwa approvals approve ${text(p, 'approval_id', 'ID')}\` with that key`,
  admin_key_required: () =>
    'use the admin key: printed once when the server first started (or set with RWA_ADMIN_KEY)',
  plan_required: (p) => {
    const org = text(p, 'org_id', 'ORG')
    const trialEnded = typeof p.context.trial_ends_at === 'string'
    return trialEnded
      ? `its trial ended at ${p.context.trial_ends_at}: \`rwa pricing\` lists the tiers; \`rwa subscription get ${org}\` shows its subscription`
      : `start its trial: \`rwa keys create --org-id ${org} --start-trial --name NAME\`; or subscribe: \`rwa pricing\` lists the tiers`
  },
  max_dids: () => '`rwa usage` shows what is used; `rwa pricing` lists the quotas of each tier',
  max_skills: () =>
    'every tokenized asset is a skill: `rwa usage` shows what is used; `rwa pricing` lists the quotas of each tier',
  // 404
  route_not_found: () =>
    'is --url (or RWA_URL) the base URL of an rwa server, of a version that has this command? `rwa config show` shows the one in use',
  organization_not_found: (p) =>
    `\`rwa keys create --org-id ${text(p, 'org_id', 'ORG')} --name NAME\` (admin key) makes its first key, which creates it`,
  key_not_found: () => '`rwa keys list` shows the keys of the organization',
  jurisdiction_not_found: listOf('jurisdictions'),
  credential_not_found: listOf('credentials'),
  attestation_not_found: listOf('attestations'),
  issuer_not_found: listOf('issuers'),
  identity_not_found: listOf('identities'),
  token_not_found: listOf('tokens'),
  transfer_not_found: listOf('transfers'),
  proof_not_found: () => "`rwa transfers list` shows each transfer's proof_id",
  approval_not_found: listOf('approvals'),
  trust_not_found: (p) =>
    `\`rwa trust list --jurisdiction ${text(p, 'from_jurisdiction', 'ID')} --status active\` lists the trust in force`,
  holding_not_found: (p, c) =>
    `\`rwa tokens holdings ${tokenOf(p, c)} --holder-did ${text(p, 'holder_did', 'DID')}\` lists its holdings`,
  // 409
  approval_not_pending: (p) =>
    `\`rwa approvals get ${text(p, 'approval_id', 'ID')}\` shows who decided it and what became of it`,
  approval_expired: () =>
    'it waited more than 72 h: run the command again to request a new approval, and have it approved in time',
  approval_requester_revoked: (p) =>
    `the key that asked for it is revoked or expired, so it never runs: \`rwa approvals get ${text(p, 'approval_id', 'ID')}\` shows it; a key in force runs the command again to ask anew`,
  key_already_revoked: () =>
    '`rwa keys list` shows each key and whether it is revoked; `rwa keys create --name NAME` makes a new one',
  last_admin_key: (_p, c) =>
    c.command === 'keys reroll'
      ? `reroll it with an overlap of at least 5m, so that it still works should the new key be lost: \`rwa keys reroll ${c.args[0] ? word(c.args[0]) : 'KEY_ID'} --overlap 1h\`; or create another admin key first: \`rwa keys create --org-id admin --name NAME\``
      : 'create another admin key first: `rwa keys create --org-id admin --name NAME`',
  key_already_rerolled: (p) =>
    `reroll its replacement instead: \`rwa keys reroll ${text(p, 'replaced_by', 'KEY_ID')}\``,
  key_already_expired: () => 'make a new key instead: `rwa keys create --name NAME --expires-in 24h`',
  issuer_exists: (p) => {
    const id = text(p, 'issuer_id', 'ID')
    return `\`rwa issuers get ${id}\` shows it (a removed issuer keeps its id: register the provider under another)`
  },
  identity_exists: (p) => `\`rwa identities get ${text(p, 'identity_id', 'ID')}\` shows it`,
  did_in_use: (p) => {
    const id = text(p, 'identity_id', 'ID')
    return `\`rwa identities get ${id}\` shows it; \`rwa identities remove-did ${id} --did ${text(p, 'did', 'DID')}\` frees it`
  },
  issuer_removed: () => 'a removed issuer stays removed: register the provider again under another id',
  issuer_unresolvable: (p) =>
    text(p, 'did', '').startsWith('did:key:')
      ? 'use an Ed25519 did:key (did:key:z6Mk…), or register the provider by a did:web whose document lists an Ed25519 key (a JsonWebKey with an OKP Ed25519 publicKeyJwk, or a Multikey z6Mk…)'
      : "check the DID: a did:web's document is fetched over https from a public address (a provider on this machine needs the server started with --allow-http-issuers)",
  jurisdiction_exists: (p) => {
    const id = text(p, 'jurisdiction_id', 'ID')
    return `\`rwa jurisdictions get ${id}\` shows it; \`rwa jurisdictions update ${id}\` changes it`
  },
  jurisdiction_in_use: (p) => {
    const id = text(p, 'jurisdiction_id', 'ID')
    const kept = ['credentials', 'attestations', 'tokens', 'holdings'].some((k) => count(p, k) > 0)
    // Records keep their jurisdiction for good (the message says so); trust can be revoked.
    if (kept) return `\`rwa jurisdictions update ${id}\` changes its requirements instead`
    return `\`rwa trust list --jurisdiction ${id} --status active\` lists the trust; \`rwa trust revoke --from A --to B --yes\` revokes each`
  },
  trust_exists: (p) => {
    const from = text(p, 'from_jurisdiction', 'A')
    const to = text(p, 'to_jurisdiction', 'B')
    return `\`rwa trust list --jurisdiction ${from} --status active\` shows it; \`rwa trust revoke --from ${from} --to ${to} --yes\` revokes it`
  },
  title_deed_in_use: (p) => {
    const id = text(p, 'credential_id', 'ID')
    return `\`rwa credentials get ${id}\` shows it; if this one replaces it, \`rwa credentials revoke ${id} --reason ...\` first`
  },
  credential_already_revoked: (p, c) =>
    `\`rwa credentials get ${text(p, 'credential_id', c.args[0] ?? 'ID')}\` shows the revocation and its reason`,
  credential_revoked: (p) =>
    `\`rwa credentials get ${text(p, 'credential_id', 'ID')}\` shows why; \`rwa credentials list --status active\` lists those that can be`,
  credential_expired: (p) =>
    `\`rwa credentials get ${text(p, 'credential_id', 'ID')}\` shows its validity; \`rwa credentials issue\` issues a new one`,
  credential_already_tokenized: (p) => `\`rwa tokens get ${text(p, 'token_id', 'ID')}\` shows it`,
  token_frozen: (p) => `\`rwa credentials get ${text(p, 'credential_id', 'ID')}\` shows the revocation`,
  token_already_paused: (p, c) => `\`rwa tokens get ${tokenOf(p, c)}\` shows its status`,
  token_not_paused: (p, c) => `\`rwa tokens get ${tokenOf(p, c)}\` shows its status`,
  // A DID frozen as a whole may hold nothing: the list of those DIDs, not its holdings.
  holder_already_frozen: (p, c) =>
    `\`rwa tokens frozen-holders ${tokenOf(p, c)}\` lists every DID frozen as a whole`,
  holder_not_frozen: (p, c) =>
    `\`rwa tokens frozen-holders ${tokenOf(p, c)}\` lists every DID frozen as a whole`,
  frozen_units_exceed_holding: (p, c) =>
    `\`rwa tokens holdings ${tokenOf(p, c)}\` shows each holding's frozen units`,
  frozen_units_insufficient: (p, c) =>
    `\`rwa tokens holdings ${tokenOf(p, c)}\` shows each holding's frozen units`,
  insufficient_holding: (p, c) =>
    `\`rwa tokens holdings ${tokenOf(p, c)} --holder-did ${text(p, 'holder_did', 'DID')}\` shows how much it holds where`,
  nothing_to_recover: (p, c) => `\`rwa tokens holdings ${tokenOf(p, c)}\` lists who holds it`,
  webhook_endpoint_limit: () =>
    '`rwa webhooks list` shows the endpoints; `rwa webhooks delete ID` removes one you no longer need',
  // 422
  credential_type_not_accepted: (p) => {
    const id = text(p, 'jurisdiction_id', 'ID')
    const accepted = Array.isArray(p.context.accepted) ? p.context.accepted.map(String) : []
    const type = typeof p.context.credential_type === 'string' ? [p.context.credential_type] : []
    return `\`rwa jurisdictions update ${id} --credential-types ${word([...accepted, ...type].join(',') || 'TYPE')}\` adds it`
  },
  unknown_requirement: (p) => {
    const known = Array.isArray(p.context.known) ? p.context.known.map(String).join(', ') : ''
    return `${known ? `requirements known here: ${known}; ` : ''}a jurisdiction adds its own with \`rwa jurisdictions update ID --transfer-requirements ...\``
  },
  max_supply_exceeded: (p, c) =>
    `\`rwa tokens rules set ${tokenOf(p, c)} --max-supply N\` raises the cap (${typeof p.context.max_supply === 'number' ? p.context.max_supply : 'see `rwa tokens rules get`'} now); \`rwa tokens burn\` makes room`,
  recipient_not_kyc: (p) => {
    const where = Array.isArray(p.context.jurisdictions) ? p.context.jurisdictions.map(String) : []
    return `\`rwa attestations submit --jurisdiction ${word(where[0] ?? 'ID')} --subject-did ${text(p, 'did', 'DID')} --type kyc --attester NAME\` records one`
  },
  admin_not_billed: () => null,
  expires_at_not_future: () => '--expires-in takes a duration from now: 24h, 30m or 10s',
  // 429
  rate_limited: rateLimited,
  // 503
  starting: () => 'retry in a moment',
  database_unavailable: (p) =>
    `the server cannot reach its database (the request itself is fine): retry in ${p.retryAfterSeconds ?? 'a few'} s; the server's log names the cause`,
}

/** Command groups with a `get ID` subcommand. */
const GETTABLE = new Set([
  'jurisdictions',
  'credentials',
  'attestations',
  'tokens',
  'transfers',
  'proofs',
  'approvals',
])

/** The hint of a code, for a reason without one of its own. */
const CODE_HINTS: Record<ErrorCode, Hint> = {
  invalid_request: (_, c) => (c.command ? `\`rwa ${c.command} --help\` lists its flags and arguments` : null),
  payload_too_large: () => null,
  unsupported_media_type: () => null,
  unprocessable: (p) => `docs/errors.md says when ${p.reason} happens`,
  unauthenticated: () => '`rwa config show` shows which key is in use and where it comes from',
  forbidden: () => '`rwa config show` shows which key is in use; use one that may do this',
  plan_required: HINTS.plan_required!,
  quota_exceeded: () => '`rwa usage` shows what is used; `rwa pricing` lists the quotas of each tier',
  not_found: (_, c) => `\`rwa ${c.command.split(' ')[0] || '<group>'} list\` shows what exists`,
  method_not_allowed: HINTS.route_not_found!,
  conflict: (_, c) => {
    const group = c.command.split(' ')[0] || '<group>'
    if (GETTABLE.has(group) && c.args[0])
      return `\`rwa ${group} get ${word(c.args[0])}\` shows its current state`
    return `\`rwa ${group} list\` shows the current state`
  },
  rate_limited: rateLimited,
  internal: () => 'retry; if it persists, report it with the request id (--verbose shows it)',
  unavailable: () => "retry later; the server's log says which service it cannot reach",
}

const NO_CONTEXT: FailureContext = { command: '', fields: [], args: [], argumentNames: [] }

/** The hint for an API error: its reason's, else its code's. */
function hintOf(problem: ApiProblemError, context: FailureContext): string | undefined {
  const hint = HINTS[problem.reason] ?? CODE_HINTS[problem.code]
  return hint(problem, context) ?? undefined
}

/** What --verbose adds: the request id, the reason and context, and the whole problem document. */
function detailsOf(problem: ApiProblemError): string {
  return [
    ...(problem.requestId === undefined ? [] : [`request id: ${problem.requestId}`]),
    `reason: ${problem.reason}`,
    `context: ${JSON.stringify(problem.context)}`,
    JSON.stringify(problem.problem, null, 2),
  ].join('\n')
}

/** Turns any thrown value into a message, a hint and an exit code. */
export function describeFailure(thrown: unknown): Failure {
  const context = thrown instanceof CommandFailure ? thrown.context : NO_CONTEXT
  const error = thrown instanceof CommandFailure ? thrown.error : thrown
  if (error instanceof ExitError) return { code: error.code, message: error.message, hint: error.hint }
  if (error instanceof ApiProblemError) {
    return {
      code: EXIT_OF_REASON[error.reason] ?? EXIT_OF_CODE[error.code],
      message: messageOf(error, context),
      hint: hintOf(error, context),
      details: detailsOf(error),
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
      hint: "is --url (or RWA_URL) the base URL of an rwa server, of this CLI's version? `rwa config show` shows the one in use; --verbose shows what it answered",
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
