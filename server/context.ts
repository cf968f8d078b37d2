import { Directory } from './auth/directory.js'
import { type Clock, systemClock } from './clock.js'
import type { Db } from './db/database.js'
import { IdFactory } from './ids.js'
import { RateLimiter } from './limits/rate-limiter.js'
import { LocalPaymentProvider, type PaymentProvider } from './payments/provider.js'
import { SigningKeys } from './rwa/signing-keys.js'
import { UsageMeter } from './usage/meter.js'

/** Everything the app's services share. Built once per app; tests build one per test. */
export interface AppContext {
  readonly db: Db
  readonly clock: Clock
  readonly ids: IdFactory
  readonly directory: Directory
  readonly limiter: RateLimiter
  readonly meter: UsageMeter
  readonly payments: PaymentProvider
  /** Governance signing keys (jurisdictions' and the service's proof key), cached in memory. */
  readonly signingKeys: SigningKeys
  /** Where unexpected errors are reported (never with request bodies or keys). */
  readonly logError: (message: string, error?: unknown) => void
}

export interface AppContextOptions {
  db: Db
  clock?: Clock
  payments?: PaymentProvider
  logError?: (message: string, error?: unknown) => void
}

export function createAppContext(options: AppContextOptions): AppContext {
  const clock = options.clock ?? systemClock
  const logError = options.logError ?? ((message, error) => console.error(message, error ?? ''))
  return Object.freeze({
    db: options.db,
    clock,
    ids: new IdFactory(() => clock.now()),
    directory: new Directory(options.db),
    limiter: new RateLimiter(),
    meter: new UsageMeter(options.db, (error) => logError('usage flush failed:', error)),
    payments: options.payments ?? new LocalPaymentProvider(options.db),
    signingKeys: new SigningKeys(options.db, clock),
    logError,
  })
}
