import type { Limits } from '../../../src/contract/limits.js'
import { utcDate } from '../clock.js'
import type { Db } from '../db/database.js'
import { requestCountOn } from '../metering/queries.js'
import { type BucketDecision, type PublicRate, TokenBuckets } from './public-bucket.js'
import { type LimitDecision, RateLimiter } from './rate-limiter.js'

/**
 * Where each organization's per-minute window and per-day counter live. `take` admits one request (or
 * `count` of them, all or none: a batch's operations) if both limits allow it and records it, atomically with respect to every other request of the
 * organization that the store sees. A day counter the store has no value for is seeded from the
 * stored usage of that day, so a restart does not hand out a fresh day.
 */
export interface LimitStore {
  take(orgId: string, limits: Limits, now: number, count?: number): Promise<LimitDecision>
  /**
   * `take` of one request answered without a promise when the store can (in memory, its day already
   * seeded); undefined otherwise, and nothing taken: the caller then calls `take`.
   */
  takeNow?(orgId: string, limits: Limits, now: number): LimitDecision | undefined
  /**
   * Takes one token from the bucket of `client` (an address, or an IPv6 /64) on the unauthenticated
   * routes, atomically with respect to every request of that client the store sees.
   */
  takePublic(client: string, rate: PublicRate, now: number): Promise<BucketDecision>
  /** Resolves when the store can serve shared limits now; rejects saying why (for readiness checks). */
  ping(): Promise<void>
  /** Releases what the store holds open (connections, timers). */
  close(): Promise<void>
}

/** The embedded store: one process, the windows in memory (a RateLimiter). */
export class InMemoryLimitStore implements LimitStore {
  private readonly limiter = new RateLimiter()
  private readonly buckets = new TokenBuckets()

  constructor(private readonly db: Db) {}

  async take(orgId: string, limits: Limits, now: number, count = 1): Promise<LimitDecision> {
    const today = utcDate(now)
    if (this.limiter.needsDaySeed(orgId, today)) {
      const stored = await requestCountOn(this.db, orgId, today)
      // Another request of the organization may have seeded the day while this one read.
      if (this.limiter.needsDaySeed(orgId, today)) {
        this.limiter.seedDay(orgId, today, stored, limits.requests_per_minute)
      }
    }
    return this.limiter.take(orgId, limits, now, count)
  }

  takeNow(orgId: string, limits: Limits, now: number): LimitDecision | undefined {
    if (this.limiter.needsDaySeed(orgId, utcDate(now))) return undefined
    return this.limiter.take(orgId, limits, now)
  }

  async takePublic(client: string, rate: PublicRate, now: number): Promise<BucketDecision> {
    return this.buckets.take(client, rate, now)
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
