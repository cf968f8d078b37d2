import type { ErrorCode, FieldError, Problem, Reason } from '../contract/errors.js'

/** The server answered with RFC 9457 problem details (any 4xx or 5xx from the rwa API). */
export class ApiProblemError extends Error {
  readonly status: number
  readonly code: ErrorCode
  /** The stable reason of the refusal (docs/errors.md): what a program branches on. */
  readonly reason: Reason
  /** The ids and values the refusal is about. */
  readonly context: Record<string, unknown>
  readonly detail: string
  readonly errors: FieldError[]

  constructor(
    readonly problem: Problem,
    /** Value of `Retry-After`, when the server set one (rate limits). */
    readonly retryAfterSeconds?: number,
    /** The request's `X-Request-Id`: the server's log line of the request carries it. */
    readonly requestId: string | undefined = problem.request_id,
  ) {
    super(problem.detail)
    this.name = 'ApiProblemError'
    this.status = problem.status
    this.code = problem.code
    this.reason = problem.reason
    this.context = problem.context
    this.detail = problem.detail
    this.errors = problem.errors ?? []
  }
}

/** The server could not be reached at all: refused, unresolvable, reset or timed out. */
export class ConnectionError extends Error {
  constructor(
    readonly url: string,
    /** The network error code, e.g. `ECONNREFUSED`, or `HEADERS_TIMEOUT` when the server took longer than the client's timeout. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot reach ${url} (${reason})`, options)
    this.name = 'ConnectionError'
  }
}

/**
 * The server answered, but not as the contract says: a success body that fails its schema, or an error
 * that is not problem details (a proxy's HTML page, say). Usually a client/server version mismatch or
 * the wrong URL.
 */
export class UnexpectedResponseError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The body as received, for --verbose. */
    readonly body: string,
    /** The response's `X-Request-Id`, when it carried one. */
    readonly requestId?: string,
  ) {
    super(message)
    this.name = 'UnexpectedResponseError'
  }
}
