import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import { EVENT_TYPES } from '../../../src/contract/events.js'
import { DAY_MS } from '../../../server/platform/clock.js'
import { eventSignal } from '../../../server/pipeline/events/outbox.js'
import { webhookWorker } from '../../../server/areas/webhooks/worker.js'
import { ManualClock } from '../../support/clock.js'
import { exerciseEveryChange } from '../../support/events.js'
import { expectStatus, SG, US } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { WebhookReceiver } from '../../support/webhook-receiver.js'

let h: Harness | undefined
let receiver: WebhookReceiver | undefined
afterEach(async () => {
  await h?.close()
  await receiver?.stop()
  h = undefined
  receiver = undefined
})

const SCHEDULED = ['attestation.expiring', 'key.expiring', 'trial.ending', 'limit.reached']

async function setUp(options: { clock?: ManualClock } = {}) {
  h = await createHarness({
    allowHttpWebhooks: true,
    allowHttpIssuers: true,
    ...(options.clock ? { clock: options.clock } : {}),
  })
  receiver = await new WebhookReceiver().start()
  const acme = await h.createOrg('acme', { tier: 'pro' })
  const worker = webhookWorker(h.ctx, { poll: false })
  return { h, receiver, acme, worker }
}

const createEndpoint = (harness: Harness, key: string, url: string, events: string[] = ['*']) =>
  expectStatus(harness.post('/console/webhooks', { url, events, description: 'test' }, { key }), 201)

