import type { ZodError } from 'zod'
import {
  ERROR_STATUS,
  ERROR_TITLE,
  type ErrorCode,
  type FieldError,
  type Problem,
  problemType,
} from '../src/contract/errors.js'

/**
 * The one error the service layer throws for an expected failure. It knows nothing of HTTP beyond the
 * code: the status comes from the contract's code table, and the error handler renders it as RFC 9457
 * problem details.
 */
export class ApiError extends Error {
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly options: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail)
    this.name = 'ApiError'
    this.status = ERROR_STATUS[code]
  }

  toProblem(): Problem {
    const problem: Problem = {
      type: problemType(this.code),
      title: ERROR_TITLE[this.code],
      status: this.status,
      detail: this.detail,
      code: this.code,
    }
    if (this.options.errors) problem.errors = this.options.errors
    return problem
  }
}

/** `invalid_request` naming every failing field of a zod error. */
export function validationError(error: ZodError, where: string): ApiError {
  const errors: FieldError[] = error.issues.flatMap((issue) => {
    // An unknown field is reported at the field itself, not at the object holding it.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...issue.path, key].join('.'), message: 'Unknown field' }))
    }
    return [{ path: issue.path.length > 0 ? issue.path.join('.') : where, message: issue.message }]
  })
  return invalidFields(where, errors)
}

/** `invalid_request` naming each failing field of the body, query or path (`where`). */
export function invalidFields(where: string, errors: FieldError[]): ApiError {
  const summary = errors.map((e) => `${e.path}: ${e.message}`).join('; ')
  return new ApiError('invalid_request', `Invalid ${where}: ${summary}`, { errors })
}

export const notFound = (what: string, id: string): ApiError =>
  new ApiError('not_found', `No ${what} with id ${id}`)

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
