import { describe, expect, it } from 'vitest'
import { TIER_LIMITS } from '../../../src/contract/limits.js'
import { RateLimiter } from '../../../server/platform/limits/rate-limiter.js'

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0)
const small = { ...TIER_LIMITS.free, requests_per_minute: 3, requests_per_day: 5 }

describe('RateLimiter', () => {
  it('admits up to the per-minute limit within a sliding minute, then refuses until the oldest expires', () => {
    const limiter = new RateLimiter()
    expect(limiter.take('o', small, T0).allowed).toBe(true)
    expect(limiter.take('o', small, T0 + 20_000).allowed).toBe(true)
    expect(limiter.take('o', small, T0 + 40_000).allowed).toBe(true)
    const refused = limiter.take('o', small, T0 + 59_999)
    expect(refused).toMatchObject({ allowed: false, window: 'minute', limit: 3, remaining: 0 })
    expect(refused.retryAfterSeconds).toBe(1)
    // At T0+60s the first request leaves the window: exactly one more fits.
    expect(limiter.take('o', small, T0 + 60_000).allowed).toBe(true)
    expect(limiter.take('o', small, T0 + 60_001).allowed).toBe(false)
  })

  it('does not count refused requests', () => {
    const limiter = new RateLimiter()
    const limits = { ...small, requests_per_day: 100 }
    for (let i = 0; i < 3; i++) limiter.take('o', limits, T0)
    for (let i = 0; i < 10; i++) expect(limiter.take('o', limits, T0 + 1000).allowed).toBe(false)
    expect(limiter.take('o', limits, T0 + 60_000).allowed).toBe(true)
  })

  it('refuses past the daily limit until 00:00 UTC, and says so in Retry-After', () => {
    const limiter = new RateLimiter()
    const late = Date.UTC(2026, 0, 15, 23, 50, 0)
    for (let i = 0; i < 5; i++) expect(limiter.take('o', small, late + i * 60_000).allowed).toBe(true)
    const refused = limiter.take('o', small, late + 5 * 60_000)
    expect(refused).toMatchObject({ allowed: false, window: 'day', limit: 5 })
    expect(refused.retryAfterSeconds).toBe(5 * 60)
    expect(limiter.take('o', small, Date.UTC(2026, 0, 16, 0, 0, 0)).allowed).toBe(true)
  })

  it('takes several requests at once (a batch) all or none, by the minute and by the day', () => {
    const limiter = new RateLimiter()
    const limits = { ...small, requests_per_minute: 10, requests_per_day: 15 }
    expect(limiter.take('o', limits, T0)).toMatchObject({ allowed: true, remaining: 9 })
    const six = limiter.take('o', limits, T0 + 10_000, 6)
    expect(six).toMatchObject({ allowed: true, window: 'minute', remaining: 3 })
    // 4 do not fit in what is left (3): none is taken, and room for 4 comes when the first leaves.
    const four = limiter.take('o', limits, T0 + 20_000, 4)
    expect(four).toMatchObject({ allowed: false, window: 'minute' })
    expect(four.retryAfterSeconds).toBe(40)
    expect(limiter.take('o', limits, T0 + 20_000, 3)).toMatchObject({ allowed: true, remaining: 0 })
    // The day: 10 taken, 5 left; a minute later 6 are refused by the day, 5 fit.
    expect(limiter.take('o', limits, T0 + 80_000, 6)).toMatchObject({ allowed: false, window: 'day' })
    expect(limiter.take('o', limits, T0 + 80_000, 5)).toMatchObject({ allowed: true, remaining: 0 })
    // More than a minute's limit never fits.
    expect(new RateLimiter().take('p', limits, T0, 11)).toMatchObject({ allowed: false, window: 'minute' })
  })

  it('keeps organizations apart', () => {
    const limiter = new RateLimiter()
    for (let i = 0; i < 3; i++) limiter.take('a', small, T0)
    expect(limiter.take('a', small, T0).allowed).toBe(false)
    expect(limiter.take('b', small, T0).allowed).toBe(true)
  })

  it('continues a seeded day count after a restart', () => {
    const limiter = new RateLimiter()
    expect(limiter.needsDaySeed('o', '2026-01-15')).toBe(true)
    limiter.seedDay('o', '2026-01-15', 4, 3)
    expect(limiter.needsDaySeed('o', '2026-01-15')).toBe(false)
    expect(limiter.take('o', small, T0).allowed).toBe(true)
    expect(limiter.take('o', small, T0 + 1).allowed).toBe(false)
  })

  it('keeps the recent window when the per-minute limit changes with the tier', () => {
    const limiter = new RateLimiter()
    for (let i = 0; i < 3; i++) limiter.take('o', small, T0 + i)
    const bigger = { ...small, requests_per_minute: 5, requests_per_day: 'unlimited' as const }
    expect(limiter.take('o', bigger, T0 + 10).remaining).toBe(1)
    const smaller = { ...bigger, requests_per_minute: 2 }
    expect(limiter.take('o', smaller, T0 + 20).allowed).toBe(false)
  })

  it('a downgrade and an upgrade within the minute do not hand out the same room twice', () => {
    const limiter = new RateLimiter()
    const day = { requests_per_day: 'unlimited' as const }
    const three = { ...small, ...day, requests_per_minute: 3 }
    for (let i = 0; i < 3; i++) expect(limiter.take('o', three, T0 + i * 1000).allowed).toBe(true)
    const refused = limiter.take('o', { ...three, requests_per_minute: 2 }, T0 + 5000)
    // Two of the three must leave: the second, made at T0+1s, leaves at T0+61s.
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 56 })
    expect(limiter.take('o', three, T0 + 6000).allowed).toBe(false)
    expect(limiter.take('o', three, T0 + 60_000).allowed).toBe(true)
  })

  it('reports whichever limit has less room left', () => {
    const limiter = new RateLimiter()
    const first = limiter.take('o', { ...small, requests_per_minute: 60, requests_per_day: 2 }, T0)
    expect(first).toMatchObject({ window: 'day', limit: 2, remaining: 1 })
    const unlimitedDay = limiter.take('p', TIER_LIMITS.enterprise, T0)
    expect(unlimitedDay).toMatchObject({ window: 'minute', limit: 5000, remaining: 4999 })
  })
})