describe('webhook endpoints', () => {
  it('are made by an owner with a secret shown once, listed and read by every role, rotated and deleted', async () => {
    const { h, receiver, acme } = await setUp()
    const made = await createEndpoint(h, acme.key, receiver.url, ['transfer.*', 'attestation.expiring'])
    expect(made).toMatchObject({
      webhook_id: expect.stringMatching(/^wh_/),
      url: receiver.url,
      events: ['transfer.*', 'attestation.expiring'],
      description: 'test',
      status: 'enabled',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    })
    const auditor = await expectStatus(
      h.post('/console/billing/keys', { name: 'aud', roles: ['auditor'] }, { key: acme.key }),
      201,
    )
    const { secret, ...record } = made
    expect(
      await expectStatus(h.get(`/console/webhooks/${made.webhook_id}`, { key: auditor.api_key }), 200),
    ).toEqual(record)
    const list = await expectStatus(h.get('/console/webhooks', { key: auditor.api_key }), 200)
    expect(list).toEqual({ webhooks: [record], total: 1, next_cursor: null })
    const refused = await h.post(
      '/console/webhooks',
      { url: receiver.url, events: ['*'] },
      { key: auditor.api_key },
    )
    expect(refused.status).toBe(403)
    expect(refused.body.reason).toBe('role_required')

    const rotated = await expectStatus(
      h.post(`/console/webhooks/${made.webhook_id}/rotate-secret`, {}, { key: acme.key }),
      200,
    )
    expect(rotated.secret).toMatch(/^whsec_/)
    expect(rotated.secret).not.toBe(secret)

    // The audit log names each change, never a secret.
    const audit = await expectStatus(
      h.get('/console/audit', { key: acme.key, query: { target_id: made.webhook_id } }),
      200,
    )
    expect(audit.events.map((e: any) => e.action)).toEqual(['webhook.secret_rotated', 'webhook.created'])
    expect(JSON.stringify(audit)).not.toContain('whsec_')

    await expectStatus(h.request('DELETE', `/console/webhooks/${made.webhook_id}`, { key: acme.key }), 200)
    const gone = await h.get(`/console/webhooks/${made.webhook_id}`, { key: acme.key })
    expect(gone.status).toBe(404)
    expect(gone.body.reason).toBe('webhook_not_found')
    const lion = await h.createOrg('lion', { tier: 'pro' })
    const other = await createEndpoint(h, acme.key, receiver.url)
    expect((await h.get(`/console/webhooks/${other.webhook_id}`, { key: lion.key })).status).toBe(404)
    expect(
      (await h.request('DELETE', `/console/webhooks/${other.webhook_id}`, { key: lion.key })).status,
    ).toBe(404)
  })

  it('refuses private, link-local, unique-local, metadata and (without the flag) loopback destinations, and plain http elsewhere', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const refusals = [
      'https://10.0.0.1/hooks',
      'https://172.16.5.4/hooks',
      'https://192.168.1.1/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:169.254.169.254]/',
      'https://[::ffff:a00:1]/',
      'https://[fd00:ec2::254]/',
      'https://[fe80::1]/',
      'https://[fc00::1]/',
      'https://127.0.0.1/hooks',
      'https://[::1]/hooks',
      'https://localhost/hooks',
      'http://localhost:3000/hooks',
      'https://0.0.0.0/',
      'https://100.64.0.1/',
      'https://unresolvable.invalid/',
    ]
    for (const url of refusals) {
      const res = await h.post('/console/webhooks', { url, events: ['*'] }, { key: acme.key })
      expect(res.status, url).toBe(422)
      expect(res.body.reason, url).toBe('webhook_url_refused')
      expect(
        res.body.errors.map((e: any) => e.path),
        url,
      ).toEqual(['url'])
    }
    // Every cloud's metadata service, however written: Azure's wireserver is a public address.
    for (const url of [
      'https://168.63.129.16/machine?comp=goalstate',
      'https://[64:ff9b::a83f:8110]/',
      'https://[::ffff:0:a83f:8110]/',
      'https://100.100.100.200/latest/meta-data',
      'https://[2002:6464:64c8::1]/',
      'https://192.0.0.192/opc/v2/instance',
      'https://[64:ff9b::c000:c0]/',
    ]) {
      const res = await h.post('/console/webhooks', { url, events: ['*'] }, { key: acme.key })
      expect([res.status, res.body.reason, res.body.errors?.[0]?.path], url).toEqual([
        422,
        'webhook_url_refused',
        'url',
      ])
      expect(res.body.errors[0].message, url).toMatch(/cloud metadata address/)
    }
    const scheme = await h.post(
      '/console/webhooks',
      { url: 'ftp://example.com/', events: ['*'] },
      { key: acme.key },
    )
    expect(scheme.status).toBe(400)
    const badType = await h.post(
      '/console/webhooks',
      { url: 'https://1.1.1.1/', events: ['transfer.exploded'] },
      { key: acme.key },
    )
    expect(badType.status).toBe(400)
    // A public address over https is fine (nothing is sent at creation).
    await createEndpoint(h, acme.key, 'https://1.1.1.1/hooks')

    // With the flag, loopback http is allowed, public http still is not.
    const dev = await h.newInstance({ allowHttpWebhooks: true })
    await expectStatus(
      dev.post('/console/webhooks', { url: 'http://localhost:3000/hooks', events: ['*'] }, { key: acme.key }),
      201,
    )
    const publicHttp = await dev.post(
      '/console/webhooks',
      { url: 'http://1.1.1.1/hooks', events: ['*'] },
      { key: acme.key },
    )
    expect(publicHttp.status).toBe(422)
    const privateStill = await dev.post(
      '/console/webhooks',
      { url: 'http://10.0.0.1/hooks', events: ['*'] },
      { key: acme.key },
    )
    expect(privateStill.status).toBe(422)
  })
})

