import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RedisStateListener } from '../../server/platform/redis/connection.js'
import { within } from '../support/concurrency.js'
import { createHarness, type Harness } from '../support/harness.js'
import { type PrivateRedis, startPrivateRedis } from '../support/redis-server.js'

/*
 * Redis lost while the server runs (a redis-server of the test's own, killed and restarted): requests
 * go on being answered, limited in the instance's memory; the outage is logged once; the instance
 * returns to Redis when it answers again.
 */

let redis: PrivateRedis
let h: Harness
const events: Array<{ component: string; state: string }> = []
beforeEach(async () => {
  events.length = 0
  redis = await startPrivateRedis()
  const onRedisState: RedisStateListener = ({ component, state }) => events.push({ component, state })
  h = await createHarness({}, { redisUrl: redis.url, onRedisState })
})
afterEach(async () => {
  await h.close()
  await redis.kill()
})

describe('Redis lost while running', () => {
  it('falls back to the in-memory limiter, says so once, returns to Redis, never a 5xx', async () => {
    const acme = await h.createOrg('acme')
    const statuses: number[] = []
    const call = async () => {
      const res = await h.get('/console/billing/keys', { key: acme.key })
      statuses.push(res.status)
      return res
    }
    for (let i = 0; i < 3; i++) await call()
    expect((await call()).headers.get('ratelimit-remaining')).toBe('56')

    await redis.kill()
    for (let i = 0; i < 10; i++) await call()
    expect(events.filter((e) => e.component === 'limits')).toEqual([{ component: 'limits', state: 'lost' }])
    // Redis is not a readiness check: the instance answers, so it stays in its load balancer's rotation.
    const ready = await h.get('/readyz', { key: null })
    expect(ready.status).toBe(200)
    expect(ready.body.checks.map((c: { name: string }) => c.name)).toEqual(['database', 'migrations'])
    // The fallback limits too: the organization's minute in this instance's memory.
    for (let i = 0; i < 60; i++) await call()
    expect(statuses.at(-1)).toBe(429)
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true)

    await redis.restart()
    await within(10_000, () => events.some((e) => e.component === 'limits' && e.state === 'back'))
    await within(10_000, () => events.some((e) => e.component === 'invalidations' && e.state === 'back'))
    // The new Redis is empty: its minute starts afresh and its day is seeded from the stored usage.
    await h.ctx.meter.flush()
    const back = await call()
    expect(back.status).toBe(200)
    expect(back.headers.get('ratelimit-remaining')).toBe('59')
    expect(events.filter((e) => e.component === 'limits')).toEqual([
      { component: 'limits', state: 'lost' },
      { component: 'limits', state: 'back' },
    ])
    expect(h.loggedErrors).toEqual([])
  })

  it('after the outage the subscription is back and the cache starts over', async () => {
    const b = await h.newInstance()
    const acme = await h.createOrg('acme')
    const second = (await h.post('/console/billing/keys', { org_id: 'acme', name: 'second' })).body
    expect((await b.get('/console/billing/keys', { key: second.api_key })).status).toBe(200)
    await redis.kill()
    // Revoked while the bus is down: the message is lost.
    expect((await h.request('DELETE', `/console/billing/keys/${second.key_id}`)).status).toBe(200)
    expect((await h.get('/console/billing/keys', { key: second.api_key })).status).toBe(401)
    await redis.restart()
    // B forgets everything when its subscription comes back, so it reads the revocation.
    await within(
      10_000,
      async () => (await b.get('/console/billing/keys', { key: second.api_key })).status === 401,
    )
    expect((await b.get('/console/billing/keys', { key: acme.key })).status).toBe(200)
  })
})
