import { type AuthCache, InMemoryAuthCache } from './caches/auth-cache.js'
import { InMemoryPaymentAnswerCache, type PaymentAnswerCache } from './caches/payment-answers.js'
import { type Clock, systemClock } from './clock.js'
import type { Db } from './db/database.js'
import { IdFactory } from './ids.js'
import { type Invalidation, type InvalidationBus, localInvalidationBus } from './invalidation.js'
import { InMemoryLimitStore, type LimitStore } from './limits/limit-store.js'
import { UsageMeter } from './metering/meter.js'
import { LocalPaymentProvider } from './payments/local-provider.js'
import type { PaymentProvider } from './payments/provider.js'
import { SigningKeys } from './signing/signing-keys.js'

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
  /** Request counts and keys' last use, buffered and flushed additively. */
  readonly meter: UsageMeter
  readonly payments: PaymentProvider
  /** The payment provider's recent answers about active subscriptions. */
  readonly paymentAnswers: PaymentAnswerCache
  /** Governance signing keys (jurisdictions' and the service's proof key), cached in memory. */
  readonly signingKeys: SigningKeys
  /** Tells the other instances what their caches must forget. */
  readonly bus: InvalidationBus
  /** Forgets a change in this process's caches, then tells the other instances. */
  invalidate(message: Invalidation): void
  /** Where unexpected errors are reported (never with request bodies or keys). */
  readonly logError: (message: string, error?: unknown) => void
  /** The base URL the service is reached at, as written into the credentials it signs (status lists). */
  readonly publicUrl: () => string
}

export interface AppContextOptions {
  db: Db
  clock?: Clock
  payments?: PaymentProvider
  authCache?: AuthCache
  limits?: LimitStore
  paymentAnswers?: PaymentAnswerCache
  bus?: InvalidationBus
  logError?: (message: string, error?: unknown) => void
  /** `--public-url`; a function when it is known only once the server listens (the default). */
  publicUrl?: string | (() => string)
}

/** The public URL when none is configured: the default listening address. */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:4600'

export function createAppContext(options: AppContextOptions): AppContext {
  const clock = options.clock ?? systemClock
  const logError = options.logError ?? ((message, error) => console.error(message, error ?? ''))
  const authCache = options.authCache ?? new InMemoryAuthCache(options.db)
  const paymentAnswers = options.paymentAnswers ?? new InMemoryPaymentAnswerCache(clock)
  const bus = options.bus ?? localInvalidationBus()

  const forget = (message: Invalidation): void => {
    if (message.kind === 'org') {
      authCache.forgetOrg(message.orgId)
      paymentAnswers.forget(message.orgId)
    } else {
      authCache.markRevoked(message.keyId)
    }
  }
  bus.subscribe(forget)

  return Object.freeze({
    db: options.db,
    clock,
    ids: new IdFactory(() => clock.now()),
    authCache,
    limits: options.limits ?? new InMemoryLimitStore(options.db),
    meter: new UsageMeter(options.db, (error) => logError('usage flush failed:', error)),
    payments: options.payments ?? new LocalPaymentProvider(options.db),
    paymentAnswers,
    signingKeys: new SigningKeys(options.db, clock),
    bus,
    invalidate(message: Invalidation) {
      forget(message)
      bus.publish(message)
    },
    logError,
    publicUrl: publicUrlOf(options.publicUrl),
  })
}

const publicUrlOf = (option: AppContextOptions['publicUrl']): (() => string) => {
  const strip = (url: string) => url.replace(/\/+$/, '')
  if (typeof option === 'function') return () => strip(option())
  const url = strip(option ?? DEFAULT_PUBLIC_URL)
  return () => url
}
