import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Db, openPostgres } from '../../server/platform/db/database.js'
import { RateLimiter } from '../../server/platform/limits/rate-limiter.js'
import { connectRedis } from '../../server/platform/redis/connection.js'
import { RedisLimitStore } from '../../server/platform/redis/limit-store.js'
import type { Limits } from '../../src/contract/limits.js'
import {
  createRedisPrefix,
  createTestDatabase,
  TEST_REDIS_URL,
  type TestDatabase,
} from '../support/backends.js'

/*
 * The Redis store decides exactly as the in-memory limiter the embedded server uses: same admissions,
 * same RateLimit-* values and Retry-After, over any sequence of requests, organizations, tier changes
 * and day boundaries.
 */

let database: TestDatabase
let db: Db
let redis: Awaited<ReturnType<typeof connectRedis>>
const prefixes: Array<ReturnType<typeof createRedisPrefix>> = []
beforeAll(async () => {
  database = await createTestDatabase()
  db = await openPostgres(database.url, { poolSize: 2 })
  redis = await connectRedis(TEST_REDIS_URL, 'rwa-test')
})
afterAll(async () => {
  for (const prefix of prefixes) await prefix.clean()
  redis.disconnect()
  await db.destroy()
  await database.drop()
})

const LIMITS: Limits[] = [
  { requests_per_minute: 3, requests_per_day: 7, max_dids: 1, max_skills: 1 },
  { requests_per_minute: 5, requests_per_day: 'unlimited', max_dids: 1, max_skills: 1 },
  { requests_per_minute: 2, requests_per_day: 4, max_dids: 1, max_skills: 1 },
]

const step = fc.record({
  org: fc.constantFrom('acme', 'globex'),
  tier: fc.nat(LIMITS.length - 1),
  // Mostly within the minute, sometimes across it or right at its edge, now and then across midnight.
  advance: fc.oneof(
    fc.nat(20_000),
    fc.nat(90_000),
    fc.constantFrom(0, 1, 19_999, 20_000, 59_999, 60_000, 60_001),
    fc.constant(6 * 3600_000),
  ),
  // Mostly one request; sometimes a batch's several, at times more than a minute's limit.
  count: fc.oneof(fc.constant(1), fc.constant(1), fc.integer({ min: 1, max: 6 })),
})

describe('RedisLimitStore', () => {
  it('decides every request (and every batch of several) exactly as the in-memory RateLimiter', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
        const prefix = createRedisPrefix()
        prefixes.push(prefix)
        const store = new RedisLimitStore(redis, db, { prefix: prefix.prefix })
        const memory = new RateLimiter()
        let now = Date.UTC(2026, 0, 15, 20, 0, 0)
        for (const { org, tier, advance, count } of steps) {
          now += advance
          const limits = LIMITS[tier]!
          expect(await store.take(org, limits, now, count)).toEqual(memory.take(org, limits, now, count))
        }
        await store.close()
      }),
      { numRuns: 40 },
    )
  })

  it('seeds a missing day from the stored usage, once, whichever instance asks first', async () => {
    const prefix = createRedisPrefix()
    prefixes.push(prefix)
    const now = Date.UTC(2026, 0, 15, 12, 0, 0)
    await db
      .insertInto('usage_daily')
      .values({ org_id: 'seeded', date: '2026-01-15', request_count: 5 })
      .execute()
    const limits = LIMITS[0]! // 7 a day
    const stores = [0, 1].map(() => new RedisLimitStore(redis, db, { prefix: prefix.prefix }))
    const decisions = await Promise.all(
      [0, 1, 2, 3].map((i) => stores[i % 2]!.take('seeded', limits, now + i)),
    )
    expect(decisions.map((d) => d.allowed)).toEqual(expect.arrayContaining([true, true, false, false]))
    expect(decisions.filter((d) => d.allowed)).toHaveLength(2)
  })
})
