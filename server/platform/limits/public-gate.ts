import type { IncomingMessage, ServerResponse } from 'node:http'
import { API_KEY_PATTERN } from '../../../src/contract/billing.js'
import { PROBE_PATHS } from '../../../src/contract/operation.js'
import type { Clock } from '../clock.js'
import { ApiError } from '../errors.js'
import { REQUEST_ID } from '../http/answer-headers.js'
import { sessionSecretOf } from '../http/session-cookie.js'
import type { ServerMetrics } from '../metrics/metrics.js'
import type { LimitStore } from './limit-store.js'
import {
  type BucketDecision,
  clientBucketKey,
  type PublicRate,
  retryAfterSecondsOf,
} from './public-bucket.js'

/*
 * The per-client bucket (README.md, "Configuration", `--public-rate-limit`) at the door: the first thing the
 * Node server does with a request without a valid-looking API key is to take a token from its address's
 * bucket, and a refused request is answered here, before the app sees it. A flood of such requests is refused
 * for the price of a map lookup and one preformatted write
 * (docs/performance.md, "Public endpoints under a flood"), instead of routing, problem rendering, metrics and
 * a log line each: what made the bucket, as first built, let a flood send eleven times as many requests as
 * without it.
 *
 * Two more things keep a flood from looping at full speed, each bounded: every refusal closes its
 * connection (a client over its bucket pays for a new one), and a client that comes back before its
 * Retry-After has passed (it ignored it) is answered only when Retry-After has passed (at most
 * `holdMs`), with at most `maxHeld` answers held at once (past that, at once). A client that waits as
 * told is never held.
 */

/** The bucket key of a request whose address is unknown (handed to the app in process, no socket). */
export const UNKNOWN_CLIENT = 'unknown'

/** The longest a refusal of a client that did not wait is held: its Retry-After, at most this. */
export const DEFAULT_HOLD_MS = 1000
/** At most this many refusals held at once (each holds a socket); past it they are answered at once. */
export const DEFAULT_MAX_HELD = 1000
/** At most this many clients' refusal state is kept; the oldest goes first. */
const MAX_TRACKED = 100_000
/** How often the state of clients that may retry again is dropped. */
const SWEEP_INTERVAL_MS = 10_000
/** How often, at most, refusals are summed up in one log line (at warn) while there are any. */
const SUMMARY_INTERVAL_MS = 60_000
/** Addresses named in a summary line, the most refused first, and at most this many counted per line. */
const SUMMARY_TOP = 3
const SUMMARY_ADDRESSES = 1000

/** Marks the requests the gate has taken a token for, so the app does not take a second one. */
const COUNTED = Symbol('rwa.public-bucket.counted')

/** Whether the gate in front of the app has already counted this request against its client's bucket. */
export function countedAtTheDoor(incoming: IncomingMessage | undefined): boolean {
  return (incoming as { [COUNTED]?: boolean } | undefined)?.[COUNTED] === true
}

/**
 * The address a request came from: the socket's peer, or with `trustProxyHops` = n (`--trust-proxy`,
 * n proxies of the operator's own in front of the server) the address n hops back along
 * `X-Forwarded-For`: each proxy appends the address it received the request from, so the last n entries
 * are written by trusted proxies and everything before them is whatever the client sent. Counting from
 * the right is what keeps a client from choosing its own bucket by sending the header itself.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustProxyHops: number,
): string | undefined {
  if (trustProxyHops === 0 || socketAddress === undefined) return socketAddress
  const forwarded = (forwardedFor ?? '')
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '')
  const chain = [...forwarded, socketAddress]
  // Fewer hops than proxies: the request came past them some other way; the leftmost is all there is.
  return chain[Math.max(0, chain.length - 1 - trustProxyHops)]
}

/** The 429 `public_rate_limited` of a client's refusal (`retryAfterSeconds` whole seconds). */
export function publicRefusal(
  address: string | undefined,
  rate: PublicRate,
  retryAfterSeconds: number,
): ApiError {
  return new ApiError(
    'public_rate_limited',
    `Too many requests from ${address ?? 'this client'} without a valid API key (${rate.perSecond}/s, bursts of ${rate.burst}); retry in ${retryAfterSeconds} s`,
    {
      context: { per_second: rate.perSecond, burst: rate.burst, retry_after_seconds: retryAfterSeconds },
      headers: publicRefusalHeaders(rate, retryAfterSeconds),
    },
  )
}

/**
 * Retry-After, and the RateLimit headers of the bucket (its size, nothing left, seconds until a token):
 * a keyed route declares them on every 429, and they say the same thing on a public one.
 */
function publicRefusalHeaders(rate: PublicRate, retryAfterSeconds: number): Record<string, string> {
  return {
    'Retry-After': String(retryAfterSeconds),
    'RateLimit-Limit': String(rate.burst),
    'RateLimit-Remaining': '0',
    'RateLimit-Reset': String(retryAfterSeconds),
  }
}

