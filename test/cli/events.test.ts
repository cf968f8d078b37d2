import { type AddressInfo, connect, createServer as createNetServer, type Socket } from 'node:net'
import { execa } from 'execa'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { api, type CliHome, cliHome, newOrg } from '../support/cli.js'
import { US } from '../support/governance.js'
import { RWA_BIN, type ServerProcess, startServerProcess } from '../support/server-process.js'
import { WebhookReceiver } from '../support/webhook-receiver.js'

/*
 * `rwa webhooks`, `rwa events` and `rwa listen` against a real server process, with real receivers on
 * loopback (the server runs with --allow-http-webhooks, as the sandbox does).
 */

let server: ServerProcess
let home: CliHome
let receiver: WebhookReceiver
let key: string
beforeAll(async () => {
  server = await startServerProcess({ env: { RWA_ALLOW_HTTP_WEBHOOKS: 'true' } })
  home = cliHome({ RWA_URL: server.url })
  receiver = await new WebhookReceiver().start()
  key = await newOrg(server.url, server.adminKey, 'acme')
})
afterAll(async () => {
  await server?.cleanup()
  home?.cleanup()
  await receiver?.stop()
})

const rwa = (args: string[]) => home.run(args, { env: { RWA_API_KEY: key } })
const until = async (what: string, check: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

it('creates, lists, rotates and deletes an endpoint; deliveries verify with its secret; events list and get', async () => {
  const created = await rwa([
    'webhooks',
    'create',
    '--endpoint',
    receiver.url,
    '--events',
    'jurisdiction.*',
    '--json',
  ])
  expect(created.exitCode, created.stderr).toBe(0)
  const endpoint = JSON.parse(created.stdout)
  expect(endpoint.secret).toMatch(/^whsec_/)
  const listed = await rwa(['webhooks', 'list'])
  expect(listed.stdout).toContain(endpoint.webhook_id)
  expect(listed.stdout).not.toContain('whsec_')

  await api(server.url, '/console/rwa/jurisdictions', key, { method: 'POST', body: JSON.stringify(US) })
  await until('the delivery', () => receiver.received.length === 1)
  const event = new Webhook(endpoint.secret).verify(
    receiver.received[0]!.body,
    receiver.received[0]!.headers,
  ) as any
  expect(event.type).toBe('jurisdiction.registered')

  const events = await rwa(['events', 'list', '--type', 'jurisdiction.registered'])
  expect(events.stdout).toContain(event.id)
  const got = await rwa(['events', 'get', event.id, '--json'])
  expect(JSON.parse(got.stdout)).toEqual(event)
  const deliveries = await rwa(['webhooks', 'deliveries', endpoint.webhook_id])
  expect(deliveries.stdout).toContain(event.id)

  const resent = await rwa(['events', 'resend', event.id, '--json'])
  expect(JSON.parse(resent.stdout).deliveries).toHaveLength(1)
  await until('the resent delivery', () => receiver.received.length === 2)

  const rotated = JSON.parse((await rwa(['webhooks', 'rotate-secret', endpoint.webhook_id, '--json'])).stdout)
  expect(rotated.secret).not.toBe(endpoint.secret)
  expect((await rwa(['webhooks', 'delete', endpoint.webhook_id])).exitCode).toBe(0)
  expect((await rwa(['webhooks', 'list', '--json'])).stdout).not.toContain(endpoint.webhook_id)
  const missing = await rwa(['webhooks', 'delete', endpoint.webhook_id])
  expect(missing.exitCode).not.toBe(0)
})

it('rwa listen forwards each new event signed with the secret it prints, one line per event', async () => {
  const local = await new WebhookReceiver().start()
  const child = execa(
    process.execPath,
    [RWA_BIN, 'listen', '--forward-to', local.url, '--events', 'jurisdiction.*'],
    {
      extendEnv: false,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home.dir,
        XDG_CONFIG_HOME: home.configHome,
        RWA_URL: server.url,
        RWA_API_KEY: key,
      },
      reject: false,
      buffer: false,
    },
  )
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()))
  try {
    await until('the secret', () => /whsec_\S+/.test(stderr))
    const secret = /(whsec_[A-Za-z0-9+/=]+)/.exec(stderr)![1]!
    await api(server.url, '/console/rwa/jurisdictions', key, {
      method: 'POST',
      body: JSON.stringify({ ...US, jurisdiction_id: 'SG' }),
    })
    await api(server.url, '/console/billing/keys', key, {
      method: 'POST',
      body: JSON.stringify({ name: 'not forwarded' }),
    })
    await until('the forward', () => local.received.length === 1 && stdout.includes('\n'))
    const event = new Webhook(secret).verify(local.received[0]!.body, local.received[0]!.headers) as any
    expect(event).toMatchObject({
      type: 'jurisdiction.registered',
      data: { object: { jurisdiction_id: 'SG' } },
    })
    expect(stdout.trim().split('\n')[0]).toBe(`jurisdiction.registered\t${event.id}\t200`)
  } finally {
    child.kill('SIGTERM')
    await child
    await local.stop()
  }
})

