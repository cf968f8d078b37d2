/*
 * The per-client token bucket of the unauthenticated routes (README.md, "Configuration",
 * `--public-rate-limit`): each client may make `burst` requests at once, and `perSecond` more every second
 * after that. An API key's requests are limited per organization instead (rate-limiter.ts); these routes have
 * no organization, so the client's address is what is counted.
 */

/** `--public-rate-limit`: requests per second refilled, and the bucket's size. */
export interface PublicRate {
  perSecond: number
  burst: number
}

/** The default of `--public-rate-limit` (README.md, "Configuration"): 20 requests a second, bursts of 100. */
export const DEFAULT_PUBLIC_RATE: PublicRate = Object.freeze({ perSecond: 20, burst: 100 })

/** One request against a client's bucket. */
export interface BucketDecision {
  allowed: boolean
  /** Whole seconds until the bucket holds a token again (0 when admitted). */
  retryAfterSeconds: number
  /** Milliseconds until the bucket holds a token again, unrounded (0 when admitted). */
  retryInMs: number
}

/** The decision from the tokens left after the request (negative: refused, what is missing). */
export function bucketDecision(allowed: boolean, tokensLeft: number, rate: PublicRate): BucketDecision {
  if (allowed) return { allowed, retryAfterSeconds: 0, retryInMs: 0 }
  const retryInMs = ((1 - tokensLeft) * 1000) / rate.perSecond
  return { allowed, retryAfterSeconds: retryAfterSecondsOf(retryInMs), retryInMs }
}

/** Retry-After in whole seconds; rounding down would send the client back before a token is there. */
export function retryAfterSecondsOf(retryInMs: number): number {
  return Math.max(1, Math.ceil(retryInMs / 1000))
}

interface Bucket {
  tokens: number
  /** When `tokens` was last brought up to date (ms). */
  at: number
}

/** How often the buckets that are full again are dropped, so memory follows the clients of the moment. */
const SWEEP_INTERVAL_MS = 10_000

/**
 * The buckets of one process, in memory: the embedded server's, and every instance's fallback while
 * Redis is lost. A bucket left alone until it is full again is the same as no bucket, so those are
 * dropped every SWEEP_INTERVAL_MS: memory holds the clients of the last few seconds, not every client
 * ever seen.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>()
  private sweptAt = 0

  take(client: string, rate: PublicRate, now: number): BucketDecision {
    if (now - this.sweptAt >= SWEEP_INTERVAL_MS) this.sweep(rate, now)
    let bucket = this.buckets.get(client)
    if (!bucket) {
      bucket = { tokens: rate.burst, at: now }
      this.buckets.set(client, bucket)
    } else if (now > bucket.at) {
      bucket.tokens = Math.min(rate.burst, bucket.tokens + ((now - bucket.at) * rate.perSecond) / 1000)
      bucket.at = now
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return bucketDecision(true, bucket.tokens, rate)
    }
    return bucketDecision(false, bucket.tokens, rate)
  }

  /** How many clients have a bucket now (for tests of the sweep). */
  get size(): number {
    return this.buckets.size
  }

  private sweep(rate: PublicRate, now: number): void {
    this.sweptAt = now
    const refillMs = (rate.burst * 1000) / rate.perSecond
    for (const [client, bucket] of this.buckets) {
      if (now - bucket.at >= refillMs) this.buckets.delete(client)
    }
  }
}

/**
 * The bucket a client address counts against: an IPv4 address as is (an IPv4-mapped IPv6 address as
 * its IPv4 address), an IPv6 address by its /64 prefix, because one machine commonly holds a whole /64
 * and could otherwise take a fresh bucket for each of its 2^64 addresses.
 */
export function clientBucketKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1]!
  if (!address.includes(':')) return address
  const [head = '', tail = ''] = address.split('%')[0]!.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === '' ? [] : tail.split(':')
  const groups = address.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`
}