describe("an endpoint URL's secrets", () => {
  it('userinfo is refused (400 naming url)', async () => {
    const { h, acme } = await setUp()
    for (const url of [
      'https://user:pass@1.1.1.1/hooks',
      'https://user@1.1.1.1/hooks',
      'https://:pass@1.1.1.1/',
    ]) {
      const res = await h.post('/console/webhooks', { url, events: ['*'] }, { key: acme.key })
      expect(res.status, url).toBe(400)
      expect(
        res.body.errors.map((e: any) => e.path),
        url,
      ).toEqual(['url'])
      expect(res.body.errors[0].message, url).toMatch(/user name or password/)
    }
  })

  it('query values are shown to owner keys only, and never enter the audit log or events', async () => {
    const { h, receiver, acme } = await setUp()
    const url = `${receiver.url}?token=s3cr3t-t0ken&v=2&flag`
    const made = await createEndpoint(h, acme.key, url)
    expect(made.url).toBe(url)
    const hidden = `${receiver.url}?token=***&v=***&***`
    const owner = await expectStatus(h.get(`/console/webhooks/${made.webhook_id}`, { key: acme.key }), 200)
    expect(owner.url).toBe(url)
    for (const role of ['transfers', 'auditor', 'issuer', 'agent']) {
      const other = await expectStatus(
        h.post('/console/billing/keys', { name: role, roles: [role] }, { key: acme.key }),
        201,
      )
      const got = await expectStatus(
        h.get(`/console/webhooks/${made.webhook_id}`, { key: other.api_key }),
        200,
      )
      expect(got.url, role).toBe(hidden)
      const listed = await expectStatus(h.get('/console/webhooks', { key: other.api_key }), 200)
      expect(
        listed.webhooks.map((w: any) => w.url),
        role,
      ).toEqual([hidden])
    }
    const listed = await expectStatus(h.get('/console/webhooks', { key: acme.key }), 200)
    expect(listed.webhooks.map((w: any) => w.url)).toEqual([url])

    // The audit log, signed and kept for good, holds the URL with its query values hidden, for everyone.
    const audit = await expectStatus(
      h.get('/console/audit', { key: acme.key, query: { target_id: made.webhook_id } }),
      200,
    )
    expect(audit.events[0].changes.after.url).toBe(hidden)
    const stored = await (h.ctx.db as any).selectFrom('audit_events').selectAll().execute()
    expect(JSON.stringify(stored)).not.toContain('s3cr3t')
    const events = await expectStatus(h.get('/console/events', { key: acme.key }), 200)
    expect(JSON.stringify(events)).not.toContain('s3cr3t')
  })
})

it('a secret in the path (Slack style) is shown to owner keys only, and never enters the audit log or events', async () => {
  const { h, receiver, acme, worker } = await setUp()
  // receiver.url is http://127.0.0.1:PORT/hooks: the secret follows, as Slack's do.
  const url = `${receiver.url}/T000/B000/XXXXpathsecret?token=s3cr3t-t0ken`
  const hidden = `${receiver.url}/***?token=***`
  const made = await createEndpoint(h, acme.key, url)
  expect(made.url).toBe(url)
  expect(
    (await expectStatus(h.get(`/console/webhooks/${made.webhook_id}`, { key: acme.key }), 200)).url,
  ).toBe(url)
  for (const role of ['transfers', 'auditor', 'issuer', 'agent']) {
    const other = await expectStatus(
      h.post('/console/billing/keys', { name: role, roles: [role] }, { key: acme.key }),
      201,
    )
    const got = await expectStatus(h.get(`/console/webhooks/${made.webhook_id}`, { key: other.api_key }), 200)
    expect(got.url, role).toBe(hidden)
    const listed = await expectStatus(h.get('/console/webhooks', { key: other.api_key }), 200)
    expect(
      listed.webhooks.map((w: any) => w.url),
      role,
    ).toEqual([hidden])
  }
  // Rotating the secret answers the endpoint to its owner, whole.
  const rotated = await expectStatus(
    h.post(`/console/webhooks/${made.webhook_id}/rotate-secret`, {}, { key: acme.key }),
    200,
  )
  expect(rotated.url).toBe(url)

  // The audit log and the events hold it hidden, for everyone.
  const audit = await expectStatus(
    h.get('/console/audit', { key: acme.key, query: { target_id: made.webhook_id } }),
    200,
  )
  expect(audit.events.find((e: any) => e.action === 'webhook.created').changes.after.url).toBe(hidden)
  const stored = await (h.ctx.db as any).selectFrom('audit_events').selectAll().execute()
  expect(JSON.stringify(stored)).not.toContain('pathsecret')
  const storedEvents = await (h.ctx.db as any).selectFrom('events').selectAll().execute()
  expect(JSON.stringify(storedEvents)).not.toContain('pathsecret')
  expect(JSON.stringify(await expectStatus(h.get('/console/events', { key: acme.key }), 200))).not.toContain(
    'pathsecret',
  )

  // Deliveries still go to the whole URL.
  await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: acme.key }), 201)
  await worker.runOnce()
  expect(receiver.received.map((r) => r.path)).toContain('/hooks/T000/B000/XXXXpathsecret?token=s3cr3t-t0ken')
})

