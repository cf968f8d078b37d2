import { afterEach, expect, it } from 'vitest'
import { expectStatus, US } from '../../support/governance.js'
import { createHarness, type Harness, type TestInstance } from '../../support/harness.js'

/*
 * The outbox's cache of each organization's enabled endpoints (server/platform/caches/webhook-endpoints.ts): a
 * write after an endpoint is made, deleted or enabled again queues deliveries by the endpoints of now,
 * on the instance that changed them and, through the invalidation bus, on the others.
 */

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const register = (instance: TestInstance, key: string, id: string) =>
  expectStatus(instance.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: id }, { key }), 201)

const deliveriesOf = (harness: Harness) =>
  harness.ctx.db.selectFrom('webhook_deliveries').select(['event_id', 'webhook_id']).execute()

it('a write queues deliveries to the endpoints of now: made after a cached empty list, none once deleted', async () => {
  h = await createHarness({ allowHttpWebhooks: true })
  const acme = await h.createOrg('acme', { tier: 'pro' })
  await register(h, acme.key, 'AA') // the organization's (empty) list is cached
  const endpoint = await expectStatus(
    h.post(
      '/console/webhooks',
      { url: 'http://127.0.0.1:9/hooks', events: ['jurisdiction.*'] },
      { key: acme.key },
    ),
    201,
  )
  await register(h, acme.key, 'BB')
  expect(await deliveriesOf(h)).toHaveLength(1)
  await expectStatus(h.request('DELETE', `/console/webhooks/${endpoint.webhook_id}`, { key: acme.key }), 200)
  await register(h, acme.key, 'CC')
  expect(await deliveriesOf(h)).toHaveLength(0)
})

it('an endpoint made on one instance is in the next write of another (PostgreSQL and Redis)', async (t) => {
  h = await createHarness({ allowHttpWebhooks: true })
  if (h.dialect !== 'postgres') t.skip()
  const acme = await h.createOrg('acme', { tier: 'pro' })
  const b = await h.newInstance({ allowHttpWebhooks: true })
  await register(b, acme.key, 'AA') // B caches the organization's empty list
  const told = new Promise<void>((resolve) =>
    b.ctx.bus.subscribe((message) => {
      if (message.kind === 'webhooks' && message.orgId === 'acme') resolve()
    }),
  )
  await expectStatus(
    h.post(
      '/console/webhooks',
      { url: 'http://127.0.0.1:9/hooks', events: ['jurisdiction.*'] },
      { key: acme.key },
    ),
    201,
  )
  await told
  await register(b, acme.key, 'BB')
  expect(await deliveriesOf(h)).toHaveLength(1)
})
