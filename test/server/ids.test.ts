import { describe, expect, it } from 'vitest'
import { ManualClock } from '../support/clock.js'
import { IdFactory } from '../../server/platform/ids.js'

describe('IdFactory', () => {
  it('makes prefixed ids that sort in creation order, within and across milliseconds', () => {
    const clock = new ManualClock()
    const ids = new IdFactory(() => clock.now())
    const made: string[] = []
    for (let i = 0; i < 1000; i++) {
      made.push(ids.next('tx'))
      if (i % 100 === 99) clock.advance(1)
    }
    expect(new Set(made).size).toBe(1000)
    expect([...made].sort()).toEqual(made)
    for (const id of made) expect(id).toMatch(/^tx_[0-9A-HJKMNP-TV-Z]{26}$/)
  })

  it('puts the time first, so ids from a later millisecond sort after', () => {
    const clock = new ManualClock()
    const ids = new IdFactory(() => clock.now())
    const early = ids.next('key')
    clock.advance(1)
    expect(ids.next('key') > early).toBe(true)
  })
})
