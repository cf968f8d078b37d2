import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { createKeyResponseExample } from '../../src/contract/billing-examples.js'
import { api, cliHome, newOrg, useServerAndHome } from '../support/cli.js'

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

    // The replay carries no key: the step fails (exit 5) instead of going on without one, the answer
    // still printed, and says what is left to do.
    const again = await run([...create, '--json'])
    expect(again.exitCode, again.stderr).toBe(5)
    expect(JSON.parse(again.stdout)).toEqual({ ...created, api_key: null })
    expect(again.stderr).toContain(
      `error: the new key ${created.key_id} was shown only in the first answer to --idempotency-key ci-run-7, and cannot be recovered`,
    )
    expect(again.stderr).toContain(`hint: revoke the lost key (\`rwa keys revoke ${created.key_id}\`)`)

    for (const extra of [[], ['-q']]) {
      const text = await run([...create, ...extra])
      expect(text.exitCode, `${extra} ${text.stderr}`).toBe(5)
      expect(text.stdout).not.toContain('rwa_live_')
      expect(text.stderr).toContain('cannot be recovered')
    }

    const keys = (await api(shared.server.url, '/console/billing/keys', key)) as { total: number }
    expect(keys.total).toBe(2)

    const reused = await run(['keys', 'create', '--name', 'other', '--idempotency-key', 'ci-run-7'])
    expect(reused.exitCode).not.toBe(0)
    expect(reused.stderr).toContain('ci-run-7')
  })
})

describe('a command whose first run is still in flight', () => {
  it('waits for it (409 idempotency_key_in_progress) with the same key and prints its answer', async () => {
    // A server whose first answer to the key is "still running", as the real one answers a second run
    // of a CI step while the first runs; then the first run's answer, replayed.
    const keys: string[] = []
    const server = createServer((req, res) => {
      keys.push(String(req.headers['idempotency-key']))
      req.resume()
      req.on('end', () => {
        if (keys.length === 1) {
          res.writeHead(409, { 'content-type': 'application/problem+json', 'retry-after': '1' }).end(
            JSON.stringify({
              type: 'urn:rwa:problem:conflict',
              title: 'Conflict',
              status: 409,
              detail: 'A request with Idempotency-Key ci-run-8 is still running; retry once it has answered',
              code: 'conflict',
              reason: 'idempotency_key_in_progress',
              context: { idempotency_key: 'ci-run-8' },
            }),
          )
        } else {
          res
            .writeHead(201, { 'content-type': 'application/json', 'idempotent-replayed': 'true' })
            .end(JSON.stringify({ ...createKeyResponseExample, api_key: null }))
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const home = cliHome()
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const result = await home.run(
        ['keys', 'create', '--name', 'ci', '--idempotency-key', 'ci-run-8', '--json'],
        {
          env: { RWA_URL: url, RWA_API_KEY: `rwa_live_${'a'.repeat(43)}` },
        },
      )
      // It waited and printed the first run's answer; that answer's key went to the first run, so this
      // one fails as any replay without its key does.
      expect(result.stderr).toContain('still running; waiting for its answer')
      expect(JSON.parse(result.stdout).key_id).toBe(createKeyResponseExample.key_id)
      expect(result.exitCode, result.stderr).toBe(5)
      expect(result.stderr).toContain('cannot be recovered')
      expect(keys).toEqual(['ci-run-8', 'ci-run-8'])
    } finally {
      home.cleanup()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
