import { ApiProblemError, ConnectionError, UnexpectedResponseError } from '../client/errors.js'
import type { ErrorCode } from '../contract/errors.js'
import { EXIT, ExitError } from './exit-error.js'

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

const HINT_OF_CODE: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'check the flags named above; `--help` lists them',
  unprocessable: 'the request is well-formed but the rules do not allow it; see the detail above',
  unauthenticated: 'check the API key (--api-key-file, --api-key-stdin, RWA_API_KEY or `rwa config set`)',
  forbidden: 'this key may not do that; use a key of that organization or the admin key',
  plan_required: 'governance needs a trial or a paid tier: see `rwa pricing` and `rwa subscription get`',
  not_found: 'check the id; the list commands show what exists',
  conflict: 'the current state does not allow this; `get` the resource to see it',
  quota_exceeded: 'the tier quota is used up: see `rwa usage` and `rwa pricing`',
  rate_limited: 'wait and retry, or move to a higher tier (`rwa pricing`)',
  payload_too_large: 'request bodies are limited to 1 MiB',
  internal: 'the server logged the details; retry, and report it if it persists',
}

/** What main() prints and the code it exits with, for any error a command throws. */
export interface Failure {
  code: number
  message: string
  hint?: string
  /** Shown only with --verbose. */
  details?: string
}

/** Turns any thrown value into a one-line message, a hint and an exit code. */
export function describeFailure(error: unknown): Failure {
  if (error instanceof ExitError) return { code: error.code, message: error.message, hint: error.hint }
  if (error instanceof ApiProblemError) {
    const fields =
      error.errors.length > 0 ? error.errors.map((e) => `${e.path}: ${e.message}`).join('; ') : ''
    // The detail already names the fields for validation errors; avoid saying it twice.
    const message = fields && !error.detail.includes(fields) ? `${error.detail} (${fields})` : error.detail
    let hint = HINT_OF_CODE[error.code]
    if (error.code === 'rate_limited' && error.retryAfterSeconds !== undefined) {
      hint = `retry in ${error.retryAfterSeconds} s, or move to a higher tier (\`rwa pricing\`)`
    }
    return {
      code: EXIT_OF_CODE[error.code],
      message,
      hint,
      details: JSON.stringify(error.problem, null, 2),
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
    return { code: EXIT.unexpected, message: error.message, details: error.body.slice(0, 4000) }
  }
  const message = error instanceof Error ? error.message : String(error)
  return {
    code: EXIT.unexpected,
    message,
    hint: 'run again with --verbose for details',
    details: error instanceof Error ? error.stack : undefined,
  }
}
