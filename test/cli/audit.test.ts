import { execa } from 'execa'
import { describe, expect, it, vi } from 'vitest'
import { api, newOrg, useServerAndHome } from '../support/cli.js'
import { RWA_BIN } from '../support/server-process.js'

vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()

const US = {
  jurisdiction_id: 'US',
  name: 'United States',
  regulatory_body: 'SEC',
  frameworks: ['Reg D'],
  credential_types: ['PropertyOwnership', 'RegulatoryAttestation'],
  transfer_requirements: ['kyc'],
}

describe('rwa audit', () => {
  it('list shows who did what (table, TSV, --json, --all), filtered by action and target', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'audited')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const run = (args: string[]) => shared.home.run(args, { env })
    await api(shared.server.url, '/console/rwa/jurisdictions', key, {
      method: 'POST',
      body: JSON.stringify(US),
    })
    const updated = await run(['jurisdictions', 'update', 'US', '--transfer-requirements', 'kyc,aml'])
    expect(updated.exitCode, updated.stderr).toBe(0)

    const json = await run(['audit', 'list', '--json', '--action', 'jurisdiction.updated'])
    expect(json.exitCode, json.stderr).toBe(0)
    const page = JSON.parse(json.stdout)
    expect(page.total).toBe(1)
    expect(page.events[0]).toMatchObject({
      action: 'jurisdiction.updated',
      target: { type: 'jurisdiction', id: 'US' },
      changes: {
        before: { transfer_requirements: ['kyc'] },
        after: { transfer_requirements: ['kyc', 'aml'] },
      },
    })

    // Piped: TSV with its header, newest first.
    const tsv = await run(['audit', 'list', '--target-id', 'US'])
    expect(tsv.exitCode, tsv.stderr).toBe(0)
    const lines = tsv.stdout.trim().split('\n')
    expect(lines[0]).toBe('at\taction\ttarget\tactor\trequest_id')
    expect(lines.slice(1).map((l) => l.split('\t')[1])).toEqual([
      'jurisdiction.updated',
      'jurisdiction.registered',
    ])

    const all = JSON.parse((await run(['audit', 'list', '--all', '--limit', '1', '--json'])).stdout)
    expect(all.next_cursor).toBeNull()
    expect(all.events.map((e: any) => e.action)).toEqual([
      'jurisdiction.updated',
      'jurisdiction.registered',
      'key.created',
    ])

    const bad = await run(['audit', 'list', '--since', 'yesterday'])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('--since')
  })

  it('tail prints the latest events, then each new one as it is recorded', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'tailed')
    const tail = execa(process.execPath, [RWA_BIN, 'audit', 'tail', '--interval', '0.2', '--json'], {
      extendEnv: false,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: shared.home.dir,
        XDG_CONFIG_HOME: shared.home.configHome,
        RWA_URL: shared.server.url,
        RWA_API_KEY: key,
      },
      reject: false,
    })
    let out = ''
    tail.stdout?.on('data', (chunk) => {
      out += String(chunk)
    })
    const seen = async (action: string) => {
      for (let i = 0; i < 200 && !out.includes(`"${action}"`); i++)
        await new Promise((r) => setTimeout(r, 100))
      expect(out).toContain(`"${action}"`)
    }
    try {
      await seen('key.created')
      await api(shared.server.url, '/console/rwa/jurisdictions', key, {
        method: 'POST',
        body: JSON.stringify(US),
      })
      await seen('jurisdiction.registered')
      await api(shared.server.url, '/console/rwa/jurisdictions/US', key, { method: 'DELETE' })
      await seen('jurisdiction.removed')
    } finally {
      tail.kill('SIGTERM')
      await tail
    }
    const actions = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).action)
    expect(actions).toEqual(['key.created', 'jurisdiction.registered', 'jurisdiction.removed'])
  })
})
