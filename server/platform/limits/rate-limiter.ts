import type { Limits } from '../../../src/contract/limits.js'
import { MINUTE_MS, msUntilUtcMidnight, utcDate } from '../clock.js'

/** The outcome of one request against an organization's limits, with what the RateLimit headers say. */
export interface LimitDecision {
  allowed: boolean
  /** Which limit the decision and the headers speak of. */
  window: 'minute' | 'day'
  /** The limit the headers report: whichever of the minute and day limits has less room left. */
  limit: number
  remaining: number
  /** Seconds until that limit's window frees room. */
  resetSeconds: number
  /** Seconds to wait before retrying, when refused. */
  retryAfterSeconds: number
}

interface OrgWindow {
  /**
   * Times (ms) of the admitted requests of the last minute, oldest at `head`: a ring of as many slots
   * as the highest per-minute limit the organization had.
   */
  ring: Float64Array
  head: number
  size: number
  day: string
  dayCount: number
}

/**
 * Per-organization limits, in memory: an exact sliding one-minute window (a ring buffer holding the
 * time of each admitted request, so checking costs O(1)) and a per-day counter that resets at 00:00
 * UTC. Refused requests are not counted. The day counter is seeded from the stored usage when the
 * process first sees an organization on a given day, so a restart does not hand out a fresh day.
 */
export class RateLimiter {
  private readonly orgs = new Map<string, OrgWindow>()

  /** True when the day counter of `orgId` has no value yet for `day` and should be seeded. */
  needsDaySeed(orgId: string, day: string): boolean {
    return this.orgs.get(orgId)?.day !== day
  }

  seedDay(orgId: string, day: string, count: number, requestsPerMinute: number): void {
    const w = this.window(orgId, requestsPerMinute)
    w.day = day
    w.dayCount = count
  }

  /**
   * Admits `count` requests of `orgId` at `now` if both limits have room for all of them, and records
   * them; otherwise records none (a batch's operations, docs/batches.md, "Roles, limits, idempotency, audit",
   * are admitted whole or not at all).
   */
  take(orgId: string, limits: Limits, now: number, count = 1): LimitDecision {
    const rpm = limits.requests_per_minute
    const w = this.window(orgId, rpm)
    const today = utcDate(now)
    if (w.day !== today) {
      w.day = today
      w.dayCount = 0
    }
    while (w.size > 0 && w.ring[w.head]! <= now - MINUTE_MS) {
      w.head = (w.head + 1) % w.ring.length
      w.size--
    }

    const perDay = limits.requests_per_day
    const counts = { dayCount: w.dayCount, windowSize: w.size, count }
    if (perDay !== 'unlimited' && w.dayCount + count > perDay)
      return limitDecision(limits, now, 'day', counts)
    if (w.size + count > rpm) {
      // Room for `count` frees when the oldest of the newest `rpm - count` entries leaves the minute
      // (more than the whole minute's limit never fits: the refusal then names the oldest entry).
      const keep = Math.max(0, rpm - count)
      const pivotAt = w.size > keep ? w.ring[(w.head + w.size - keep - 1) % w.ring.length] : undefined
      return limitDecision(limits, now, 'minute', { ...counts, pivotAt })
    }

    for (let i = 0; i < count; i++) {
      w.ring[(w.head + w.size) % w.ring.length] = now
      w.size++
    }
    w.dayCount += count
    return limitDecision(limits, now, 'admitted', { ...counts, pivotAt: w.ring[w.head] })
  }

  /**
   * The window of `orgId`, grown (keeping every entry) when its per-minute limit rose. It never
   * shrinks: after a downgrade the entries over the new limit still count until they leave the
   * minute, so a downgrade and an upgrade within a minute cannot hand out the same room twice.
   */
  private window(orgId: string, rpm: number): OrgWindow {
    let w = this.orgs.get(orgId)
    if (!w) {
      w = { ring: new Float64Array(rpm), head: 0, size: 0, day: '', dayCount: 0 }
      this.orgs.set(orgId, w)
    } else if (w.ring.length < rpm) {
      const ring = new Float64Array(rpm)
      for (let i = 0; i < w.size; i++) ring[i] = w.ring[(w.head + i) % w.ring.length]!
      w.ring = ring
      w.head = 0
    }
    return w
  }
}

/** Which way a request went: admitted, or refused by the day's or the minute's limit. */
export type LimitOutcome = 'admitted' | 'day' | 'minute'

/**
 * The decision and what the RateLimit headers say, from the organization's counts before the request.
 * Shared by the in-memory limiter and the Redis store, so every instance answers alike.
 * - `dayCount`, `windowSize`: requests admitted today and in the trailing minute, before this one;
 * - `count`: how many requests this one takes (1; a batch's operations:
 *   docs/batches.md, "Roles, limits, idempotency, audit");
 * - `pivotAt`: when refused by the minute, the time of the entry whose expiry makes room (the oldest of
 *   the newest `requests_per_minute`); when admitted, the oldest entry of the window including this one.
 */
export function limitDecision(
  limits: Limits,
  now: number,
  outcome: LimitOutcome,
  counts: { dayCount: number; windowSize: number; pivotAt?: number | undefined; count?: number },
): LimitDecision {
  const rpm = limits.requests_per_minute
  const perDay = limits.requests_per_day
  const dayReset = Math.ceil(msUntilUtcMidnight(now) / 1000)
  const minuteReset =
    counts.pivotAt === undefined ? 60 : Math.max(1, Math.ceil((counts.pivotAt + MINUTE_MS - now) / 1000))

  if (outcome === 'day') {
    return {
      allowed: false,
      window: 'day',
      limit: perDay as number,
      remaining: 0,
      resetSeconds: dayReset,
      retryAfterSeconds: dayReset,
    }
  }
  if (outcome === 'minute') {
    return {
      allowed: false,
      window: 'minute',
      limit: rpm,
      remaining: 0,
      resetSeconds: minuteReset,
      retryAfterSeconds: minuteReset,
    }
  }
  const taken = counts.count ?? 1
  const dayLeft = perDay === 'unlimited' ? Number.POSITIVE_INFINITY : perDay - counts.dayCount - taken
  const minuteLeft = rpm - counts.windowSize - taken
  if (dayLeft < minuteLeft) {
    return {
      allowed: true,
      window: 'day',
      limit: perDay as number,
      remaining: dayLeft,
      resetSeconds: dayReset,
      retryAfterSeconds: 0,
    }
  }
  return {
    allowed: true,
    window: 'minute',
    limit: rpm,
    remaining: minuteLeft,
    resetSeconds: minuteReset,
    retryAfterSeconds: 0,
  }
}
