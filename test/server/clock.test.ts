import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { utcDate } from '../../server/clock.js'

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