it('rwa listen reconnects with Last-Event-ID when the stream breaks, and forwards what was committed meanwhile once', async () => {
  // A TCP proxy in front of the server that can drop every connection and refuse new ones for a while.
  const sockets = new Set<Socket>()
  let down = false
  const proxy = createNetServer((client) => {
    if (down) return client.destroy()
    const upstream = connect(Number(new URL(server.url).port), '127.0.0.1')
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => {})
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  const local = await new WebhookReceiver().start()
  const child = execa(
    process.execPath,
    [RWA_BIN, 'listen', '--forward-to', local.url, '--events', 'jurisdiction.registered', '--json'],
    {
      extendEnv: false,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home.dir,
        XDG_CONFIG_HOME: home.configHome,
        RWA_URL: proxyUrl,
        RWA_API_KEY: key,
      },
      reject: false,
      buffer: false,
    },
  )
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()))
  const register = (id: string) =>
    api(server.url, '/console/rwa/jurisdictions', key, {
      method: 'POST',
      body: JSON.stringify({ ...US, jurisdiction_id: id }),
    })
  try {
    await until('the secret', () => /whsec_\S+/.test(stderr))
    const secret = /(whsec_[A-Za-z0-9+/=]+)/.exec(stderr)![1]!
    await register('R1')
    await until('the first forward', () => local.received.length === 1)
    // The stream breaks; events are committed while the CLI cannot reach the server.
    down = true
    for (const s of sockets) s.destroy()
    await until('the CLI to notice', () => stderr.includes('reconnecting'))
    await register('R2')
    await register('R3')
    down = false
    await until('the forwards after reconnecting', () => local.received.length === 3).catch((e) => {
      throw new Error(`${e.message}\nstdout: ${stdout}\nstderr: ${stderr}`)
    })
    await until('the reconnection', () => stderr.includes('Reconnected'))
    // The receiver has a forward as soon as it arrives; the CLI prints its line once the answer is back.
    await until('a line per forward', () => stdout.trim().split('\n').length === 3)
    const events = local.received.map((r) => new Webhook(secret).verify(r.body, r.headers) as any)
    expect(events.map((e) => e.data.object.jurisdiction_id)).toEqual(['R1', 'R2', 'R3'])
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines).toEqual(events.map((e) => ({ type: 'jurisdiction.registered', id: e.id, status: '200' })))
  } finally {
    child.kill('SIGTERM')
    await child
    await local.stop()
    for (const s of sockets) s.destroy()
    await new Promise((resolve) => proxy.close(resolve))
  }
})

/** A loopback URL where nothing listens: a port taken, then let go. */
async function closedPortUrl(): Promise<string> {
  const probe = createNetServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return `http://127.0.0.1:${port}/hooks`
}

it('rwa listen says why a forward failed, as the delivery to the same URL says it', async () => {
  const dead = await closedPortUrl()
  const endpoint = JSON.parse(
    (await rwa(['webhooks', 'create', '--endpoint', dead, '--events', 'jurisdiction.*', '--json'])).stdout,
  )
  const child = execa(
    process.execPath,
    [RWA_BIN, 'listen', '--forward-to', dead, '--events', 'jurisdiction.*', '--json'],
    {
      extendEnv: false,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home.dir,
        XDG_CONFIG_HOME: home.configHome,
        RWA_URL: server.url,
        RWA_API_KEY: key,
      },
      reject: false,
      buffer: false,
    },
  )
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()))
  try {
    await until('the secret', () => /whsec_\S+/.test(stderr))
    await api(server.url, '/console/rwa/jurisdictions', key, {
      method: 'POST',
      body: JSON.stringify({ ...US, jurisdiction_id: 'DE' }),
    })
    await until('the forward', () => stdout.includes('\n'))
    let attempt: any
    for (let i = 0; i < 100 && !attempt; i++) {
      const listed = JSON.parse((await rwa(['webhooks', 'deliveries', endpoint.webhook_id, '--json'])).stdout)
      attempt = listed.deliveries[0]
      if (!attempt) await new Promise((r) => setTimeout(r, 100))
    }
    expect(attempt.error).toMatch(/^could not connect: connection refused \(.*ECONNREFUSED/)
    const line = JSON.parse(stdout.trim().split('\n')[0]!)
    expect(line).toEqual({
      type: 'jurisdiction.registered',
      id: attempt.event_id,
      status: `failed (${attempt.error})`,
    })
  } finally {
    child.kill('SIGTERM')
    await child
    await rwa(['webhooks', 'delete', endpoint.webhook_id])
  }
})

it('--events names itself when refused, with the event types it takes, before any request', async () => {
  const listen = await rwa([
    'listen',
    '--forward-to',
    'http://127.0.0.1:9/hooks',
    '--events',
    'transfer.*,transfers.approved',
  ])
  expect(listen.exitCode).toBe(2)
  expect(listen.stderr).toContain('--events: "transfers.approved" is not an event type')
  expect(listen.stderr).toMatch(/hint: .*transfer\.approved, transfer\.rejected/)
  expect(listen.stderr).toMatch(/hint: .*<resource>\.\* \(e\.g\. transfer\.\*\)/)
  const create = await rwa(['webhooks', 'create', '--endpoint', receiver.url, '--events', 'bogus'])
  expect(create.exitCode).toBe(2)
  expect(create.stderr).toContain('--events: "bogus" is not an event type')
  expect(create.stderr).toMatch(/hint: .*key\.expiring/)
})
