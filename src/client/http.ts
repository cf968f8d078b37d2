import { randomUUID } from 'node:crypto'
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import type { Agent as HttpsAgent } from 'node:https'
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
  /**
   * On a 409 `idempotency_key_in_progress` (the first request with the same `Idempotency-Key` still
   * runs: a retry after a timeout, a CI step run again), wait its `Retry-After` and send the call again
   * with the same key, as long as the waits add up to no more than this many seconds; the retry then
   * replays the first answer, or runs once a dead request's claim may be taken over (after a minute).
   * Default 0: the 409 is thrown at once. Safe for any call: the same key never acts twice.
   */
  inProgressWaitSeconds?: number
  /** Told before each wait of `inProgressWaitSeconds`. */
  onInProgressWait?: (wait: RateLimitWait) => void
  /**
   * The `Idempotency-Key` of the first POST this client sends; the later ones get `KEY-2`, `KEY-3`...
   * in order, so the same program run again with the same key replays each. Without it every POST gets
   * a random one (a UUID). Either way a POST keeps its key across its own retries.
   */
  idempotencyKey?: string
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
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  query?: Query
  body?: unknown
  schema: S
  /** The schemas of other success statuses the call may answer (a four-eyes 202), by status. */
  otherSchemas?: ReadonlyMap<number, z.ZodType>
  /** The success body is text (a VC-JWT, metrics), parsed as is rather than as JSON. */
  text?: boolean
  /**
   * The operation takes an `Idempotency-Key` (every keyed POST): one is sent, the same on each retry,
   * so a POST is retried after a connection error like a GET.
   */
  idempotent?: boolean
  /** The `Idempotency-Key` to send, instead of the client's own (a resumable import's per chunk). */
  idempotencyKey?: string
}

/** A successful response: `data` parsed by the contract schema, `raw` the JSON exactly as the server sent it. */
export interface ApiResponse<T> {
  status: number
  data: T
  raw: unknown
}

/** The codes of a phase that took longer than `timeoutMs` (reported as `ConnectionError.reason`). */
const CONNECT_TIMEOUT = 'CONNECT_TIMEOUT'
const HEADERS_TIMEOUT = 'HEADERS_TIMEOUT'
const BODY_TIMEOUT = 'BODY_TIMEOUT'

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
  CONNECT_TIMEOUT,
  HEADERS_TIMEOUT,
  BODY_TIMEOUT,
])
// Refused or unresolvable: the request never left, so even a POST may be retried.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', CONNECT_TIMEOUT])

/**
 * What an error of the exchange says when the server answered, but not in the protocol asked for:
 * bytes that are not HTTP (node's parser, `HPE_...`), or no TLS from an https URL (a plain-http
 * server). A server that is no rwa server, so never a connection error.
 */
function foreignProtocol(error: unknown, https: boolean): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return undefined
  if (code.startsWith('HPE_')) return 'answered something that is not HTTP'
  if (https && (code === 'EPROTO' || code.startsWith('ERR_SSL_')))
    return 'did not answer in TLS: is it http, not https?'
  return undefined
}

const networkCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && CONNECTION_CODES.has(code) ? code : undefined
}

/** A network error with a code of ours (the timeouts), like the `E...` codes of node:net. */
function timeoutError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code })
}

/** One exchange as received: status, the headers the client reads, and the body as text. */
interface Received {
  status: number
  text: string
  retryAfter?: number
  requestId?: string
}

/**
 * The transport of the rwa client: JSON over node:http (node:https for an https URL) with an API key,
 * timeouts, retries of idempotent calls on connection errors, contract-schema parsing of success
 * bodies and typed errors for the rest. node:http rather than a fetch: it is part of Node's startup
 * snapshot, so a CLI command pays ~2 ms to load it where the undici package cost ~70 ms and the first
 * global `fetch` ~30 ms (see docs/performance.md, "CLI cold start").
 */
