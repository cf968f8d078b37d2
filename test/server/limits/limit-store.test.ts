import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TIER_LIMITS } from '../../../src/contract/limits.js'
import { utcDate } from '../../../server/platform/clock.js'
import { InMemoryLimitStore } from '../../../server/platform/limits/limit-store.js'
import { addUsage } from '../../../server/platform/metering/queries.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const limits = { ...TIER_LIMITS.free, requests_per_minute: 10, requests_per_day: 12 }
const DAY_MS = 86_400_000

describe('InMemoryLimitStore.takeNow (the answer without a promise)', () => {
  it('answers nothing and takes nothing until the day is seeded from the stored usage, then takes as take does', async () => {
    await h.createOrg('acme')
    const store = new InMemoryLimitStore(h.ctx.db)
    const now = h.clock.now()
    await h.ctx.db.transaction().execute((trx) => addUsage(trx, 'acme', utcDate(now), 'request_count', 9))

    expect(store.takeNow('acme', limits, now)).toBeUndefined()
    // The first take of the day reads the 9 stored requests; the answers without a promise count on.
    expect(await store.take('acme', limits, now)).toMatchObject({
      allowed: true,
      window: 'day',
      remaining: 2,
    })
    expect(store.takeNow('acme', limits, now + 1)).toMatchObject({ allowed: true, remaining: 1 })
    expect(store.takeNow('acme', limits, now + 2)).toMatchObject({ allowed: true, remaining: 0 })
    expect(store.takeNow('acme', limits, now + 3)).toMatchObject({ allowed: false, window: 'day' })

    // A new day is seeded again (its stored usage read) before anything is answered without a promise.
    expect(store.takeNow('acme', limits, now + DAY_MS)).toBeUndefined()
    expect(await store.take('acme', limits, now + DAY_MS)).toMatchObject({ allowed: true })
  })
})
