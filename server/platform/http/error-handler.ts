import type { Context, ErrorHandler, NotFoundHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { Problem, Reason } from '../../../src/contract/errors.js'
import {
  ApiError,
  constraintViolationOf,
  DATABASE_RETRY_AFTER_SECONDS,
  isDatabaseUnavailable,
  isLockConflict,
} from '../errors.js'

export const PROBLEM_JSON = 'application/problem+json'

/** The problem details of `error` for this request, carrying its request id (from `X-Request-Id`). */
export function problemOf(c: Context, error: ApiError): Problem {
  const problem = error.toProblem()
  const requestId: string | undefined = c.get('requestId')
  if (requestId !== undefined) problem.request_id = requestId
  return problem
}

/** Renders an ApiError as problem details. */
export function problemResponse(c: Context, error: ApiError): Response {
  return c.body(JSON.stringify(problemOf(c, error)), error.status as ContentfulStatusCode, {
    'Content-Type': PROBLEM_JSON,
    ...error.options.headers,
  })
}

// What Hono's own exceptions (malformed JSON, wrong media type) mean in our reason table.
const HTTP_EXCEPTION_REASONS: Record<number, Reason> = {
  400: 'malformed_body',
  404: 'route_not_found',
  413: 'payload_too_large',
  415: 'json_required',
}

/**
 * The refusal a database's unique or foreign-key violation means, or undefined for any other error. The
 * services check what they can and lock where a check could be interleaved; a unique or foreign key the
 * database still refused means a concurrent request changed the same thing first.
 */
export function concurrencyRefusalOf(error: unknown): ApiError | undefined {
  const violation = constraintViolationOf(error)
  if (violation === 'unique')
    return new ApiError(
      'concurrent_duplicate',
      'A concurrent request created the same thing first; read it back before retrying',
    )
  if (violation === 'foreign_key')
    return new ApiError(
      'concurrent_removal',
      'A concurrent request removed something this one refers to; read it back before retrying',
    )
  return undefined
}

/**
 * Turns anything thrown by a route into problem details. Expected failures are ApiErrors; Hono's
 * HTTPExceptions map through the code table; a database's unique or foreign-key refusal is a 409;
 * anything else is a bug: a bare 500 for the client, the details for the log.
 */
export function errorHandler(logError: (message: string, error?: unknown) => void): ErrorHandler {
  return function handleError(error, c) {
    if (error instanceof ApiError) return problemResponse(c, error)
    if (error instanceof HTTPException) {
      const reason = HTTP_EXCEPTION_REASONS[error.status]
      if (reason) {
        const detail =
          reason === 'json_required'
            ? 'Send the request body as JSON with Content-Type: application/json'
            : error.message
        return problemResponse(c, new ApiError(reason, detail))
      }
    }
    const refusal = concurrencyRefusalOf(error)
    if (refusal) return problemResponse(c, refusal)
    const lockConflict = isLockConflict(error)
    if (lockConflict || isDatabaseUnavailable(error)) {
      logError(
        `database ${lockConflict ? 'lock conflict' : 'unavailable'} on ${c.req.method} ${c.req.path} (request ${c.get('requestId')}):`,
        error,
      )
      return problemResponse(
        c,
        new ApiError(
          'database_unavailable',
          lockConflict
            ? 'The database rolled this write back to break a lock conflict with a concurrent one; nothing was written; retry after Retry-After seconds'
            : 'The database cannot be reached; retry after Retry-After seconds',
          {
            context: { retry_after_seconds: DATABASE_RETRY_AFTER_SECONDS },
            headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
          },
        ),
      )
    }
    logError(`unexpected error on ${c.req.method} ${c.req.path} (request ${c.get('requestId')}):`, error)
    return problemResponse(c, new ApiError('internal', 'Internal error; the server logged the details'))
  }
}

/**
 * What a request no route answers is told: 405 with `Allow` when the path is known with other methods
 * only (`allowedOf`), else 404 `route_not_found`.
 */
export function notFoundHandler(allowedOf: (path: string) => string[]): NotFoundHandler {
  return function handleNotFound(c) {
    const allow = allowedOf(c.req.path)
    // A route of this method matched and found nothing itself (an asset /docs does not have): a 404.
    if (allow.length > 0 && !allow.includes(c.req.method)) {
      return problemResponse(
        c,
        new ApiError(
          'method_not_allowed',
          `${c.req.method} is not allowed on ${c.req.path}; it answers ${allow.join(', ')}`,
          {
            context: { method: c.req.method, path: c.req.path, allow },
            headers: { Allow: allow.join(', ') },
          },
        ),
      )
    }
    return problemResponse(
      c,
      new ApiError('route_not_found', `No route for ${c.req.method} ${c.req.path}`, {
        context: { method: c.req.method, path: c.req.path },
      }),
    )
  }
}
