import { Agent, request } from 'undici'
import type { z } from 'zod'
import { type Problem, problemSchema } from '../contract/errors.js'
import { ApiProblemError, ConnectionError, UnexpectedResponseError } from './errors.js'

/** How to reach an rwa server. */
export interface ClientOptions {
  /** e.g. `http://127.0.0.1:4600`; paths are appended to it. */
  baseUrl: string
  /** Sent as `X-API-Key`; omitted when undefined (the public pricing endpoint needs none). */
  apiKey?: string
  /** Time allowed for the response headers and then for the body, each. Default 30 s. */
  timeoutMs?: number
  /** Extra attempts of an idempotent call after a connection error. Default 2. */
  retries?: number
  /** Delay before the first retry; doubles each time. Default 200 ms. */
  retryDelayMs?: number
  /**
   * On a 429, wait the `Retry-After` seconds and send the call again, as long as the waits add up to
   * no more than this many seconds. Default 0: a 429 is thrown at once. Safe for any method: a
   * rate-limited call was refused before the server did anything.
   */
  rateLimitWaitSeconds?: number
  /** Told before each wait of `rateLimitWaitSeconds`, e.g. to say so on stderr. */
  onRateLimitWait?: (wait: RateLimitWait) => void
}

/** One wait on a rate limit: how long, how much was waited before it, and the refusal. */
export interface RateLimitWait {
  seconds: number
  waitedSeconds: number
  problem: Problem
}

/** A query string as a record; undefined values are left out. */
export type Query = Record<string, string | number | boolean | undefined>

/** One call: method and path, optional query and JSON body, and the schema of the success body. */
export interface CallSpec<S extends z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  query?: Query
  body?: unknown
  schema: S
}

/** A successful response: `data` parsed by the contract schema, `raw` the JSON exactly as the server sent it. */
export interface ApiResponse<T> {
  status: number
  data: T
  raw: unknown
}

// A call the server may have received must not be repeated unless repeating it changes nothing.
const IDEMPOTENT = new Set(['GET', 'PUT', 'DELETE'])
// Errors that mean no HTTP exchange happened (or it broke off): the server could not be reached.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
])
// Refused or unresolvable: the request never left, so even a POST may be retried.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'])

const networkCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && CONNECTION_CODES.has(code) ? code : undefined
}

/**
 * The transport of the rwa client: JSON over undici with an API key, timeouts, retries of idempotent
 * calls on connection errors, contract-schema parsing of success bodies and typed errors for the rest.
 */
export class HttpClient {
  readonly baseUrl: string
  private readonly options: Required<Omit<ClientOptions, 'apiKey' | 'onRateLimitWait'>> &
    Pick<ClientOptions, 'apiKey' | 'onRateLimitWait'>
  private readonly agent: Agent

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.options = Object.freeze({
      timeoutMs: 30_000,
      retries: 2,
      retryDelayMs: 200,
      rateLimitWaitSeconds: 0,
      ...options,
    })
    this.agent = new Agent({ keepAliveTimeout: 1_000, connect: { timeout: this.options.timeoutMs } })
  }

  /** Performs one call and parses its success body with `spec.schema`. */
  async call<S extends z.ZodType>(spec: CallSpec<S>): Promise<ApiResponse<z.infer<S>>> {
    const url = this.urlOf(spec.path, spec.query)
    let waited = 0
    for (;;) {
      const { status, text, retryAfter, requestId } = await this.send(spec, url)
      const json = parseJson(text)
      if (status < 400) return this.parse(spec, status, text, json, requestId)
      const problem = problemSchema.safeParse(json)
      if (!problem.success) {
        throw new UnexpectedResponseError(
          status,
          `${spec.method} ${spec.path} answered ${status} without problem details (is ${this.baseUrl} an rwa server?)`,
          text,
          requestId,
        )
      }
      const budget = this.options.rateLimitWaitSeconds - waited
      if (status !== 429 || retryAfter === undefined || !(retryAfter <= budget)) {
        throw new ApiProblemError(problem.data, retryAfter, requestId ?? problem.data.request_id)
      }
      this.options.onRateLimitWait?.({ seconds: retryAfter, waitedSeconds: waited, problem: problem.data })
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000))
      waited += retryAfter
    }
  }

  /** Parses a success body with the call's schema; a body that breaks the contract is an error. */
  private parse<S extends z.ZodType>(
    spec: CallSpec<S>,
    status: number,
    text: string,
    json: unknown,
    requestId: string | undefined,
  ): ApiResponse<z.infer<S>> {
    const parsed = spec.schema.safeParse(json)
    if (!parsed.success) {
      const where = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
        .join('; ')
      throw new UnexpectedResponseError(
        status,
        `${spec.method} ${spec.path} answered a body this client does not understand (${where}); is the server the same version?`,
        text,
        requestId,
      )
    }
    return { status, data: parsed.data, raw: json }
  }

  /** Releases the connection pool; the client is unusable afterwards. */
  async close(): Promise<void> {
    await this.agent.close()
  }

  private urlOf(path: string, query: Query = {}): string {
    const url = new URL(this.baseUrl + path)
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value))
    }
    return url.toString()
  }

  private async send(
    spec: CallSpec<z.ZodType>,
    url: string,
  ): Promise<{ status: number; text: string; retryAfter?: number; requestId?: string }> {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (this.options.apiKey !== undefined) headers['x-api-key'] = this.options.apiKey
    if (spec.body !== undefined) headers['content-type'] = 'application/json'
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body)

    for (let attempt = 0; ; attempt++) {
      try {
        const response = await request(url, {
          method: spec.method,
          headers,
          body,
          dispatcher: this.agent,
          headersTimeout: this.options.timeoutMs,
          bodyTimeout: this.options.timeoutMs,
        })
        const text = await response.body.text()
        const retryAfterHeader = response.headers['retry-after']
        const retryAfter = typeof retryAfterHeader === 'string' ? Number(retryAfterHeader) : undefined
        const requestIdHeader = response.headers['x-request-id']
        const requestId = typeof requestIdHeader === 'string' ? requestIdHeader : undefined
        return { status: response.statusCode, text, retryAfter, requestId }
      } catch (error) {
        const code = networkCode(error)
        if (!code) throw error
        const retryable = IDEMPOTENT.has(spec.method) || NOT_SENT_CODES.has(code)
        if (!retryable || attempt >= this.options.retries) {
          throw new ConnectionError(this.baseUrl, code, { cause: error })
        }
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs * 2 ** attempt))
      }
    }
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