export class HttpClient {
  readonly baseUrl: string
  private readonly options: Required<
    Omit<ClientOptions, 'apiKey' | 'onRateLimitWait' | 'onInProgressWait' | 'idempotencyKey'>
  > &
    Pick<ClientOptions, 'apiKey' | 'onRateLimitWait' | 'onInProgressWait' | 'idempotencyKey'>
  private readonly https: boolean
  private agent?: HttpAgent | HttpsAgent

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.options = Object.freeze({
      timeoutMs: 30_000,
      retries: 2,
      retryDelayMs: 200,
      rateLimitWaitSeconds: 0,
      inProgressWaitSeconds: 0,
      ...options,
    })
    this.https = new URL(this.baseUrl).protocol === 'https:'
  }

  /** Performs one call and parses its success body with `spec.schema`. */
  async call<S extends z.ZodType>(spec: CallSpec<S>): Promise<ApiResponse<z.infer<S>>> {
    const url = this.urlOf(spec.path, spec.query)
    // One key for the call, whatever it takes: its retries must be recognised as the same request.
    const idempotencyKey = spec.idempotent ? (spec.idempotencyKey ?? this.nextIdempotencyKey()) : undefined
    let waited = 0
    let waitedInProgress = 0
    for (;;) {
      const { status, text, retryAfter, requestId } = await this.send(spec, url, idempotencyKey)
      if (status < 400 && spec.text) return this.parse(spec, status, text, text, requestId)
      const json = parseJson(text)
      if (status < 400) return this.parse(spec, status, text, json, requestId)
      const problem = problemSchema.safeParse(json)
      if (!problem.success) {
        throw new UnexpectedResponseError(
          status,
          `${spec.method} ${spec.path}: ${this.baseUrl} answered ${status} without problem details`,
          text,
          requestId,
        )
      }
      if (idempotencyKey !== undefined && problem.data.reason === 'idempotency_key_in_progress') {
        const seconds = retryAfter ?? 1
        if (!(seconds <= this.options.inProgressWaitSeconds - waitedInProgress)) {
          throw new ApiProblemError(problem.data, retryAfter, requestId ?? problem.data.request_id)
        }
        this.options.onInProgressWait?.({ seconds, waitedSeconds: waitedInProgress, problem: problem.data })
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
        waitedInProgress += seconds
        continue
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
    const parsed = (spec.otherSchemas?.get(status) ?? spec.schema).safeParse(json)
    if (!parsed.success) {
      const where = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
        .join('; ')
      throw new UnexpectedResponseError(
        status,
        `${spec.method} ${spec.path}: ${this.baseUrl} answered a body this client does not understand (${where})`,
        text,
        requestId,
      )
    }
    // Another success status (a four-eyes 202) parses with its own schema: the operation types it in.
    return { status, data: parsed.data as z.infer<S>, raw: json }
  }

  /** Releases the connection pool (kept-alive sockets); a later call opens new connections. */
  async close(): Promise<void> {
    this.agent?.destroy()
    this.agent = undefined
  }

  private idempotentPosts = 0

  private nextIdempotencyKey(): string {
    const given = this.options.idempotencyKey
    this.idempotentPosts++
    if (given === undefined) return randomUUID()
    return this.idempotentPosts === 1 ? given : `${given}-${this.idempotentPosts}`
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
    idempotencyKey: string | undefined,
  ): Promise<Received> {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (this.options.apiKey !== undefined) headers['x-api-key'] = this.options.apiKey
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey
    const body = spec.body === undefined ? undefined : Buffer.from(JSON.stringify(spec.body))
    if (body !== undefined) {
      headers['content-type'] = 'application/json'
      headers['content-length'] = String(body.length)
    }

    for (let attempt = 0; ; attempt++) {
      try {
        return await this.exchange(spec.method, url, headers, body)
      } catch (error) {
        const foreign = foreignProtocol(error, this.https)
        if (foreign) {
          const why = error instanceof Error ? error.message : String(error)
          throw new UnexpectedResponseError(0, `${spec.method} ${spec.path}: ${this.baseUrl} ${foreign}`, why)
        }
        const code = networkCode(error)
        if (!code) throw error
        const retryable = IDEMPOTENT.has(spec.method) || spec.idempotent || NOT_SENT_CODES.has(code)
        if (!retryable || attempt >= this.options.retries) {
          throw new ConnectionError(this.baseUrl, code, { cause: error })
        }
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs * 2 ** attempt))
      }
    }
  }

  /**
   * One request and its whole response. `timeoutMs` is allowed three times over, each phase on its
   * own: to connect, then until the response headers, then until the end of the body.
   */
  private async exchange(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
  ): Promise<Received> {
    const request = this.https ? (await import('node:https')).request : httpRequest
    const agent = await this.agentFor()
    const timeoutMs = this.options.timeoutMs
    return new Promise<Received>((resolve, reject) => {
      let phase = CONNECT_TIMEOUT
      let timer: NodeJS.Timeout | undefined
      const arm = (code: string, what: string) => {
        clearTimeout(timer)
        phase = code
        timer = setTimeout(() => {
          // Settle first: destroying the request may also emit a 'socket hang up' (then ignored).
          reject(timeoutError(code, `${what} took longer than ${timeoutMs} ms`))
          req.destroy()
        }, timeoutMs)
      }
      const fail = (error: Error) => {
        clearTimeout(timer)
        reject(error)
      }
      const req = request(url, { method, headers, agent }, (response: IncomingMessage) => {
        arm(BODY_TIMEOUT, 'the response body')
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('error', fail)
        response.on('aborted', () =>
          fail(Object.assign(new Error('response aborted'), { code: 'ECONNRESET' })),
        )
        response.on('end', () => {
          clearTimeout(timer)
          const retryAfterHeader = response.headers['retry-after']
          const requestIdHeader = response.headers['x-request-id']
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            retryAfter: typeof retryAfterHeader === 'string' ? Number(retryAfterHeader) : undefined,
            requestId: typeof requestIdHeader === 'string' ? requestIdHeader : undefined,
          })
        })
      })
      req.on('error', fail)
      arm(CONNECT_TIMEOUT, 'connecting')
      const sent = () => {
        if (phase === CONNECT_TIMEOUT) arm(HEADERS_TIMEOUT, 'the response headers')
      }
      // A kept-alive socket is connected already; a new one says so with 'connect' (or TLS's).
      req.on('socket', (socket) => {
        if (!socket.connecting) sent()
        else socket.once(this.https ? 'secureConnect' : 'connect', sent)
      })
      req.end(body)
    })
  }

  /** One keep-alive agent per client, so the calls of a command reuse their connection. */
  private async agentFor(): Promise<HttpAgent | HttpsAgent> {
    if (!this.agent) {
      const Agent = this.https ? (await import('node:https')).Agent : HttpAgent
      // An idle socket is closed after 1 s: well before a server's keep-alive timeout (Node's is 5 s), so a
      // call never goes out on a socket the server is closing.
      this.agent = new Agent({ keepAlive: true, timeout: 1_000 })
    }
    return this.agent
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