/** What the gate knows of a client it refused. */
interface Refused {
  /** The bucket holds no token before this (clock ms): refused without asking the store. */
  emptyUntil: number
  /** When the client was last told (Retry-After) it may retry; refused again before it, it is held. */
  retryAt: number
  /** The problem document of its refusal without its closing brace, for `bodyRetryAfter` seconds. */
  body?: string
  bodyRetryAfter?: number
}

export interface PublicGateOptions {
  /** `--public-rate-limit`; null: off (the gate admits everything). */
  rate: PublicRate | null
  /** `--trust-proxy`. */
  trustProxyHops: number
  limits: LimitStore
  clock: Clock
  metrics: ServerMetrics
  /** Where the summary line of the refusals goes (once a minute at most, while there are any). */
  warn: (line: string) => void
  /** Default DEFAULT_HOLD_MS. */
  holdMs?: number
  /** Default DEFAULT_MAX_HELD. */
  maxHeld?: number
}

export class PublicGate {
  private readonly refused = new Map<string, Refused>()
  private sweptAt = 0
  private readonly held = new Set<{ timer: NodeJS.Timeout; answer: () => void }>()
  private readonly holdMs: number
  private readonly maxHeld: number
  private tally = { refused: 0, held: 0, byAddress: new Map<string, number>() }
  private summary: NodeJS.Timeout | undefined

  constructor(private readonly options: PublicGateOptions) {
    this.holdMs = options.holdMs ?? DEFAULT_HOLD_MS
    this.maxHeld = options.maxHeld ?? DEFAULT_MAX_HELD
  }

  /**
   * The first step of every request the Node server receives. A request that carries a well-formed API
   * key (or console session cookie), or asks for a probe, passes untouched (false); any other takes a token from its client's
   * bucket: admitted, it passes (false) marked as counted; refused, it is answered here (true).
   * Synchronous while the client is known to have no token (the flood's case), else after the store.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
    const rate = this.options.rate
    if (rate === null) return false
    const url = req.url ?? '/'
    const query = url.indexOf('?')
    if (PROBE_PATHS.has(query === -1 ? url : url.slice(0, query))) return false
    const key = req.headers['x-api-key']
    if (typeof key === 'string' && API_KEY_PATTERN.test(key)) return false
    // A console session authenticates like a key (and is counted like one when it proves to be none).
    if (key === undefined && sessionSecretOf(req.headers.cookie) !== undefined) return false
    const address = clientAddress(
      req.socket.remoteAddress,
      req.headers['x-forwarded-for'] as string | undefined,
      this.options.trustProxyHops,
    )
    const client = address === undefined ? UNKNOWN_CLIENT : clientBucketKey(address)
    const now = this.options.clock.now()
    const known = this.refused.get(client)
    if (known !== undefined && now < known.emptyUntil) {
      this.refuse(req, res, address, this.note(client, known.emptyUntil - now, now))
      return true
    }
    return this.options.limits.takePublic(client, rate, now).then((decision) => {
      if (decision.allowed) {
        ;(req as { [COUNTED]?: boolean })[COUNTED] = true
        return false
      }
      this.refuse(req, res, address, this.note(client, decision.retryInMs, now))
      return true
    })
  }

  /**
   * Takes a token from `client`'s bucket for a request the app counts itself (one with an API key that
   * proved unknown, revoked or expired; one with a well-formed key that no route answers or that is
   * refused before its route; one handed to the app in process): what the gate knows first,
   * then the store. A refusal is counted as answered at once (the app answers it).
   */
  async take(client: string, address: string | undefined, now: number): Promise<BucketDecision> {
    const rate = this.options.rate
    if (rate === null) return { allowed: true, retryAfterSeconds: 0, retryInMs: 0 }
    const known = this.refused.get(client)
    let decision: BucketDecision
    if (known !== undefined && now < known.emptyUntil) {
      const retryInMs = known.emptyUntil - now
      decision = { allowed: false, retryAfterSeconds: retryAfterSecondsOf(retryInMs), retryInMs }
    } else {
      decision = await this.options.limits.takePublic(client, rate, now)
      if (decision.allowed) return decision
    }
    this.note(client, decision.retryInMs, now)
    this.count(address, false)
    return decision
  }

  /** How many clients' refusal state is kept now (for tests of its bounds). */
  get tracked(): number {
    return this.refused.size
  }

  /** Answers every held refusal now and stops the summary (the server is closing). */
  close(): void {
    for (const entry of [...this.held]) {
      clearTimeout(entry.timer)
      entry.answer()
    }
    this.held.clear()
    this.flushSummary()
    clearInterval(this.summary)
    this.summary = undefined
  }

