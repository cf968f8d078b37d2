import { afterEach, expect, it } from 'vitest'
import { expectStatus, US } from '../support/governance.js'
import {
  clientOf,
  createServerStorage,
  type ServerProcess,
  type ServerStorage,
  startServerProcess,
} from '../support/server-process.js'
import { WebhookReceiver } from '../support/webhook-receiver.js'

/*
 * The outbox survives the process (docs/webhooks.md, "Deliveries"): an event committed before `kill -9` is
 * delivered by the server started again on the same storage, whether its first attempt was in flight at the
 * kill (the claim's lease expires, and the restarted server takes it) or not yet made.
 */

let servers: ServerProcess[] = []
let storage: ServerStorage | undefined
let receiver: WebhookReceiver | undefined
afterEach(async () => {
  for (const server of servers) await server.cleanup()
  await storage?.remove()
  await receiver?.stop()
  servers = []
  storage = undefined
  receiver = undefined
})

const until = async (what: string, check: () => boolean, ms: number) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

it('kill -9 between commit and delivery loses no event: the restarted server delivers each', {
  timeout: 90_000,
}, async () => {
  storage = await createServerStorage()
  const env = { RWA_ALLOW_HTTP_WEBHOOKS: 'true' }
  const first = await startServerProcess({ storage, env })
  servers.push(first)
  const admin = clientOf(first)
  const made = await expectStatus(admin.post('/console/billing/keys', { org_id: 'acme', name: 'acme' }), 201)
  await expectStatus(admin.post('/console/billing/subscription', { org_id: 'acme', tier: 'pro' }), 200)
  const acme = clientOf(first, made.api_key)

  // The receiver holds the first request open and never answers it: the attempt is in flight at the kill.
  receiver = await new WebhookReceiver().start()
  let healthy = false
  receiver.respond = (_req, res) => {
    if (healthy) res.writeHead(200).end()
  }
  await expectStatus(acme.post('/console/webhooks', { url: receiver.url, events: ['jurisdiction.*'] }), 201)
  await expectStatus(acme.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: 'AA' }), 201)
  await until('the first attempt', () => receiver!.received.length === 1, 20_000)
  // Committed, and killed before any attempt could be made.
  await expectStatus(acme.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: 'BB' }), 201)
  first.process.kill('SIGKILL')
  await first.process
  // What the killed server sent was never answered; only what arrives from here on counts.
  const sentBefore = receiver.received.length
  const events = await (async () => {
    const second = await startServerProcess({ storage, env, adminKey: first.adminKey })
    servers.push(second)
    healthy = true
    const client = clientOf(second, made.api_key)
    return (
      await expectStatus(client.get('/console/events', { query: { type: 'jurisdiction.registered' } }), 200)
    ).events
  })()
  expect(events.map((e: any) => e.data.object.jurisdiction_id).sort()).toEqual(['AA', 'BB'])
  const answered = () => new Set(receiver!.received.slice(sentBefore).map((r) => r.headers['webhook-id']))
  // The in-flight claim is taken again once its lease (15 s) expires.
  await until(
    'both events delivered after the restart',
    () => events.every((e: any) => answered().has(e.id)),
    45_000,
  )
})
