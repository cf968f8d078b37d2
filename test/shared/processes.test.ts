import { describe, expect, it } from 'vitest'
import { statuses, within } from '../support/concurrency.js'
import { buildWorld, expectStatus, historyEvents, RECIPIENT, transferBody } from '../support/governance.js'
import type { ApiCaller } from '../support/harness.js'
import { clientOf, type ServerProcess, sharedInstances } from '../support/server-process.js'

/*
 * Two real `rwa server start` processes over one new PostgreSQL database and one Redis key prefix,
 * as an operator would run them behind a load balancer; requests are split between them.
 */

const deployment = sharedInstances()

/** The admin key whichever instance printed it (exactly one does on a new database). */
const printedKeys = (instances: ServerProcess[]) =>
  instances.flatMap((s) => [
    ...(/admin API key \(shown once\): (rwa_live_[A-Za-z0-9_-]{43})/.exec(s.stderr())?.slice(1) ?? []),
  ])

function splitAcross<T>(clients: ApiCaller[], n: number, send: (c: ApiCaller, i: number) => Promise<T>) {
  return Promise.all(Array.from({ length: n }, (_, i) => send(clients[i % clients.length]!, i)))
}

describe('two server processes over one PostgreSQL and one Redis', () => {
  it('started at once on an empty database: one schema, one admin key printed once, both serve it', async () => {
    const instances = await deployment.startAtOnce(2)
    const printed = printedKeys(instances)
    expect(printed).toHaveLength(1)
    for (const server of instances) {
      const stats = await clientOf(server, printed[0]).get('/console/billing/stats')
      expect(stats.status).toBe(200)
      expect(stats.body.total_keys).toBe(1)
    }
  })

  it('started at once with RWA_ADMIN_KEY: that key, printed by neither', async () => {
    const preset = `rwa_live_${'C'.repeat(43)}`
    const instances = await deployment.startAtOnce(2, preset)
    expect(printedKeys(instances)).toEqual([])
    for (const server of instances) {
      expect((await clientOf(server, preset).get('/console/billing/stats')).body.total_keys).toBe(1)
    }
  })

  it('share limits, invalidations, writes and usage as one server', async () => {
    const instances = await deployment.startAtOnce(2)
    const adminKey = printedKeys(instances)[0]!
    const [a, b] = instances.map((s) => clientOf(s, adminKey)) as [ApiCaller, ApiCaller]

    // 100 requests of a free-tier organization at once, split: exactly 60 admitted.
    const acme = await expectStatus(a.post('/console/billing/keys', { org_id: 'acme', name: 'load' }), 201)
    const burst = await splitAcross([a, b], 100, (c) => c.get('/console/billing/keys', { key: acme.api_key }))
    expect(statuses(burst)).toEqual({ 200: 60, 429: 40 })
    for (const refused of burst.filter((r) => r.status === 429)) {
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    // Each process flushes its counts within a second; the total is exact whichever answers.
    await within(
      5000,
      async () => (await b.get('/console/billing/usage/acme?days=1')).body.totals.total_requests === 60,
    )
    expect((await a.get('/console/billing/usage/acme?days=1')).body.totals.total_requests).toBe(60)

    // A key revoked on A is refused by B within a second.
    const globex = await expectStatus(a.post('/console/billing/keys', { org_id: 'globex', name: 'g' }), 201)
    expect((await b.get('/console/billing/keys', { key: globex.api_key })).status).toBe(200)
    await expectStatus(a.request('DELETE', `/console/billing/keys/${globex.key_id}`), 200)
    await within(
      1000,
      async () => (await b.get('/console/billing/keys', { key: globex.api_key })).status === 401,
    )

    // A tier change on A shows in B's RateLimit-Limit within a second.
    const initech = await expectStatus(a.post('/console/billing/keys', { org_id: 'initech', name: 'i' }), 201)
    expect(
      (await b.get('/console/billing/keys', { key: initech.api_key })).headers.get('ratelimit-limit'),
    ).toBe('60')
    await expectStatus(
      a.post('/console/billing/subscription', { org_id: 'initech', tier: 'enterprise' }),
      200,
    )
    await within(1000, async () => {
      const res = await b.get('/console/billing/keys', { key: initech.api_key })
      return res.headers.get('ratelimit-limit') === '5000'
    })

    // Concurrent transfers through both: the holdings add up.
    const world = await buildWorld(a)
    const transfers = await splitAcross([a, b], 30, (c) =>
      c.post('/console/rwa/transfers', transferBody(world.tokenId, 50)),
    )
    expect(statuses(transfers)).toEqual({ 201: 20, 409: 10 })
    const token = (await b.get(`/console/rwa/tokens/${world.tokenId}`)).body
    expect(token.holdings).toMatchObject([{ holder_did: RECIPIENT, jurisdiction: 'SG', amount: 1000 }])
    const history = await historyEvents(b, world.tokenId)
    expect(history.filter((e) => e === 'transfer_approved')).toHaveLength(20)

    for (const server of instances) expect(server.stderr()).not.toMatch(/unexpected error|redis lost/)
  })

  it('kill -9 of one under write load: the other goes on, and nothing acknowledged is lost', async () => {
    const instances = await deployment.startAtOnce(2)
    const adminKey = printedKeys(instances)[0]!
    const [a, b] = instances.map((s) => clientOf(s, adminKey)) as [ApiCaller, ApiCaller]
    // 1000 units with the owner in US; each transfer moves 1 to RECIPIENT in SG.
    const world = await buildWorld(a)

    const acknowledged: Array<{ transfer_id: string; status: string }> = []
    let failedOnA = 0
    let killed = false
    const worker = async (client: ApiCaller, isA: boolean, count: number) => {
      for (let i = 0; i < count; i++) {
        if (isA && killed) return
        try {
          const res = await client.post('/console/rwa/transfers', transferBody(world.tokenId, 1))
          expect(res.status).toBe(201)
          acknowledged.push({ transfer_id: res.body.transfer_id, status: res.body.status })
        } catch (error) {
          // Only A's connections may break (it was killed); B must answer every request.
          if (!isA || !killed) throw error
          failedOnA++
        }
      }
    }
    const load = [0, 1, 2].flatMap(() => [worker(a, true, 200), worker(b, false, 40)])
    await within(10_000, async () => acknowledged.length >= 30)
    instances[0]!.process.kill('SIGKILL')
    killed = true
    await Promise.all(load)
    // B goes on after the kill.
    const afterKill = await b.post('/console/rwa/transfers', transferBody(world.tokenId, 1))
    expect(afterKill.status).toBe(201)
    acknowledged.push({ transfer_id: afterKill.body.transfer_id, status: afterKill.body.status })

    for (const { transfer_id, status } of acknowledged) {
      const stored = await b.get(`/console/rwa/transfers/${transfer_id}`)
      expect(stored.status).toBe(200)
      expect(stored.body.status).toBe(status)
    }
    const token = (await b.get(`/console/rwa/tokens/${world.tokenId}`)).body
    const total = token.holdings.reduce((n: number, h: { amount: number }) => n + h.amount, 0)
    expect(total).toBe(1000)
    const approvedEvents = (await historyEvents(b, world.tokenId)).filter((e) => e === 'transfer_approved')
    const moved = token.holdings.find((h: { holder_did: string }) => h.holder_did === RECIPIENT)?.amount ?? 0
    // Every approved transfer that committed moved one unit, acknowledged or cut off by the kill.
    expect(moved).toBe(approvedEvents.length)
    expect(approvedEvents.length).toBeGreaterThanOrEqual(
      acknowledged.filter((t) => t.status === 'approved').length,
    )
    expect(failedOnA + acknowledged.length).toBeGreaterThan(30)
  })
})