describe('the endpoints of an organization', () => {
  it('are at most 16 enabled: the 17th is 409 webhook_endpoint_limit, however many are asked for at once on two instances', async () => {
    const { h, receiver, acme } = await setUp()
    const other = await h.newInstance({ allowHttpWebhooks: true })
    const asked = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 ? other : h).post(
          '/console/webhooks',
          { url: receiver.url, events: ['*'] },
          { key: acme.key },
        ),
      ),
    )
    expect(asked.filter((r) => r.status === 201)).toHaveLength(16)
    const refused = asked.filter((r) => r.status !== 201)
    expect(refused).toHaveLength(8)
    for (const r of refused) {
      expect(r.status).toBe(409)
      expect(r.body).toMatchObject({ reason: 'webhook_endpoint_limit', context: { max_enabled: 16 } })
    }
    const listed = await expectStatus(
      h.get('/console/webhooks', { key: acme.key, query: { limit: 100 } }),
      200,
    )
    expect(listed.total).toBe(16)
    // Another organization has its own 16.
    const lion = await h.createOrg('lion', { tier: 'pro' })
    await createEndpoint(h, lion.key, receiver.url)
  })

  it('stay at most 16 enabled when a retry would enable a disabled one; deleting one makes room', async () => {
    const { h, receiver, acme, worker } = await setUp()
    const first = await createEndpoint(h, acme.key, receiver.url, ['jurisdiction.*'])
    receiver.respond = (_req, res) => res.writeHead(500).end()
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: acme.key }), 201)
    await worker.runOnce()
    // Disabled, as 3 days of failures leave it.
    await (h.ctx.db as any)
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled' })
      .where('webhook_id', '=', first.webhook_id)
      .execute()
    const rest = []
    for (let i = 0; i < 16; i++) rest.push(await createEndpoint(h, acme.key, receiver.url, ['trust.*']))
    const [attempt] = (
      await expectStatus(h.get(`/console/webhooks/${first.webhook_id}/deliveries`, { key: acme.key }), 200)
    ).deliveries
    const retry = () =>
      h.post(
        `/console/webhooks/${first.webhook_id}/deliveries/${attempt.delivery_id}/retry`,
        {},
        { key: acme.key },
      )
    const refused = await retry()
    expect(refused.status).toBe(409)
    expect(refused.body.reason).toBe('webhook_endpoint_limit')
    expect(
      (await expectStatus(h.get(`/console/webhooks/${first.webhook_id}`, { key: acme.key }), 200)).status,
    ).toBe('disabled')
    await expectStatus(h.request('DELETE', `/console/webhooks/${rest[0].webhook_id}`, { key: acme.key }), 200)
    await expectStatus(retry(), 200)
    expect(
      (await expectStatus(h.get(`/console/webhooks/${first.webhook_id}`, { key: acme.key }), 200)).status,
    ).toBe('enabled')
  })
})

describe('an IPv6 destination that carries an IPv4 address', () => {
  it('is refused when that address is: the SIIT, NAT64, 6to4 and Teredo forms of 169.254.169.254', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    for (const host of [
      '[::ffff:0:169.254.169.254]',
      '[64:ff9b::169.254.169.254]',
      '[64:ff9b:1:a9fe:a9:fe00::]',
      '[2002:a9fe:a9fe::1]',
      '[2001:0:4136:e378::5601:5601]',
    ]) {
      const res = await h.post(
        '/console/webhooks',
        { url: `https://${host}/hooks`, events: ['*'] },
        { key: acme.key },
      )
      expect(res.status, host).toBe(422)
      expect(res.body.reason, host).toBe('webhook_url_refused')
      expect(res.body.context.reason, host).toMatch(
        /metadata address \(it carries the IPv4 address 169\.254\.169\.254\)/,
      )
    }
    // The same forms of a public address are fine.
    await createEndpoint(h, acme.key, 'https://[64:ff9b::808:808]/hooks')
    await createEndpoint(h, acme.key, 'https://[2001:0:4136:e378::f7f7:f7f7]/hooks')
  })
})

