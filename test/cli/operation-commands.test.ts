import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliAs, newOrg, newOrgCli, tokenThroughCli, useServerAndHome } from '../support/cli.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'

/*
 * The commands of the operations the CLI lacked (test/cli/command-coverage.test.ts keeps every
 * operation with one): `rwa attestations revoke`, `rwa log inclusion`, `rwa webhooks get`, against a
 * real server.
 */

const shared = useServerAndHome()

const proxies: Server[] = []
afterAll(async () => {
  for (const proxy of proxies) await new Promise((resolve) => proxy.close(resolve))
})

/**
 * A reverse proxy in front of the server that passes everything on but the JSON answers of `path`,
 * which it passes through `rewrite` first: a server (or a machine between) answering what it likes.
 */
async function rewritingProxy(path: string, rewrite: (body: any) => any): Promise<string> {
  const upstream = new URL(shared.server.url)
  const proxy = createServer((incoming, answer) => {
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          let text = Buffer.concat(chunks)
          if (incoming.url?.startsWith(path) && response.statusCode === 200)
            text = Buffer.from(JSON.stringify(rewrite(JSON.parse(text.toString('utf8')))))
          const headers = { ...response.headers, 'content-length': String(text.length) }
          delete headers['transfer-encoding']
          answer.writeHead(response.statusCode ?? 502, headers)
          answer.end(text)
        })
      },
    )
    forward.on('error', (error) => answer.writeHead(502).end(String(error)))
    incoming.pipe(forward)
  })
  proxies.push(proxy)
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
}

describe('rwa attestations revoke', () => {
  it('revokes for good with its reason, asks for --yes first, and a transfer that relied on it is rejected after', async () => {
    const rwa = await newOrgCli(shared, 'att-revoke')
    const bob = 'did:web:lion:bob'
    const { tokenId } = await tokenThroughCli(rwa, {
      owner: 'did:web:acme:alice',
      holders: [bob],
      titleDeed: 'AR-1',
    })
    const transfer = [
      'transfers',
      'request',
      '--token-id',
      tokenId,
      '--from',
      'US',
      '--to',
      'US',
      '--recipient-did',
      bob,
      '--amount',
      '1',
    ]
    expect((await rwa.json(transfer)).status).toBe('approved')
    const [attestation] = (await rwa.json(['attestations', 'list', '--subject-did', bob])).attestations

    const unconfirmed = await rwa.run(['attestations', 'revoke', attestation.attestation_id])
    expect(unconfirmed.exitCode).toBe(2)
    expect(unconfirmed.stderr).toMatch(/refusing to revoke attestation att_\w+ without --yes/)

    const revoked = await rwa.json([
      'attestations',
      'revoke',
      attestation.attestation_id,
      '--reason',
      'found to be false',
      '--yes',
    ])
    expect(revoked).toMatchObject({
      attestation_id: attestation.attestation_id,
      status: 'revoked',
      revocation_reason: 'found to be false',
    })
    const shown = await rwa.run(['attestations', 'get', attestation.attestation_id])
    expect(shown.stdout).toMatch(/^status\trevoked$/m)
    expect(shown.stdout).toMatch(/^revocation_reason\tfound to be false$/m)

    const again = await rwa.run(['attestations', 'revoke', attestation.attestation_id, '--yes'])
    expect(again.exitCode).toBe(5)
    const rejected = await rwa.run([...transfer, '--json'])
    expect(rejected.exitCode).toBe(6)
    expect(JSON.parse(rejected.stdout).status).toBe('rejected')
  })
})

describe('rwa log inclusion', () => {
  it("proves a transfer's log_index against the latest checkpoint or a given size, and a proof that does not lead to its root is exit 8", async () => {
    const rwa = await newOrgCli(shared, 'log-inclusion')
    const bob = 'did:web:lion:bob'
    const { tokenId } = await tokenThroughCli(rwa, {
      owner: 'did:web:acme:alice',
      holders: [bob],
      titleDeed: 'LI-1',
    })
    const transfer = await rwa.json([
      'transfers',
      'request',
      '--token-id',
      tokenId,
      '--from',
      'US',
      '--to',
      'US',
      '--recipient-did',
      bob,
      '--amount',
      '1',
    ])
    expect(transfer.log_index).toBeGreaterThan(0)
    const index = String(transfer.log_index)

    const latest = await rwa.run(['log', 'inclusion', '--index', index])
    expect(latest.exitCode, latest.stderr).toBe(0)
    expect(latest.stdout).toMatch(new RegExp(`^index\\t${index}$`, 'm'))
    expect(latest.stderr).toMatch(/the latest checkpoint's/)
    const proof = await rwa.json([
      'log',
      'inclusion',
      '--index',
      index,
      '--tree-size',
      String(transfer.log_index + 1),
    ])
    expect(proof).toMatchObject({ index: transfer.log_index, tree_size: transfer.log_index + 1 })
    expect(proof.proof.length).toBeGreaterThan(0)

    const bad = await rwa.run(['log', 'inclusion', '--index', index, '--tree-size', index])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/index/)

    // A proof with one hash changed leads elsewhere.
    const tampered = await rewritingProxy('/console/audit/log/inclusion', (answer) => ({
      ...answer,
      proof: [answer.root_hash, ...answer.proof.slice(1)],
    }))
    const env = { RWA_URL: tampered, RWA_API_KEY: rwa.key }
    const refused = await shared.home.run(['log', 'inclusion', '--index', index], { env })
    expect(refused.exitCode, refused.stderr).toBe(8)
    expect(refused.stderr).toMatch(
      /inclusion proof of log position \d+ leads to root .+, not to the root it names/,
    )
  })
})

describe('rwa webhooks get', () => {
  // A server that takes http endpoints on loopback (as the sandbox does): no event is sent to it here.
  let server: ServerProcess
  beforeAll(async () => {
    server = await startServerProcess({ env: { RWA_ALLOW_HTTP_WEBHOOKS: 'true' } })
  })
  afterAll(() => server.cleanup())

  it('shows one endpoint, and names an unknown one not found', async () => {
    const key = await newOrg(server.url, server.adminKey, 'webhook-get')
    const rwa = cliAs({ server, home: shared.home }, key)
    const created = await rwa.json([
      'webhooks',
      'create',
      '--endpoint',
      'http://127.0.0.1:9/rwa',
      '--events',
      'transfer.*',
    ])
    const shown = await rwa.run(['webhooks', 'get', created.webhook_id])
    expect(shown.exitCode, shown.stderr).toBe(0)
    expect(shown.stdout).toMatch(new RegExp(`^webhook_id\\t${created.webhook_id}$`, 'm'))
    expect(shown.stdout).toMatch(/^url\thttp:\/\/127\.0\.0\.1:9\/rwa$/m)
    expect(shown.stdout).toMatch(/^events\ttransfer\.\*$/m)
    const json = await rwa.json(['webhooks', 'get', created.webhook_id])
    expect(json).toMatchObject({ webhook_id: created.webhook_id, status: 'enabled' })
    expect(json).not.toHaveProperty('secret')
    const missing = await rwa.run(['webhooks', 'get', 'wh_01M8420DESXZV8X28W2ZQWTKA9'])
    expect(missing.exitCode).toBe(4)
  })
})
