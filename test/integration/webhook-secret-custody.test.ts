import { existsSync, readFileSync } from 'node:fs'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { Webhook } from 'standardwebhooks'
import { afterEach, expect, it, vi } from 'vitest'
import { SEALED_PREFIX } from '../../server/platform/signing/master-key.js'
import { expectStatus, US } from '../support/governance.js'
import {
  clientOf,
  type ServerProcess,
  type ServerStorage,
  startServerProcess,
} from '../support/server-process.js'
import { WebhookReceiver } from '../support/webhook-receiver.js'

/*
 * Webhook signing secrets at rest (README.md, "Signing keys at rest"), on real server processes over the test
 * dialect: sealed under the master key, so no form of a secret is in the database's bytes; a database from
 * before (secrets in plaintext) is sealed in place at start, and deliveries still verify with the
 * secret the endpoint's owner holds.
 */

vi.setConfig({ testTimeout: 120_000 })

let cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups = []
})

const env = { RWA_ALLOW_HTTP_WEBHOOKS: 'true' }

/** The stored secrets, the raw bytes of the database (SQLite file and WAL, or the table as text), and a way to write a row. */
async function storedEndpoints(storage: ServerStorage) {
  if (storage.dialect === 'postgres') {
    const url = storage.args[storage.args.indexOf('--database-url') + 1]!
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const rows = (await client.query('select webhook_id, secret from webhook_endpoints')).rows
      const raw = (await client.query('select t::text as line from webhook_endpoints t')).rows
      return { rows, raw: Buffer.from(raw.map((r) => r.line).join('\n')) }
    } finally {
      await client.end()
    }
  }
  const path = storage.dbPath!
  const sqlite = new SQLite(path, { readonly: true })
  try {
    const rows = sqlite.prepare('select webhook_id, secret from webhook_endpoints').all() as any[]
    const raw = Buffer.concat([path, `${path}-wal`].filter(existsSync).map((f) => readFileSync(f)))
    return { rows, raw }
  } finally {
    sqlite.close()
  }
}

async function setSecret(storage: ServerStorage, webhookId: string, secret: string) {
  if (storage.dialect === 'postgres') {
    const client = new pg.Client({
      connectionString: storage.args[storage.args.indexOf('--database-url') + 1]!,
    })
    await client.connect()
    await client.query('update webhook_endpoints set secret = $1 where webhook_id = $2', [secret, webhookId])
    await client.end()
    return
  }
  const sqlite = new SQLite(storage.dbPath!)
  sqlite.prepare('update webhook_endpoints set secret = ? where webhook_id = ?').run(secret, webhookId)
  sqlite.close()
}

/** Every form a `whsec_` secret could leak in: itself, its key's bytes, base64, base64url, hex. */
function formsOf(secret: string): { bytes: Buffer[]; text: string[] } {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  expect(key.length).toBe(32)
  return {
    bytes: [key],
    text: [secret, key.toString('base64'), key.toString('base64url'), key.toString('hex')],
  }
}

function expectNoSecretIn(raw: Buffer, secrets: string[]) {
  for (const secret of secrets) {
    const { bytes, text } = formsOf(secret)
    for (const b of bytes) expect(raw.includes(b), 'raw key bytes').toBe(false)
    for (const t of text) expect(raw.includes(Buffer.from(t)), `${t.length} characters`).toBe(false)
  }
}

async function start(storage?: ServerStorage, adminKey?: string): Promise<ServerProcess> {
  const server = await startServerProcess({
    env,
    ...(storage ? { storage } : {}),
    ...(adminKey ? { adminKey } : {}),
  })
  cleanups.push(() => server.cleanup())
  return server
}

it('no byte of a webhook secret is stored; a database with plaintext secrets is sealed in place at start and its deliveries verify', async () => {
  const receiver = await new WebhookReceiver().start()
  cleanups.push(() => receiver.stop())
  const server = await start()
  const admin = clientOf(server)
  const made = await expectStatus(admin.post('/console/billing/keys', { org_id: 'acme', name: 'acme' }), 201)
  await expectStatus(admin.post('/console/billing/subscription', { org_id: 'acme', tier: 'pro' }), 200)
  const acme = clientOf(server, made.api_key)
  const first = await expectStatus(
    acme.post('/console/webhooks', { url: receiver.url, events: ['jurisdiction.*'] }),
    201,
  )
  const other = await expectStatus(
    acme.post('/console/webhooks', { url: `${receiver.url}/other`, events: ['trust.*'] }),
    201,
  )
  const rotated = await expectStatus(
    acme.post(`/console/webhooks/${other.webhook_id}/rotate-secret`, {}),
    200,
  )

  await expectStatus(acme.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: 'AA' }), 201)
  const until = async (n: number) => {
    const end = Date.now() + 20_000
    while (receiver.received.length < n) {
      if (Date.now() > end) throw new Error(`timed out waiting for delivery ${n}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  await until(1)
  expect(
    new Webhook(first.secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers),
  ).toBeTruthy()

  const secrets = [first.secret, other.secret, rotated.secret]
  let stored = await storedEndpoints(server.storage)
  for (const row of stored.rows) expect(row.secret.startsWith(SEALED_PREFIX)).toBe(true)
  expectNoSecretIn(stored.raw, secrets)
  for (const secret of secrets) expect(server.stderr()).not.toContain(secret)
  expect(await server.stop()).toBe(0)
  stored = await storedEndpoints(server.storage)
  expectNoSecretIn(stored.raw, secrets)

  // As a database from before secrets were sealed: the first endpoint's secret in plaintext.
  await setSecret(server.storage, first.webhook_id, first.secret)
  const again = await start(server.storage, server.adminKey)
  expect(again.stderr()).toContain(
    'encrypted 1 webhook signing secret(s) stored in plaintext under the master key',
  )
  stored = await storedEndpoints(again.storage)
  for (const row of stored.rows) expect(row.secret.startsWith(SEALED_PREFIX)).toBe(true)
  expect(stored.rows.find((r) => r.webhook_id === first.webhook_id)!.secret).not.toContain(first.secret)
  const acmeAgain = clientOf(again, made.api_key)
  await expectStatus(acmeAgain.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: 'BB' }), 201)
  await until(2)
  expect(
    new Webhook(first.secret).verify(receiver.received[1]!.body, receiver.received[1]!.headers),
  ).toMatchObject({
    type: 'jurisdiction.registered',
    data: { object: { jurisdiction_id: 'BB' } },
  })
})