describe('deliveries', () => {
  it('carry every event type, signed so that the standardwebhooks library verifies each', async () => {
    // The library checks the timestamp against the real time: the manual clock starts at it.
    const { h, receiver, acme, worker } = await setUp({ clock: new ManualClock(Date.now()) })
    const endpoint = await createEndpoint(h, acme.key, receiver.url)
    const before = await expectStatus(h.get('/console/events', { key: acme.key }), 200)
    await exerciseEveryChange(h, 'acme', acme.key)
    expect(await worker.runOnce()).toBeGreaterThan(20)

    const verifier = new Webhook(endpoint.secret)
    const types = new Set<string>()
    for (const got of receiver.received) {
      const event = verifier.verify(got.body, got.headers) as any
      expect(got.headers['webhook-id']).toBe(event.id)
      expect(got.headers['content-type']).toBe('application/json')
      types.add(event.type)
    }
    expect([...types].sort()).toEqual(EVENT_TYPES.filter((t) => !SCHEDULED.includes(t)).sort())
    // Each event once, as GET /console/events answers it.
    const listed = await expectStatus(h.get('/console/events', { key: acme.key, query: { limit: 500 } }), 200)
    const sent = receiver.events()
    expect(new Set(sent.map((e) => e.id)).size).toBe(sent.length)
    const earlier = new Set(before.events.map((e: any) => e.id))
    expect([...sent].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      listed.events.filter((e: any) => !earlier.has(e.id)).sort((a: any, b: any) => a.id.localeCompare(b.id)),
    )
    // A tampered body or another secret does not verify.
    const first = receiver.received[0]!
    expect(() => verifier.verify(`${first.body} `, first.headers)).toThrow()
    const rotated = await expectStatus(
      h.post(`/console/webhooks/${endpoint.webhook_id}/rotate-secret`, {}, { key: acme.key }),
      200,
    )
    expect(() => new Webhook(rotated.secret).verify(first.body, first.headers)).toThrow()
  })

  it('reach only the types an endpoint subscribes to', async () => {
    const { h, receiver, acme, worker } = await setUp()
    await createEndpoint(h, acme.key, receiver.url, ['jurisdiction.registered'])
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: acme.key }), 201)
    await expectStatus(h.post('/console/billing/keys', { name: 'x' }, { key: acme.key }), 201)
    await worker.runOnce()
    expect(receiver.events().map((e) => e.type)).toEqual(['jurisdiction.registered'])
  })

  it("wake this process's worker after a commit only when the write queued one; the event streams hear of every event", async () => {
    const { h, acme } = await setUp()
    const wakes: number[] = []
    const streams: string[][] = []
    eventSignal(h.ctx).on('committed', () => wakes.push(1))
    eventSignal(h.ctx).on('events', (orgIds: string[]) => streams.push(orgIds))
    // No endpoint: the event is written and announced to streams, but the worker has nothing to claim.
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: acme.key }), 201)
    expect(wakes).toHaveLength(0)
    expect(streams).toEqual([[acme.orgId]])
    // An endpoint not subscribed to the type: no delivery queued, no wake.
    await createEndpoint(h, acme.key, receiver!.url, ['transfer.*'])
    wakes.length = 0
    await expectStatus(h.post('/console/rwa/jurisdictions', SG, { key: acme.key }), 201)
    expect(wakes).toHaveLength(0)
    // Subscribed: the delivery is queued and the worker woken once the write has committed.
    await createEndpoint(h, acme.key, receiver!.url, ['trust.*'])
    wakes.length = 0
    await expectStatus(
      h.post(
        '/console/rwa/jurisdictions/trust',
        { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
        { key: acme.key },
      ),
      201,
    )
    expect(wakes).toHaveLength(1)
  })

  it('to a receiver failing then recovering are retried with backoff until every event arrives, each attempt listed', async () => {
    const { h, receiver, acme, worker } = await setUp()
    const endpoint = await createEndpoint(h, acme.key, receiver.url, ['jurisdiction.*'])
    let healthy = false
    receiver.respond = (_req, res) => res.writeHead(healthy ? 204 : 503).end()
    for (const id of ['AA', 'BB', 'CC']) {
      await expectStatus(
        h.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: id }, { key: acme.key }),
        201,
      )
    }
    expect(await worker.runOnce()).toBe(3)
    // Not due again before 5 s.
    h.clock.advance(4_000)
    expect(await worker.runOnce()).toBe(0)
    h.clock.advance(1_000)
    expect(await worker.runOnce()).toBe(3)
    h.clock.advance(29_000)
    expect(await worker.runOnce()).toBe(0)
    healthy = true
    h.clock.advance(1_000)
    expect(await worker.runOnce()).toBe(3)
    h.clock.advance(DAY_MS)
    expect(await worker.runOnce()).toBe(0)

    const delivered = new Set(
      receiver
        .events()
        .filter((_, i) => i >= 6)
        .map((e) => e.data.object.jurisdiction_id),
    )
    expect(delivered).toEqual(new Set(['AA', 'BB', 'CC']))
    const attempts = await expectStatus(
      h.get(`/console/webhooks/${endpoint.webhook_id}/deliveries`, { key: acme.key }),
      200,
    )
    expect(attempts.total).toBe(9)
    const ofOne = attempts.deliveries.filter((a: any) => a.delivery_id === attempts.deliveries[0].delivery_id)
    expect(
      ofOne.map((a: any) => [a.attempt, a.status_code, a.error === null, a.next_attempt_at !== null]),
    ).toEqual([
      [3, 204, true, false],
      [2, 503, false, true],
      [1, 503, false, true],
    ])
    expect(Date.parse(ofOne[2].next_attempt_at) - Date.parse(ofOne[2].at)).toBe(5_000)
    expect(Date.parse(ofOne[1].next_attempt_at) - Date.parse(ofOne[1].at)).toBe(30_000)
  })

  it('are given up after 3 days, the endpoint disabled; a retry enables it and delivers at once', async () => {
    const { h, receiver, acme, worker } = await setUp()
    const endpoint = await createEndpoint(h, acme.key, receiver.url, ['jurisdiction.*'])
    receiver.respond = (_req, res) => res.writeHead(500).end()
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: acme.key }), 201)
    // The clock moves to each attempt's next_attempt_at, as time would.
    let attempts = 0
    for (let i = 0; i < 40; i++) {
      attempts += await worker.runOnce()
      const [latest] = (
        await expectStatus(
          h.get(`/console/webhooks/${endpoint.webhook_id}/deliveries`, { key: acme.key }),
          200,
        )
      ).deliveries
      if (latest.next_attempt_at === null) break
      h.clock.set(latest.next_attempt_at)
    }
    // 5 s, 30 s, 2 min, 10 min, 1 h, 6 h, then every 12 h within 3 days: 12 attempts.
    expect(attempts).toBe(12)
    const disabled = await expectStatus(
      h.get(`/console/webhooks/${endpoint.webhook_id}`, { key: acme.key }),
      200,
    )
    expect(disabled.status).toBe('disabled')
    const list = await expectStatus(
      h.get(`/console/webhooks/${endpoint.webhook_id}/deliveries`, { key: acme.key }),
      200,
    )
    expect(list.deliveries[0]).toMatchObject({ attempt: 12, status_code: 500, next_attempt_at: null })
    // A disabled endpoint gets no new deliveries.
    await expectStatus(
      h.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: 'ZZ' }, { key: acme.key }),
      201,
    )
    h.clock.advance(DAY_MS)
    expect(await worker.runOnce()).toBe(0)

    receiver.respond = (_req, res) => res.writeHead(200).end()
    const retried = await expectStatus(
      h.post(
        `/console/webhooks/${endpoint.webhook_id}/deliveries/${list.deliveries[0].delivery_id}/retry`,
        {},
        { key: acme.key },
      ),
      200,
    )
    expect(retried).toMatchObject({ status: 'scheduled', delivery_id: list.deliveries[0].delivery_id })
    expect(await worker.runOnce()).toBe(1)
    expect(
      (await expectStatus(h.get(`/console/webhooks/${endpoint.webhook_id}`, { key: acme.key }), 200)).status,
    ).toBe('enabled')
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(list.deliveries[0].event_id)
    const unknown = await h.post(
      `/console/webhooks/${endpoint.webhook_id}/deliveries/dlv_01M8420DESXZV8X28W2ZQWTKC1/retry`,
      {},
      { key: acme.key },
    )
    expect(unknown.body.reason).toBe('delivery_not_found')

    // Resend: the event again, to every subscribed endpoint, with the same webhook-id.
    const resent = await expectStatus(
      h.post(`/console/events/${list.deliveries[0].event_id}/resend`, {}, { key: acme.key }),
      200,
    )
    expect(resent.deliveries).toHaveLength(1)
    expect(await worker.runOnce()).toBe(1)
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(list.deliveries[0].event_id)
  })

  it('never follow a redirect, and check the address again at each delivery', async () => {
    const { h, receiver, acme, worker } = await setUp()
    const endpoint = await createEndpoint(h, acme.key, receiver.url, ['jurisdiction.*'])
    receiver.respond = (_req, res) =>
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end()
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: acme.key }), 201)
    expect(await worker.runOnce()).toBe(1)
    expect(receiver.received).toHaveLength(1)
    const [first] = (
      await expectStatus(h.get(`/console/webhooks/${endpoint.webhook_id}/deliveries`, { key: acme.key }), 200)
    ).deliveries
    expect(first).toMatchObject({
      status_code: 302,
      error: expect.stringContaining('redirects are not followed'),
    })

    // An instance without --allow-http-webhooks refuses the loopback endpoint when it delivers.
    receiver.respond = (_req, res) => res.writeHead(200).end()
    const strict = await h.newInstance({ allowHttpWebhooks: false })
    h.clock.advance(5_000)
    expect(await webhookWorker(strict.ctx, { poll: false }).runOnce()).toBe(1)
    expect(receiver.received).toHaveLength(1)
    const [second] = (
      await expectStatus(h.get(`/console/webhooks/${endpoint.webhook_id}/deliveries`, { key: acme.key }), 200)
    ).deliveries
    expect(second).toMatchObject({ attempt: 2, status_code: null, error: expect.stringContaining('refused') })
  })
})

