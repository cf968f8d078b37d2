import { spawn } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cliHome, startSandbox } from '../support/cli.js'
import { RWA_BIN } from '../support/server-process.js'

const home = cliHome()
afterAll(() => home.cleanup())

describe('rwa sandbox --demo', () => {
  it('serves a seeded example, prints how to use it, and deletes its temporary database on SIGTERM', async () => {
    // A status list kept 1 s (not the sandbox's 15 s), to see the provider's revocation at once.
    const { child, info } = await startSandbox(home, ['--demo', '--port', '0'], {
      RWA_ISSUER_STATUS_MAX_AGE: '1s',
    })
    try {
      expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(info.admin_key).toMatch(/^rwa_live_/)
      expect(info.temporary).toBe(true)
      expect(existsSync(info.db)).toBe(true)
      expect(info.demo).toMatchObject({ seeded: true })
      // The console's URL, with no key in it (one signs in on the page).
      expect(info.console_url).toBe(`${info.url}/console/ui/`)
      expect((await fetch(info.console_url)).status).toBe(200)

      const env = { RWA_URL: info.url, RWA_API_KEY: info.admin_key }
      const jurisdictions = JSON.parse((await home.run(['jurisdictions', 'list', '--json'], { env })).stdout)
      expect(jurisdictions.jurisdictions.map((j: any) => j.jurisdiction_id).sort()).toEqual([
        'CH',
        'SG',
        'US',
      ])
      const transfers = JSON.parse((await home.run(['transfers', 'list', '--json'], { env })).stdout)
      expect(transfers.transfers.map((t: any) => t.status).sort()).toEqual([
        'approved',
        'approved',
        'rejected',
      ])
      const approved = transfers.transfers.find((t: any) => t.transfer_id === info.demo.approved_transfer_id)
      expect(approved.status).toBe('approved')
      expect((await home.run(['proofs', 'verify', approved.proof_id], { env })).exitCode).toBe(0)

      // The demo's KYC provider (rwa dev issuer): trusted, its credential to erin carried a transfer.
      const provider = info.demo.issuer
      expect(provider).toMatchObject({
        issuer_id: 'demo-kyc',
        did: expect.stringMatching(/^did:web:127\.0\.0\.1%3A\d+$/),
        seeded: true,
        credential_id: 'vc-1',
        transfer_status: 'approved',
      })
      expect(provider.kyc_reason).toContain(`trusted issuer demo-kyc (${provider.did})`)
      expect(((await (await fetch(provider.document_url)).json()) as any).id).toBe(provider.did)
      const issuers = JSON.parse((await home.run(['issuers', 'list', '--json'], { env })).stdout)
      expect(issuers.issuers.map((i: any) => [i.issuer_id, i.did])).toEqual([['demo-kyc', provider.did]])

      // What the sandbox says to try next: revoke at the provider (its directory from the export
      // line), and the next transfer to erin is refused once the list is older than the max age.
      const issuerEnv = { ...env, RWA_DEV_ISSUER_DIR: provider.dir }
      const revoked = await home.run(['dev', 'issuer', 'revoke', 'vc-1'], { env: issuerEnv })
      expect(revoked.exitCode, revoked.stderr).toBe(0)
      await new Promise((resolve) => setTimeout(resolve, 1_300))
      const request = ['transfers', 'request', '--token-id', info.demo.token_id, '--from', 'US', '--to', 'SG']
      const refused = await home.run([...request, '--recipient-did', 'did:web:acme:erin', '--amount', '10'], {
        env,
      })
      expect(refused.exitCode).toBe(6)
      expect(refused.stderr).toContain(`${provider.attestation_id} is revoked`)

      child.kill('SIGTERM')
      const result = await child
      expect(result.exitCode).toBe(0)
      expect(existsSync(info.db)).toBe(false)
      expect(existsSync(provider.dir)).toBe(false)
      await expect(fetch(provider.document_url)).rejects.toThrow()
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})

/**
 * `rwa sandbox ARGS` as a person runs it: stdout and stderr into one file, in the order they were
 * written, as a terminal shows them. Waits (at most 30 s) for its --url-file, makes a few requests as
 * the other shell would, and returns what the screen shows, and whether the URL file went on SIGINT.
 */
async function sandboxScreen(
  name: string,
  args: string[],
): Promise<{ screen: string; urlFileLeft: boolean }> {
  const screenPath = join(home.dir, `${name}.screen`)
  const urlFile = join(home.dir, `${name}.url`)
  const fd = openSync(screenPath, 'w')
  const child = spawn(process.execPath, [RWA_BIN, 'sandbox', '--port', '0', '--url-file', urlFile, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home.dir, XDG_CONFIG_HOME: home.configHome, NO_COLOR: '1' },
    stdio: ['ignore', fd, fd],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  try {
    for (let waited = 0; !existsSync(urlFile); waited += 100) {
      if (waited > 30_000 || child.exitCode !== null) {
        throw new Error(`no URL file: ${readFileSync(screenPath, 'utf8')}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const url = readFileSync(urlFile, 'utf8').trim()
    const key = /RWA_API_KEY=(\S+)/.exec(readFileSync(screenPath, 'utf8'))![1]!
    for (const path of ['/console/billing/pricing', '/console/billing/keys', '/no/such/path']) {
      await (await fetch(`${url}${path}`, { headers: { 'X-API-Key': key } })).arrayBuffer()
    }
    // Time for any log line those requests would write.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const screen = readFileSync(screenPath, 'utf8')
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    return { screen, urlFileLeft: existsSync(urlFile) }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
    closeSync(fd)
  }
}

describe('rwa sandbox on a terminal', () => {
  it('keeps its export line last on screen while it serves requests, and removes its URL file on exit', async () => {
    const { screen, urlFileLeft } = await sandboxScreen('quiet', [])
    const lines = screen.trimEnd().split('\n')
    expect(lines.at(-2)).toMatch(/^ {2}export RWA_URL=http:\/\/127\.0\.0\.1:\d+ RWA_API_KEY=rwa_live_\S{43}$/)
    expect(lines.at(-1)).toBe('  rwa transfers list')
    const consoleLine = lines.find((line) => line.startsWith('console: '))
    expect(consoleLine).toMatch(
      /^console: http:\/\/127\.0\.0\.1:\d+\/console\/ui\/ \(sign in with an API key, or run `rwa ui`\)$/,
    )
    expect(consoleLine).not.toContain('rwa_live_')
    expect(urlFileLeft).toBe(false)
  })

  it('logs a line per request after it when asked to (--log-level info)', async () => {
    const { screen } = await sandboxScreen('verbose', ['--log-level', 'info'])
    const afterExport = screen.slice(screen.indexOf('export RWA_URL='))
    expect(afterExport).toMatch(/"route":"\/console\/billing\/pricing"/)
    expect(afterExport).toMatch(/"route":"\/console\/billing\/keys"/)
  })
})
