import type { ZodError, z } from 'zod'

type ZodIssue = z.core.$ZodIssue
import {
  ERROR_STATUS,
  ERROR_TITLE,
  type ErrorCode,
  type FieldError,
  type Problem,
  problemType,
  REASONS,
  type Reason,
} from '../../src/contract/errors.js'
import { printableText } from '../../src/contract/text.js'

/** What a refusal is about: the ids and values a program needs, beside the prose of `detail`. */
export type ProblemContext = Record<string, unknown>

/**
 * The one error the service layer throws for an expected failure. It knows nothing of HTTP beyond its
 * reason: the code and status follow from the contract's tables, and the error handler renders it as
 * RFC 9457 problem details carrying `reason` and `context`.
 */
export class ApiError extends Error {
  readonly code: ErrorCode
  readonly status: number

  constructor(
    readonly reason: Reason,
    readonly detail: string,
    readonly options: {
      context?: ProblemContext
      errors?: FieldError[]
      headers?: Record<string, string>
      /** `batch_operation_failed`: the failed operation's own problem. */
      operationProblem?: Problem
    } = {},
  ) {
    super(detail)
    this.name = 'ApiError'
    this.code = REASONS[reason].code
    this.status = ERROR_STATUS[this.code]
  }

  toProblem(): Problem {
    const problem: Problem = {
      type: problemType(this.code),
      title: ERROR_TITLE[this.code],
      status: this.status,
      detail: this.detail,
      code: this.code,
      reason: this.reason,
      context: this.options.context ?? {},
    }
    if (this.options.errors) problem.errors = this.options.errors
    if (this.options.operationProblem) problem.operation_problem = this.options.operationProblem
    return problem
  }
}

/** `invalid_request` naming every failing field of a zod error. */
export function validationError(error: ZodError, where: string): ApiError {
  return invalidFields(where, fieldErrorsOf(error.issues, where))
}

/** Each failing field of zod issues, its path dotted (`where` for the whole value). */
export function fieldErrorsOf(issues: readonly ZodIssue[], where: string): FieldError[] {
  return issues.flatMap((issue): FieldError[] => {
    // A body of two forms (a union of objects): the fields of the form the body is of, the first with
    // no field it does not know (or the first form), prefixed with where the union sits.
    if (
      issue.code === 'invalid_union' &&
      'errors' in issue &&
      Array.isArray(issue.errors) &&
      issue.errors.length > 0
    ) {
      const branches = issue.errors as ZodIssue[][]
      const chosen = branches.find((b) => !b.some((i) => i.code === 'unrecognized_keys')) ?? branches[0]!
      return fieldErrorsOf(
        chosen.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as ZodIssue),
        where,
      )
    }
    // A record's key refused (`max_holders_per_country: { "QQ": 5 }`): at the key, with its schema's
    // own messages rather than zod's "Invalid key in record".
    if (issue.code === 'invalid_key' && Array.isArray(issue.issues) && issue.issues.length > 0) {
      return fieldErrorsOf(
        issue.issues.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as ZodIssue),
        where,
      )
    }
    // An unknown field is reported at the field itself, not at the object holding it.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: printableText([...issue.path, key].join('.')),
        message: 'Unknown field',
      }))
    }
    return [
      { path: issue.path.length > 0 ? printableText(issue.path.join('.')) : where, message: issue.message },
    ]
  })
}

/** `invalid_request` naming each failing field of the body, query or path (`where`). */
export function invalidFields(where: string, errors: FieldError[]): ApiError {
  const summary = errors.map((e) => `${e.path}: ${e.message}`).join('; ')
  return new ApiError('invalid_field', `Invalid ${where}: ${summary}`, { errors, context: { where } })
}

/** Kinds of record a 404 can be about: each has its reason `<kind>_not_found` and context `<kind>_id`. */
export type RecordKind =
  | 'jurisdiction'
  | 'credential'
  | 'attestation'
  | 'issuer'
  | 'identity'
  | 'token'
  | 'transfer'
  | 'proof'
  | 'status_list'
  | 'event'
  | 'webhook'
  | 'delivery'
  | 'approval'

/** A 404 for an id the caller's organization does not have (another organization's looks the same). */
export const notFound = (kind: RecordKind, id: string): ApiError =>
  new ApiError(`${kind}_not_found`, `No ${kind.replace('_', ' ')} with id ${id}`, {
    context: { [`${kind}_id`]: id },
  })

/** A service the server needs at start (PostgreSQL, Redis) cannot be reached; the message names its URL. */
export class UnreachableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'UnreachableError'
  }
}

/** Which integrity rule a database error broke, on either dialect, or null for any other error. */
export function constraintViolationOf(error: unknown): 'unique' | 'foreign_key' | null {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return null
  // PostgreSQL's SQLSTATE codes, and better-sqlite3's extended result codes.
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    return 'unique'
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'foreign_key'
  return null
}

/** Seconds a client is told to wait (`Retry-After`) when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5

// PostgreSQL's connection-class SQLSTATEs (08: connection exception; 57P01-57P03: shut down, crash,
// cannot connect now; 53300: too many connections), Node's socket errors, and SQLite's "busy past the
// timeout", I/O and cannot-open codes.
const UNAVAILABLE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_FULL',
])
// What node-postgres throws with no code when a connection dies or none can be had in time.
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error/,
  /^Connection ended unexpectedly/,
  /^The database connection is not open/,
]

// PostgreSQL aborting a transaction to break a lock cycle (40P01), a serialization failure (40001) or a
// lock it could not take (55P03): the write is rolled back whole, and the same request sent again can
// succeed. Writes lock their rows in one order (docs/architecture.md, the organization's log row last),
// so this is a safety net, not a path a write of rwa's is expected to take.
const LOCK_CONFLICT_CODES = new Set(['40P01', '40001', '55P03'])

/** Whether `error` is a transaction the database aborted over a lock conflict (retryable, nothing written). */
export function isLockConflict(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && LOCK_CONFLICT_CODES.has(code)) return true
  }
  return false
}

/**
 * Whether `error` means the database cannot be reached (or stayed busy past its timeout) rather than
 * that a statement is wrong: such a request is answered 503 with `Retry-After`, never 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string') {
      if (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('SQLITE_IOERR')) return true
      if (code.startsWith('SQLITE_BUSY')) return true
    }
    if (e instanceof AggregateError && e.errors.some(isDatabaseUnavailable)) return true
    if (UNAVAILABLE_MESSAGES.some((m) => m.test(e.message))) return true
  }
  return false
}
