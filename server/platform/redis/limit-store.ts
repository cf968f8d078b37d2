import type { Redis } from 'ioredis'
import type { Limits } from '../../../src/contract/limits.js'
import { MINUTE_MS, utcDate } from '../clock.js'
import type { Db } from '../db/database.js'
import { InMemoryLimitStore, type LimitStore } from '../limits/limit-store.js'
import { type BucketDecision, bucketDecision, type PublicRate } from '../limits/public-bucket.js'
import { type LimitDecision, type LimitOutcome, limitDecision } from '../limits/rate-limiter.js'
import { requestCountOn } from '../metering/queries.js'
import { pingRedis, type RedisStateListener } from './connection.js'

/**
 * One request against an organization's limits, atomically (a Lua script runs alone on the server):
 * KEYS[1] the sorted set of the trailing minute's admitted requests (score = time in ms), KEYS[2] the
 * UTC day's counter. ARGV: now, requests per minute, requests per day (-1: unlimited), the stored
 * usage of the day (-1: not read yet), a unique member for this request, the day key's TTL (s), and how
 * many requests it takes (a batch's operations, all admitted or none:
 * docs/batches.md, "Roles, limits, idempotency, audit"). Returns { outcome, window size before, day count
 * before, pivot time }, outcome being 0 admitted, 1 refused by the day, 2 refused by the minute, -1 "the day
 * key is missing: call again with the stored usage", which seeds it unless another instance did first.
 */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local rpm = tonumber(ARGV[2])
local per_day = tonumber(ARGV[3])
local seed = tonumber(ARGV[4])
local count = tonumber(ARGV[7])
local day = redis.call('GET', KEYS[2])
if day then
  day = tonumber(day)
elseif seed < 0 then
  return {-1, 0, 0, ''}
else
  redis.call('SET', KEYS[2], seed, 'EX', ARGV[6])
  day = seed
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ${MINUTE_MS})
local size = redis.call('ZCARD', KEYS[1])
if per_day >= 0 and day + count > per_day then
  return {1, size, day, ''}
end
if size + count > rpm then
  local keep = math.max(0, rpm - count)
  if size <= keep then return {2, size, day, ''} end
  local pivot = redis.call('ZRANGE', KEYS[1], size - keep - 1, size - keep - 1, 'WITHSCORES')
  return {2, size, day, pivot[2]}
end
if count == 1 then
  redis.call('ZADD', KEYS[1], now, ARGV[5])
else
  for i = 1, count, 500 do
    local args = {}
    for j = i, math.min(count, i + 499) do
      args[#args + 1] = now
      args[#args + 1] = ARGV[5] .. ':' .. j
    end
    redis.call('ZADD', KEYS[1], unpack(args))
  end
end
redis.call('PEXPIRE', KEYS[1], ${MINUTE_MS + 1000})
redis.call('INCRBY', KEYS[2], count)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, size, day, oldest[2]}
`

/**
 * One request against a client's token bucket on the unauthenticated routes (public-bucket.ts),
 * atomically, so every instance draws from the same bucket: KEYS[1] a hash { t: tokens, a: when they
 * were counted (ms) }. ARGV: now, tokens per second, burst, the key's TTL (ms: the time to refill it
 * whole, after which an absent bucket and a full one are the same). Returns { 1 admitted or 0 refused,
 * the tokens left as a string } (a Lua number in a reply would lose its fraction). A bucket counted
 * later than `now` (another instance's clock runs ahead) is not refilled rather than drained.
 */
const TAKE_PUBLIC_SCRIPT = `
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 't', 'a')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if not tokens or not at then
  tokens = burst
  at = now
