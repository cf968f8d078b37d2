import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isoTimestamp, utcDate } from '../../server/platform/clock.js'

describe('utcDate', () => {
  it('is the date of toISOString() for any sequence of instants, forwards or backwards in time', () => {
    const instant = fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) })
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
        for (const ms of instants) expect(utcDate(ms)).toBe(new Date(ms).toISOString().slice(0, 10))
      }),
    )
  })

  it('turns at 00:00 UTC exactly', () => {
    const midnight = Date.UTC(2026, 10, 23)
    expect(utcDate(midnight - 1)).toBe('2026-11-22')
    expect(utcDate(midnight)).toBe('2026-11-23')
    expect(utcDate(midnight - 1)).toBe('2026-11-22')
  })
})

describe('isoTimestamp', () => {
  it('is toISOString() for any sequence of instants: the same second, the next, backwards, fractions', () => {
    const year10000 = Date.UTC(10000, 0, 1)
    const instant = fc.oneof(
      fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) }),
      // Near the edges of the remembered range, and outside it (before 1970, six-digit years).
      fc.integer({ min: -5_000, max: 5_000 }),
      fc.integer({ min: year10000 - 5_000, max: year10000 + 5_000 }),
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.double({ min: 0, max: Date.UTC(2100, 0, 1), noNaN: true }),
    )
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
        for (const ms of instants) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString())
      }),
      { numRuns: 2_000 },
    )
  })

  it('writes each millisecond of one second, and turns at the second', () => {
    const second = Date.UTC(2026, 11, 4, 22, 15, 39)
    for (const ms of [second + 999, second, second + 7, second + 42, second + 1000, second - 1])
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString())
    expect(isoTimestamp(second + 7)).toBe('2026-12-04T22:15:39.007Z')
    expect(() => isoTimestamp(Number.NaN)).toThrow(RangeError)
  })
})
