import { describe, expect, it, vi } from 'vitest'
import { api, newOrg, useServerAndHome } from '../support/cli.js'

vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()

describe('rwa --idempotency-key', () => {
  it('a command run again with the same key replays the answer instead of acting twice', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'retried')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const run = (args: string[]) => shared.home.run(args, { env })
    const create = ['keys', 'create', '--name', 'ci', '--idempotency-key', 'ci-run-7']

    const first = await run([...create, '--json'])
    expect(first.exitCode, first.stderr).toBe(0)
    const created = JSON.parse(first.stdout)
    expect(created.api_key).toMatch(/^rwa_live_/)

    const again = await run([...create, '--json'])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout)).toEqual({ ...created, api_key: null })

    // On a terminal-less run without --json, the replay says why no key is shown.
    const text = await run(create)
    expect(text.exitCode).toBe(0)
    expect(text.stderr).toContain('replays an earlier request')

    const keys = (await api(shared.server.url, '/console/billing/keys', key)) as { total: number }
    expect(keys.total).toBe(2)

    const reused = await run(['keys', 'create', '--name', 'other', '--idempotency-key', 'ci-run-7'])
    expect(reused.exitCode).not.toBe(0)
    expect(reused.stderr).toContain('ci-run-7')
  })
})