  /**
   * Records a refusal of `client`: its bucket is empty for `retryInMs` more. Returns its state and
   * whether it came back before the Retry-After it was last told (a refusal of it is then held).
   */
  private note(client: string, retryInMs: number, now: number): { state: Refused; early: boolean } {
    if (now - this.sweptAt >= SWEEP_INTERVAL_MS) this.sweep(now)
    let state = this.refused.get(client)
    const early = state !== undefined && now < state.retryAt
    if (state === undefined) {
      if (this.refused.size >= MAX_TRACKED) {
        const oldest = this.refused.keys().next().value
        if (oldest !== undefined) this.refused.delete(oldest)
      }
      state = { emptyUntil: 0, retryAt: 0 }
      this.refused.set(client, state)
    }
    state.emptyUntil = Math.max(state.emptyUntil, now + retryInMs)
    if (!early) state.retryAt = now + retryAfterSecondsOf(retryInMs) * 1000
    return { state, early }
  }

  /** Answers the refusal: at once, or, for a client that did not wait and while there is room, later. */
  private refuse(
    req: IncomingMessage,
    res: ServerResponse,
    address: string | undefined,
    { state, early }: { state: Refused; early: boolean },
  ): void {
    const hold = early && this.held.size < this.maxHeld
    this.count(address, hold)
    if (!hold) {
      this.answer(req, res, address, state)
      return
    }
    const delay = Math.min(this.holdMs, Math.max(0, state.retryAt - this.options.clock.now()))
    const entry = {
      timer: setTimeout(() => {
        this.held.delete(entry)
        entry.answer()
      }, delay),
      answer: () => {
        if (!res.destroyed) this.answer(req, res, address, state)
      },
    }
    this.held.add(entry)
    // A client that hangs up while held frees its place.
    res.once('close', () => {
      if (this.held.delete(entry)) clearTimeout(entry.timer)
    })
  }

  /** The 429, preformatted per client and Retry-After; the connection closes after it. */
  private answer(
    req: IncomingMessage,
    res: ServerResponse,
    address: string | undefined,
    state: Refused,
  ): void {
    const rate = this.options.rate as PublicRate
    const retryAfter = retryAfterSecondsOf(state.emptyUntil - this.options.clock.now())
    if (state.bodyRetryAfter !== retryAfter || state.body === undefined) {
      state.body = JSON.stringify(publicRefusal(address, rate, retryAfter).toProblem()).slice(0, -1)
      state.bodyRetryAfter = retryAfter
    }
    const given = req.headers['x-request-id']
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID()
    const body = `${state.body},"request_id":"${requestId}"}`
    res.writeHead(429, {
      ...publicRefusalHeaders(rate, retryAfter),
      'Content-Type': 'application/problem+json',
      'Content-Length': Buffer.byteLength(body),
      'X-Request-Id': requestId,
      Connection: 'close',
    })
    res.end(body)
  }

  private count(address: string | undefined, held: boolean): void {
    this.options.metrics.publicRateLimited(held ? 'held' : 'at_once')
    const tally = this.tally
    tally.refused++
    if (held) tally.held++
    const name = address ?? UNKNOWN_CLIENT
    const seen = tally.byAddress.get(name)
    if (seen !== undefined) tally.byAddress.set(name, seen + 1)
    else if (tally.byAddress.size < SUMMARY_ADDRESSES) tally.byAddress.set(name, 1)
    if (this.summary === undefined) {
      this.summary = setInterval(() => this.flushSummary(), SUMMARY_INTERVAL_MS)
      this.summary.unref()
    }
  }

  /** One warn line for the refusals since the last one; the timer stops after a minute without any. */
  private flushSummary(): void {
    const { refused, held, byAddress } = this.tally
    if (refused === 0) {
      clearInterval(this.summary)
      this.summary = undefined
      return
    }
    this.tally = { refused: 0, held: 0, byAddress: new Map() }
    const rate = this.options.rate as PublicRate
    const top = [...byAddress]
      .sort((a, b) => b[1] - a[1])
      .slice(0, SUMMARY_TOP)
      .map(([address, n]) => `${address} (${n})`)
      .join(', ')
    const addresses = byAddress.size >= SUMMARY_ADDRESSES ? `${SUMMARY_ADDRESSES}+` : String(byAddress.size)
    this.options.warn(
      `refused ${refused} request(s) without a valid API key (per-client bucket ${rate.perSecond}/s, bursts of ${rate.burst}; --public-rate-limit) from ${addresses} address(es), most from ${top}; ${held} held until their Retry-After`,
    )
  }

  private sweep(now: number): void {
    this.sweptAt = now
    for (const [client, state] of this.refused) {
      if (now >= state.emptyUntil && now >= state.retryAt) this.refused.delete(client)
    }
  }
}
