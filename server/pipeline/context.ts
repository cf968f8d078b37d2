import { type AuthCache, InMemoryAuthCache } from '../platform/caches/auth-cache.js'
import { InMemoryPaymentAnswerCache, type PaymentAnswerCache } from '../platform/caches/payment-answers.js'
import { EnabledEndpointCache } from '../platform/caches/webhook-endpoints.js'
import { type Clock, systemClock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import type { Executor } from '../platform/db/queries.js'
import { databaseReadiness, Readiness, type ReadinessCheck } from '../platform/health/readiness.js'
import { IdFactory } from '../platform/ids.js'
import { type Invalidation, type InvalidationBus, localInvalidationBus } from '../platform/invalidation.js'
import { InMemoryLimitStore, type LimitStore } from '../platform/limits/limit-store.js'
import type { PublicRate } from '../platform/limits/public-bucket.js'
import { PublicGate } from '../platform/limits/public-gate.js'
import { jsonLogger, type Logger } from '../platform/logging/logger.js'
import { UsageMeter } from '../platform/metering/meter.js'
import { ServerMetrics } from '../platform/metrics/metrics.js'
import { LocalPaymentProvider } from '../platform/payments/local-provider.js'
import type { PaymentProvider } from '../platform/payments/provider.js'
import type { MasterKey } from '../platform/signing/master-key.js'
import { SigningKeys } from '../platform/signing/signing-keys.js'
import { type Change, currentWrite, recordChange } from './writes/change.js'

/**
 * How a kind of record (a change's `target.type`) reads as the API answers it now, in the transaction
 * `db` (an event's `data.object`, docs/webhooks.md); undefined for a record gone.
 */
export type RecordReader = (ctx: AppContext, db: Executor, orgId: string, id: string) => Promise<unknown>

/**
 * What an aggregate tells the write pipeline about its records: how each kind it owns reads as the API
 * answers it. Each aggregate exports one (`<aggregate>/records.ts`); server/aggregates.ts gathers them
 * and hands them to the context, so the pipeline (server/pipeline/writes/, server/pipeline/events/outbox.ts) knows the
 * aggregates by registration and imports none of them.
 */
export interface AggregateRecords {
  readonly objects: Readonly<Record<string, RecordReader>>
}

/**
 * Everything the app's services share. Built once per app; tests build one per test. The state that
 * lives in the process rather than the database is behind an interface each (`authCache`, `limits`,
 * `paymentAnswers`, `bus`), so several instances can share it; the defaults keep it in memory.
 */
export interface AppContext {
  readonly db: Db
  readonly clock: Clock
  readonly ids: IdFactory
  /** Keys and organizations as authentication reads them. */
  readonly authCache: AuthCache
  /** Each organization's per-minute window and per-day counter. */
  readonly limits: LimitStore
  /**
   * The token bucket of the routes reachable without a key (null: off), and how many proxies of the
   * operator's own stand in front of the server (the client's address is read that many hops back).
   */
  readonly publicLimit: { readonly rate: PublicRate | null; readonly trustProxyHops: number }
  /**
   * That bucket at the door: the Node server hands it each request first, and it refuses a client over
   * its budget before the app sees the request (server/platform/limits/public-gate.ts).
   */
  readonly publicGate: PublicGate
  /** Request counts and keys' last use, buffered and flushed additively. */
  readonly meter: UsageMeter
  readonly payments: PaymentProvider
  /** The payment provider's recent answers about active subscriptions. */
  readonly paymentAnswers: PaymentAnswerCache
  /** Governance signing keys (jurisdictions' and the service's proof key), cached in memory. */
  readonly signingKeys: SigningKeys
  /** Tells the other instances what their caches must forget. */
  readonly bus: InvalidationBus
  /** Each organization's enabled webhook endpoints, as the outbox reads them. */
  readonly webhookEndpoints: EnabledEndpointCache
  /**
   * Forgets a change in this process's caches, then tells the other instances; inside a write, once it
   * has committed (before, a concurrent request could cache the old record again).
   */
  invalidate(message: Invalidation): void
  /**
   * Records a change of the current write (server/pipeline/writes/run-write.ts), which becomes its audit event.
   * Every service write calls it; outside a write it throws.
   */
  record(change: Change): void
  /** Where unexpected errors are reported (never with request bodies or keys). */
  readonly logError: (message: string, error?: unknown) => void
  /** The base URL the service is reached at, as written into the credentials it signs (status lists). */
  readonly publicUrl: () => string
  /** The structured log: one line per request, and whatever else the server reports. */
  readonly logger: Logger
  /** The Prometheus metrics, and the hooks that move them (`ctx.metrics.redisError(...)`...). */
  readonly metrics: ServerMetrics
  /** What `/readyz` answers: the checks, and whether the server is shutting down. */
  readonly readiness: Readiness
  /** `--allow-http-webhooks`: webhook endpoints may be http on loopback (a developer's machine). */
  readonly allowHttpWebhooks: boolean
  /** `--allow-http-issuers`: did:web documents and status lists may be fetched over http from loopback. */
  readonly allowHttpIssuers: boolean
  /** `--issuer-status-max-age`: how old a trusted issuer's status list may be when relied on (ms). */
  readonly issuerStatusMaxAgeMs: number
  /** The key-encryption key (README.md, "Signing keys at rest"): seals and opens webhook secrets at rest. */
  readonly masterKey: MasterKey
  /** How long an event stream stays silent before it sends a keep-alive comment (15 s). */
  readonly eventStreamHeartbeatMs: number
  /** Each kind of record's reader, as the aggregates registered them (`AggregateRecords`). */
  readonly records: ReadonlyMap<string, RecordReader>
}

export interface AppContextOptions {
  db: Db
  /** The aggregates' records (server/aggregates.ts: `AGGREGATES`). */
  aggregates: readonly AggregateRecords[]
  /**
   * The key every private signing key is sealed under (README.md, "Signing keys at rest"), checked against
   * the database by `openKeyCustody` (server/custody.ts) before the context is built.
   */
  masterKey: MasterKey
  clock?: Clock
  payments?: PaymentProvider
  authCache?: AuthCache
  limits?: LimitStore
  /**
   * The per-client bucket of the unauthenticated routes (`--public-rate-limit`). Default: off, for an
   * app embedded or driven in process; the server passes its configuration (20/s, bursts of 100 unless
   * told otherwise).
   */
  publicRateLimit?: PublicRate | null
  /** `--trust-proxy`: proxies in front of the server whose `X-Forwarded-For` entries are believed. Default 0. */
  trustProxyHops?: number
  /**
   * How long, at most, the gate holds the refusal of a client that came back before its Retry-After
   * (default 1000 ms: the Retry-After of the default rate). Tests shorten it.
   */
  publicHoldMs?: number
  paymentAnswers?: PaymentAnswerCache
  bus?: InvalidationBus
  /**
   * How long cached keys, organizations and payment answers may be reused. Unset for one instance
   * (entries live until a change forgets them; payment answers 60 s); SHARED_CACHE_TTL_MS when several
   * instances share the database, as the safety net for a lost invalidation.
   */
  cacheTtlMs?: number
  logError?: (message: string, error?: unknown) => void
  /** `--public-url`; a function when it is known only once the server listens (the default). */
  publicUrl?: string | (() => string)
  /** Default: JSON lines on stderr at level info. */
  logger?: Logger
  /** Default: a registry of the server's own metrics, without process metrics. */
  metrics?: ServerMetrics
  /** What `/readyz` checks. Default: the database answers and its migrations are done. */
  readinessChecks?: ReadinessCheck[]
  /** `--allow-http-webhooks`. Default: false (https to public addresses only). */
  allowHttpWebhooks?: boolean
  /** `--allow-http-issuers`. Default: false (https to public addresses only). */
  allowHttpIssuers?: boolean
  /** `--issuer-status-max-age`. Default: 1 h. */
  issuerStatusMaxAgeMs?: number
  /** Default 15 s; tests make it short. */
  eventStreamHeartbeatMs?: number
}

/** The public URL when none is configured: the default listening address. */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:4600'

export function createAppContext(options: AppContextOptions): AppContext {
  const clock = options.clock ?? systemClock
  const logger = options.logger ?? jsonLogger()
  const logError =
    options.logError ?? ((message, error) => logger.error(error === undefined ? {} : { err: error }, message))
  const metrics = options.metrics ?? new ServerMetrics()
  const ttlMs = options.cacheTtlMs
  const authCache = options.authCache ?? new InMemoryAuthCache(options.db, { clock, ttlMs })
  const paymentAnswers = options.paymentAnswers ?? new InMemoryPaymentAnswerCache(clock, ttlMs)
  const bus = options.bus ?? localInvalidationBus()
  const signingKeys = new SigningKeys(options.db, clock, options.masterKey)
  const webhookEndpoints = new EnabledEndpointCache(clock, ttlMs)

  const forget = (message: Invalidation): void => {
    if (message.kind === 'org') {
      authCache.forgetOrg(message.orgId)
      paymentAnswers.forget(message.orgId)
    } else if (message.kind === 'key-revoked') {
      authCache.markRevoked(message.keyId)
    } else if (message.kind === 'key-changed') {
      authCache.forgetKey(message.keyId)
    } else if (message.kind === 'signing-keys') {
      signingKeys.forgetServiceKeys()
    } else if (message.kind === 'webhooks') {
      webhookEndpoints.forget(message.orgId)
    } else if (message.kind === 'events') {
      // News, not a cache: event streams hear it through the outbox's own subscription (outbox.ts).
    } else {
      authCache.forgetAll()
      paymentAnswers.forgetAll()
      signingKeys.forgetServiceKeys()
      webhookEndpoints.forgetAll()
    }
  }
  bus.subscribe(forget)

  const meter = new UsageMeter(
    options.db,
    (error) => logError('usage flush failed:', error),
    (seconds, ok) => metrics.usageFlushed(seconds, ok),
  )
  metrics.watchUsageBacklog(() => meter.pendingRequests())
  const readiness = new Readiness(options.readinessChecks ?? databaseReadiness(options.db), (name, error) =>
    logger.warn({ check: name, err: error }, `not ready: ${name}`),
  )

  const limits = options.limits ?? new InMemoryLimitStore(options.db)
  const publicLimit = Object.freeze({
    rate: options.publicRateLimit ?? null,
    trustProxyHops: options.trustProxyHops ?? 0,
  })
  const publicGate = new PublicGate({
    ...publicLimit,
    limits,
    clock,
    metrics,
    warn: (line) => logger.warn(line),
    holdMs: options.publicHoldMs,
  })

  return Object.freeze({
    db: options.db,
    clock,
    ids: new IdFactory(() => clock.now()),
    authCache,
    limits,
    publicLimit,
    publicGate,
    meter,
    payments: options.payments ?? new LocalPaymentProvider(options.db),
    paymentAnswers,
    signingKeys,
    bus,
    webhookEndpoints,
    invalidate(message: Invalidation) {
      const now = () => {
        forget(message)
        bus.publish(message)
      }
      const write = currentWrite()
      if (!write) return now()
      // This process forgets now, so the write reads its own change; and again once it has committed,
      // with the other instances, in case a concurrent request cached the old record meanwhile.
      forget(message)
      write.afterCommit.push(now)
    },
    record: recordChange,
    logError,
    publicUrl: publicUrlOf(options.publicUrl),
    logger,
    metrics,
    readiness,
    allowHttpWebhooks: options.allowHttpWebhooks ?? false,
    allowHttpIssuers: options.allowHttpIssuers ?? false,
    issuerStatusMaxAgeMs: options.issuerStatusMaxAgeMs ?? 3_600_000,
    masterKey: options.masterKey,
    eventStreamHeartbeatMs: options.eventStreamHeartbeatMs ?? 15_000,
    records: recordReaders(options.aggregates),
  })
}

/** The readers of the aggregates' records by kind; a kind registered twice is a bug. */
function recordReaders(aggregates: readonly AggregateRecords[]): ReadonlyMap<string, RecordReader> {
  const readers = new Map<string, RecordReader>()
  for (const { objects } of aggregates) {
    for (const [type, read] of Object.entries(objects)) {
      if (readers.has(type)) throw new Error(`records of type ${type} are registered twice`)
      readers.set(type, read)
    }
  }
  return readers
}

const publicUrlOf = (option: AppContextOptions['publicUrl']): (() => string) => {
  const strip = (url: string) => url.replace(/\/+$/, '')
  if (typeof option === 'function') return () => strip(option())
  const url = strip(option ?? DEFAULT_PUBLIC_URL)
  return () => url
}
