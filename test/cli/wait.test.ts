import { describe, expect, it, vi } from 'vitest'
import { api, useServerAndHome } from '../support/cli.js'

/*
 * `--wait` against the real limiter. A free-tier organization (no trial) may make 60 requests a
 * minute; once they are spent, the server answers 429 with Retry-After until the oldest of them is a
 * minute old. No clock is injected: the test spends the minute's budget and lets the CLI wait it out
 * (up to a minute of real time; nothing here asserts how long it takes).
 */

vi.setConfig({ testTimeout: 180_000 })

const shared = useServerAndHome()

const FREE_PER_MINUTE = 60

describe('--wait', () => {
  it('rides through a 429: without it exit 5, with too small a --wait-max exit 5 at once, with it 0', async () => {
    const created = (await api(shared.server.url, '/console/billing/keys', shared.server.adminKey, {
      method: 'POST',
      body: JSON.stringify({ org_id: 'patient', name: 'free, no trial' }),
    })) as { api_key: string }
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: created.api_key }
    for (let i = 0; i < FREE_PER_MINUTE; i++) {
      const response = await fetch(`${shared.server.url}/console/billing/keys`, {
        headers: { 'x-api-key': created.api_key },
      })
      expect(response.status).toBe(200)
    }

    const refused = await shared.home.run(['keys', 'list'], { env })
    expect(refused.exitCode).toBe(5)
    expect(refused.stderr).toMatch(
      /^error: Rate limit of 60 requests per minute reached for organization patient/m,
    )
    expect(refused.stderr).toMatch(/^hint: add --wait to wait for it and retry/m)
    // The hint adds what the message does not say; it does not repeat "retry in N s".
    expect(refused.stderr.split('\n').find((l) => l.startsWith('hint:'))).not.toMatch(/retry in/)

    const tooShort = await shared.home.run(['keys', 'list', '--wait', '--wait-max', '1'], { env })
    expect(tooShort.exitCode).toBe(5)
    expect(tooShort.stderr).toMatch(/^hint: the next slot is \d+ s away, more than --wait-max 1 allows/m)
    expect(tooShort.stderr).not.toMatch(/waiting \d+ s/)

    const waited = await shared.home.run(['--wait', 'keys', 'list', '-q'], { env, timeout: 150_000 })
    expect(waited.exitCode, waited.stderr).toBe(0)
    expect(waited.stderr).toMatch(
      /reached for organization patient; waiting \d+ s before retrying \(--wait: 0 of 120 s used\)/,
    )
    expect(waited.stdout).toMatch(/^key_\S+$/)
  })
})
