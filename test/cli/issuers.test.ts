import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { cliAs, cliHome, newOrg } from '../support/cli.js'
import { startServerProcess } from '../support/server-process.js'
import { TestIssuer } from '../support/test-issuer.js'

/*
 * `rwa issuers` end to end: a real server started with RWA_ALLOW_HTTP_ISSUERS=1 and a did:web provider
 * on loopback (test/support/test-issuer.ts), registered, listed, suspended, refreshed after a key
 * rotation and removed through the CLI.
 */

vi.setConfig({ testTimeout: 120_000 })

let server: Awaited<ReturnType<typeof startServerProcess>>
let home: ReturnType<typeof cliHome>
let provider: TestIssuer
beforeAll(async () => {
  server = await startServerProcess({ env: { RWA_ALLOW_HTTP_ISSUERS: '1' } })
  home = cliHome()
  provider = await TestIssuer.start()
})
afterAll(async () => {
  await provider?.stop()
  await server?.cleanup()
  home?.cleanup()
})

describe('rwa issuers', () => {
  it('adds, lists, suspends, refreshes and removes a did:web issuer', async () => {
    const rwa = cliAs({ server, home }, await newOrg(server.url, server.adminKey, 'issuers-cli'))
    await rwa.json([
      'jurisdictions',
      'register',
      '--id',
      'US',
      '--name',
      'United States',
      '--regulatory-body',
      'SEC',
      '--transfer-requirements',
      'kyc,aml',
    ])
    const added = await rwa.json([
      'issuers',
      'add',
      '--id',
      'acme-kyc',
      '--name',
      'Acme KYC',
      '--did',
      provider.did,
      '--requirement',
      'kyc=KYCCredential',
      '--requirement',
      'aml=AMLCredential,AMLCheck',
      '--jurisdiction',
      'US',
    ])
    expect(added).toMatchObject({
      issuer_id: 'acme-kyc',
      did: provider.did,
      requirements: { kyc: ['KYCCredential'], aml: ['AMLCredential', 'AMLCheck'] },
      jurisdictions: ['US'],
      status: 'active',
      keys: [{ kid: `${provider.did}#key-1`, retired_at: null }],
    })

    const listed = await rwa.run(['issuers', 'list', '--requirement', 'kyc'])
    expect(listed.exitCode).toBe(0)
    expect(listed.stdout).toContain('acme-kyc')
    expect(listed.stdout).toContain('kyc=KYCCredential')

    expect((await rwa.json(['issuers', 'suspend', 'acme-kyc'])).status).toBe('suspended')
    expect((await rwa.json(['issuers', 'update', 'acme-kyc', '--status', 'active'])).status).toBe('active')

    provider.rotateKey()
    const refreshed = await rwa.json(['issuers', 'refresh', 'acme-kyc'])
    expect(refreshed.keys.map((k: any) => [k.kid, k.retired_at === null])).toEqual([
      [`${provider.did}#key-1`, false],
      [`${provider.did}#key-2`, true],
    ])

    const removed = await rwa.json(['issuers', 'remove', 'acme-kyc', '--yes'])
    expect(removed.status).toBe('removed')
    expect((await rwa.json(['issuers', 'get', 'acme-kyc'])).status).toBe('removed')
  })

  it('names the flag of a malformed requirement, and explains an unresolvable DID', async () => {
    const rwa = cliAs({ server, home }, await newOrg(server.url, server.adminKey, 'issuers-cli-2'))
    const malformed = await rwa.run([
      'issuers',
      'add',
      '--id',
      'x1',
      '--name',
      'X',
      '--did',
      provider.did,
      '--requirement',
      'kyc',
      '--jurisdiction',
      'US',
    ])
    expect(malformed.exitCode).toBe(2)
    expect(malformed.stderr).toContain('--requirement must be <requirement>=<VC type>')

    await rwa.json([
      'jurisdictions',
      'register',
      '--id',
      'US',
      '--name',
      'US',
      '--regulatory-body',
      'SEC',
      '--transfer-requirements',
      'kyc',
    ])
    const unresolvable = await rwa.run([
      'issuers',
      'add',
      '--id',
      'private',
      '--name',
      'P',
      '--did',
      'did:web:10.1.2.3',
      '--requirement',
      'kyc=KYCCredential',
      '--jurisdiction',
      'US',
    ])
    expect(unresolvable.exitCode).not.toBe(0)
    expect(unresolvable.stderr).toContain('10.1.2.3 is a private address')
    expect(unresolvable.stderr).toContain('--allow-http-issuers')
  })
})
