import { generateKeyPairSync } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'
import { cliHome, newOrg } from '../support/cli.js'

/*
 * The auditor's flow: save the trust bundle and the records while the server runs, then verify with
 * the server stopped. `--url` points at nothing (or is not even a URL): verification must not try.
 */

vi.setConfig({ testTimeout: 120_000 })

const home = cliHome()
let server: ServerProcess | undefined
afterAll(async () => {
  await server?.cleanup()
  home.cleanup()
})

const file = (name: string) => join(home.dir, name)

describe('offline verification with the server stopped', () => {
  it('a saved proof, transfer detail and credential verify with no network; altered ones do not', async () => {
    server = await startServerProcess()
    const key = await newOrg(server.url, server.adminKey, 'auditor')
    const env = { RWA_URL: server.url, RWA_API_KEY: key }
    const json = async (args: string[]) => {
      const run = await home.run([...args, '--json'], { env })
      expect(run.exitCode, `rwa ${args.join(' ')}: ${run.stderr}`).toBe(0)
      return JSON.parse(run.stdout)
    }
    for (const id of ['US', 'SG']) {
      await json(['jurisdictions', 'register', '--id', id, '--name', id, '--regulatory-body', 'R'])
    }
    await json(['trust', 'establish', '--from', 'US', '--to', 'SG'])
    const credential = await json([
      'credentials',
      'issue',
      '--jurisdiction',
      'US',
      '--owner-did',
      'did:web:acme:alice',
      '--address',
      '1 Main St',
      '--type',
      'office',
      '--value-usd',
      '1000000',
      '--title-deed',
      'TD-1',
    ])
    const token = await json([
      'tokens',
      'create',
      '--credential-id',
      credential.credential_id,
      '--total-supply',
      '10',
    ])
    const transfer = await json([
      'transfers',
      'request',
      '--token-id',
      token.token_id,
      '--from',
      'US',
      '--to',
      'SG',
      '--recipient-did',
      'did:web:acme:bob',
      '--amount',
      '4',
    ])

    // Saved while the server runs: the key set (JSON in every mode), a proof, a transfer, a credential.
    const jwks = await home.run(['proofs', 'jwks'], { env: { RWA_URL: server.url } })
    expect(jwks.exitCode, jwks.stderr).toBe(0)
    expect(JSON.parse(jwks.stdout).keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519' })
    writeFileSync(file('jwks.json'), jwks.stdout)
    const bundle = await home.run(['trust-bundle'], { env })
    expect(bundle.exitCode, bundle.stderr).toBe(0)
    expect(JSON.parse(bundle.stdout).org_id).toBe('auditor')
    writeFileSync(file('trust.json'), bundle.stdout)
    const proof = await json(['proofs', 'get', transfer.proof_id])
    writeFileSync(file('proof.json'), JSON.stringify(proof))
    writeFileSync(
      file('transfer.json'),
      JSON.stringify(await json(['transfers', 'get', transfer.transfer_id])),
    )
    writeFileSync(file('credential.json'), JSON.stringify(credential))
    writeFileSync(file('vc.jwt'), `${credential.vc_jwt}\n`)

    expect(await server.stop()).toBe(0)
    const dead = { RWA_URL: server.url, RWA_API_KEY: key }
    const offline = (args: string[], input?: string) => home.run(args, { env: dead, input })

    // Proofs: holds → 0.
    const holds = await offline(['proofs', 'verify', file('proof.json'), '--trust', file('trust.json')])
    expect(holds.exitCode, holds.stderr).toBe(0)
    expect(holds.stdout).toMatch(/proof holds/)
    expect(holds.stdout).toContain(`trust from ${file('trust.json')}`)
    // Not even a URL: nothing resolves a connection.
    const noUrl = await home.run([
      '--url',
      'not-a-url',
      'proofs',
      'verify',
      file('proof.json'),
      '--trust',
      file('trust.json'),
    ])
    expect(noUrl.exitCode, noUrl.stderr).toBe(0)
    // A --trust file that is not there: exit 2, saying how to get one.
    const noTrust = await offline(['proofs', 'verify', file('proof.json'), '--trust', file('nowhere.json')])
    expect(noTrust.exitCode).toBe(2)
    expect(noTrust.stderr).toContain(`cannot read ${file('nowhere.json')}`)
    expect(noTrust.stderr).toContain(
      '--trust wants a trust bundle: save it with `rwa trust-bundle > trust.json`',
    )
    expect(
      (await offline(['proofs', 'verify', file('transfer.json'), '--trust', file('trust.json')])).exitCode,
    ).toBe(0)
    expect(
      (
        await offline(
          ['proofs', 'verify', '-', '--trust', file('trust.json')],
          readFileSync(file('proof.json'), 'utf8'),
        )
      ).exitCode,
    ).toBe(0)
    const report = await offline([
      'proofs',
      'verify',
      file('proof.json'),
      '--trust',
      file('trust.json'),
      '--json',
    ])
    expect(JSON.parse(report.stdout)).toMatchObject({
      proof_id: transfer.proof_id,
      valid: true,
      trust_from: file('trust.json'),
    })
    // -q: the exit code is the answer.
    const quiet = await offline(['proofs', 'verify', file('proof.json'), '--trust', file('trust.json'), '-q'])
    expect(quiet).toMatchObject({ exitCode: 0, stdout: '', stderr: '' })

    // Tampered → 8.
    writeFileSync(
      file('tampered.json'),
      JSON.stringify({ ...proof, transfer: { ...proof.transfer, amount: 9 } }),
    )
    const tampered = await offline(['proofs', 'verify', file('tampered.json'), '--trust', file('trust.json')])
    expect(tampered.exitCode).toBe(8)
    expect(tampered.stderr).toMatch(/does NOT hold: digest does not match/)
    // Another key under the same kid → 8.
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' })
    const saved = JSON.parse(readFileSync(file('trust.json'), 'utf8'))
    writeFileSync(
      file('other-trust.json'),
      JSON.stringify({ ...saved, proof_keys: { keys: [{ ...saved.proof_keys.keys[0], x: other.x }] } }),
    )
    const wrongKey = await offline([
      'proofs',
      'verify',
      file('proof.json'),
      '--trust',
      file('other-trust.json'),
    ])
    expect(wrongKey.exitCode).toBe(8)
    expect(wrongKey.stderr).toMatch(/signature does not verify/)
    // Without --trust the trust bundle comes from the server, which is down: 7.
    expect((await offline(['proofs', 'verify', file('proof.json')])).exitCode).toBe(7)

    // Credentials: the record, or the bare VC-JWT; the issuer's key comes from its did:key, trusted by
    // the bundle. Its status list is on the stopped server: unverifiable, so it fails closed (8)
    // unless --offline says not to check it.
    const trust = ['--trust', file('trust.json')]
    const unreachable = await offline(['credentials', 'verify', file('credential.json'), ...trust])
    expect(unreachable.exitCode).toBe(8)
    expect(unreachable.stderr).toMatch(/status not verified: cannot fetch/)
    const credentialHolds = await offline([
      'credentials',
      'verify',
      file('credential.json'),
      ...trust,
      '--offline',
    ])
    expect(credentialHolds.exitCode, credentialHolds.stderr).toBe(0)
    expect(credentialHolds.stdout).toMatch(/credential holds/)
    expect(credentialHolds.stdout).toMatch(/status not checked/)
    expect((await offline(['credentials', 'verify', file('vc.jwt'), ...trust, '--offline'])).exitCode).toBe(0)
    const vcReport = JSON.parse(
      (await offline(['credentials', 'verify', file('credential.json'), ...trust, '--offline', '--json']))
        .stdout,
    )
    expect(vcReport).toMatchObject({
      id: credential.credential_id,
      issuer_did: credential.issuer_did,
      subject_did: 'did:web:acme:alice',
      valid: true,
    })
    writeFileSync(
      file('edited.json'),
      JSON.stringify({
        ...credential,
        property_data: { ...credential.property_data, value_usd: 99_000_000 },
      }),
    )
    const edited = await offline(['credentials', 'verify', file('edited.json'), ...trust, '--offline'])
    expect(edited.exitCode).toBe(8)
    expect(edited.stderr).toMatch(
      /does NOT hold: the record's property_data .* differs from the signed credential/,
    )
    const [h, p, s] = credential.vc_jwt.split('.')
    writeFileSync(file('forged.jwt'), `${h}.${p}.${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`)
    expect(
      (await offline(['credentials', 'verify', file('forged.jwt'), ...trust, '--offline'])).exitCode,
    ).toBe(8)
  })
})
