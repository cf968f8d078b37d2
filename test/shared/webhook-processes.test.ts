import { afterEach, expect, it } from 'vitest'
import { expectStatus, US } from '../support/governance.js'
import { TestEventStream } from '../support/event-stream.js'
import { clientOf, sharedInstances } from '../support/server-process.js'
import { WebhookReceiver } from '../support/webhook-receiver.js'

/*
 * Webhooks and the event stream on two real `rwa server start` processes over one PostgreSQL database
 * and one Redis (docs/webhooks.md): every event committed on either is delivered exactly once to a healthy
 * receiver, and reaches a stream opened on the other.
 */

const deployment = sharedInstances()
let receiver: WebhookReceiver | undefined
const streams: TestEventStream[] = []
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close()
  await receiver?.stop()
  receiver = undefined
})

it('two processes deliver each event exactly once, and a stream on one carries the other’s events', {
  timeout: 120_000,
}, async () => {
  const [a, b] = await deployment.pair({ RWA_ALLOW_HTTP_WEBHOOKS: 'true' })
  const admin = clientOf(a)
  const made = await expectStatus(admin.post('/console/billing/keys', { org_id: 'acme', name: 'acme' }), 201)
  await expectStatus(admin.post('/console/billing/subscription', { org_id: 'acme', tier: 'pro' }), 200)
  const [onA, onB] = [clientOf(a, made.api_key), clientOf(b, made.api_key)]
  receiver = await new WebhookReceiver().start()
  await expectStatus(onA.post('/console/webhooks', { url: receiver.url, events: ['jurisdiction.*'] }), 201)
  const stream = await TestEventStream.open(b.url, made.api_key, { events: 'jurisdiction.registered' })
  streams.push(stream)

  const ids = Array.from({ length: 20 }, (_, i) => `J${String(i).padStart(2, '0')}`)
  await Promise.all(
    ids.map((id, i) =>
      expectStatus(
        (i % 2 ? onB : onA).post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: id }),
        201,
      ),
    ),
  )
  const end = Date.now() + 60_000
  while (receiver.received.length < ids.length || stream.events().length < ids.length) {
    if (Date.now() > end) {
      throw new Error(`timed out: ${receiver.received.length} deliveries, ${stream.events().length} streamed`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  // A little longer: a duplicate would come now.
  await new Promise((r) => setTimeout(r, 2_000))
  const delivered = receiver.received.map((r) => JSON.parse(r.body).data.object.jurisdiction_id).sort()
  expect(delivered).toEqual(ids)
  expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(ids.length)
  const streamed = stream.events().map((m) => JSON.parse(m.data).data.object.jurisdiction_id)
  expect(streamed.sort()).toEqual(ids)
})
