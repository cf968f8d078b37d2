import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { cliAs, cliHome, newOrg } from '../support/cli.js'
import { startServerProcess } from '../support/server-process.js'
import { TestIssuer } from '../support/test-issuer.js'

/*
 * `rwa issuers` end to end: a real server started with RWA_ALLOW_HTTP_ISSUERS=1 and a did:web provider
 * on loopback (test/support/test-issuer.ts), registered, listed, suspended, refreshed after a key
 * rotation and removed through the CLI; its credential submitted with `rwa attestations submit --vc`.
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
    // The id as the first argument, as the other issuers commands take it.
    const added = await rwa.json([
      'issuers',
      'add',
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

    // The provider's credential, submitted from a file; a refused one names its reason.
    const { vc_jwt } = await provider.issue({
      subject: 'did:web:lion:bob',
      status: ['revocation', 'suspension'],
    })
    const file = join(home.dir, 'kyc.jwt')
    writeFileSync(file, `${vc_jwt}\n`)
    const submitted = await rwa.json(['attestations', 'submit', '--vc', file])
    expect(submitted).toMatchObject({
      source: 'external',
      issuer_id: 'acme-kyc',
      subject_did: 'did:web:lion:bob',
      type: 'kyc',
      vc_jwt,
      jurisdiction: null,
    })
    const shown = await rwa.run(['attestations', 'get', submitted.attestation_id])
    expect(shown.stdout).toContain('acme-kyc')
    const revoked = await provider.issue({ subject: 'did:web:lion:carol' })
    provider.revoke(revoked.index)
    writeFileSync(file, revoked.vc_jwt)
    const refused = await rwa.run(['attestations', 'submit', '--vc', file])
    expect(refused.exitCode).not.toBe(0)
    expect(refused.stderr).toContain('credential_revoked')
    const missing = await rwa.run(['attestations', 'submit', '--vc', join(home.dir, 'none.jwt')])
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toContain('--vc: cannot read')

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
      '--issuer-id',
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
    const twice = await rwa.run(['issuers', 'add', 'x1', '--issuer-id', 'x2', '--name', 'X', '--did', provider.did])
    expect(twice.exitCode).toBe(2)
    expect(twice.stderr).toContain('the issuer id is given twice: "x1" and --issuer-id "x2"')

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
      '--issuer-id',
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