elseif now > at then
  tokens = math.min(burst, tokens + (now - at) * rate / 1000)
  at = now
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'a', tostring(at))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {allowed, tostring(tokens)}
`

const OUTCOMES: Record<number, LimitOutcome> = { 0: 'admitted', 1: 'day', 2: 'minute' }

/** A day key outlives its day by one, so a late request near midnight still finds it. */
const DAY_KEY_TTL_SECONDS = 2 * 86_400

/** How often, while Redis is lost, the store checks whether it is back. */
const PROBE_INTERVAL_MS = 1000

type TakeReply = [number, number, number, string]

interface RedisWithTake extends Redis {
  rwaTakeLimit(
    minuteKey: string,
    dayKey: string,
    now: number,
    rpm: number,
    perDay: number,
    seed: number,
    member: string,
    dayTtl: number,
    count: number,
  ): Promise<TakeReply>
  rwaTakePublic(
    bucketKey: string,
    now: number,
    perSecond: number,
    burst: number,
    ttlMs: number,
  ): Promise<[number, string]>
}

/**
 * The limits of every instance in one Redis: each organization's exact sliding per-minute log and its
 * UTC-day counter (seeded from the stored usage when Redis has no value for the day), one atomic
 * script per request, so the instances together never admit more than the tier allows. The decision
 * and its headers are computed as the in-memory limiter computes them (`limitDecision`).
 *
 * If Redis fails, each request is decided by an in-memory limiter of this instance instead (so during
 * an outage N instances admit up to N times the limit); the outage is reported once, Redis is probed
 * every second, and the store returns to it when it answers. A Redis failure never fails a request.
 */
export class RedisLimitStore implements LimitStore {
  private readonly redis: RedisWithTake
  private readonly fallback: InMemoryLimitStore
  private lost = false
  private probe: NodeJS.Timeout | undefined
  private sequence = 0
  private readonly instance = Math.random().toString(36).slice(2, 10)

  constructor(
    redis: Redis,
    private readonly db: Db,
    private readonly options: { prefix: string; onState?: RedisStateListener },
  ) {
    this.redis = redis as RedisWithTake
    if (typeof this.redis.rwaTakeLimit !== 'function') {
      redis.defineCommand('rwaTakeLimit', { numberOfKeys: 2, lua: TAKE_SCRIPT })
    }
    if (typeof this.redis.rwaTakePublic !== 'function') {
      redis.defineCommand('rwaTakePublic', { numberOfKeys: 1, lua: TAKE_PUBLIC_SCRIPT })
    }
    this.fallback = new InMemoryLimitStore(db)
  }

  async take(orgId: string, limits: Limits, now: number, count = 1): Promise<LimitDecision> {
    if (this.lost) return this.fallback.take(orgId, limits, now, count)
    const day = utcDate(now)
    const base = `${this.options.prefix}limits:${orgId}`
    const keys = [`${base}:minute`, `${base}:day:${day}`] as const
    const perDay = limits.requests_per_day === 'unlimited' ? -1 : limits.requests_per_day
    const member = `${now}:${this.instance}:${this.sequence++}`
    const run = (seed: number) =>
      this.redis.rwaTakeLimit(
        ...keys,
        now,
        limits.requests_per_minute,
        perDay,
        seed,
        member,
        DAY_KEY_TTL_SECONDS,
        count,
      )

    let reply: TakeReply
    try {
      reply = await run(-1)
    } catch (error) {
      this.markLost(error)
      return this.fallback.take(orgId, limits, now, count)
    }
    if (reply[0] === -1) {
      // Outside the try: a database failure here is not Redis's.
      const stored = await requestCountOn(this.db, orgId, day)
      try {
        reply = await run(stored)
      } catch (error) {
        this.markLost(error)
        return this.fallback.take(orgId, limits, now, count)
      }
    }
    const [code, windowSize, dayCount, pivot] = reply
    const outcome = OUTCOMES[code]
    if (!outcome) throw new Error(`unexpected reply from the limit script: ${JSON.stringify(reply)}`)
    return limitDecision(limits, now, outcome, {
      count,
      dayCount,
      windowSize,
      pivotAt: pivot === '' ? undefined : Number(pivot),
    })
  }

  async takePublic(client: string, rate: PublicRate, now: number): Promise<BucketDecision> {
    if (this.lost) return this.fallback.takePublic(client, rate, now)
    const refillMs = Math.ceil((rate.burst * 1000) / rate.perSecond) + 1000
    let reply: [number, string]
    try {
      reply = await this.redis.rwaTakePublic(
        `${this.options.prefix}public:${client}`,
        now,
        rate.perSecond,
        rate.burst,
        refillMs,
      )
    } catch (error) {
      this.markLost(error)
      return this.fallback.takePublic(client, rate, now)
    }
    return bucketDecision(reply[0] === 1, Number(reply[1]), rate)
  }

  async ping(): Promise<void> {
    await pingRedis(this.redis)
  }

  async close(): Promise<void> {
    clearInterval(this.probe)
    this.probe = undefined
  }

  private markLost(error: unknown): void {
    if (this.lost) return
    this.lost = true
    this.options.onState?.({ component: 'limits', state: 'lost', error })
    this.probe = setInterval(() => {
      pingRedis(this.redis).then(
        () => {
          if (!this.lost) return
          this.lost = false
          clearInterval(this.probe)
          this.probe = undefined
          this.options.onState?.({ component: 'limits', state: 'back' })
        },
        () => {},
      )
    }, PROBE_INTERVAL_MS)
    this.probe.unref()
  }
}