describe('an endpoint whose stored secret does not open', () => {
  it('gets a failed attempt recorded (retried later), not a delivery claimed again every lease', async () => {
    const { h, receiver, acme, worker } = await setUp()
    const endpoint = await createEndpoint(h, acme.key, receiver.url, ['jurisdiction.*'])
    // As an instance of an older version would store it: in plaintext.
    await (h.ctx.db as any)
      .updateTable('webhook_endpoints')
      .set({ secret: endpoint.secret })
      .where('webhook_id', '=', endpoint.webhook_id)
      .execute()
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: acme.key }), 201)
    expect(await worker.runOnce()).toBe(1)
    expect(receiver.received).toHaveLength(0)
    const [attempt] = (
      await expectStatus(h.get(`/console/webhooks/${endpoint.webhook_id}/deliveries`, { key: acme.key }), 200)
    ).deliveries
    expect(attempt).toMatchObject({
      attempt: 1,
      status_code: null,
      error: expect.stringContaining('cannot be opened'),
      next_attempt_at: expect.any(String),
    })
    expect(await worker.runOnce()).toBe(0)
  })
})

describe('two instances', () => {
  it("deliver each event exactly once to a healthy receiver, with at most 4 of the organization's in flight", async () => {
    const { h, receiver, acme, worker } = await setUp()
    await createEndpoint(h, acme.key, receiver.url, ['jurisdiction.*'])
    // A receiver slow enough that the two instances' attempts overlap.
    let open = 0
    let mostOpen = 0
    receiver.respond = (_req, res) => {
      mostOpen = Math.max(mostOpen, ++open)
      setTimeout(() => {
        open--
        res.writeHead(200).end()
      }, 20)
    }
    const ids = Array.from({ length: 40 }, (_, i) => `J${String(i).padStart(2, '0')}`)
    for (const id of ids) {
      await expectStatus(
        h.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: id }, { key: acme.key }),
        201,
      )
    }
    const other = await h.newInstance({ allowHttpWebhooks: true })
    const second = webhookWorker(other.ctx, { poll: false })
    const [a, b] = await Promise.all([worker.runOnce(), second.runOnce()])
    expect(a + b).toBe(40)
    const perEvent = new Map<string, number>()
    for (const got of receiver.received) {
      perEvent.set(got.headers['webhook-id']!, (perEvent.get(got.headers['webhook-id']!) ?? 0) + 1)
    }
    expect(perEvent.size).toBe(40)
    expect([...perEvent.values()].every((n) => n === 1)).toBe(true)
    expect(new Set(receiver.events().map((e) => e.data.object.jurisdiction_id))).toEqual(new Set(ids))
    // Claimed by either, the organization's attempts together never passed 4 at once.
    expect(mostOpen).toBeLessThanOrEqual(4)
  })
})
