import { describe, expect, it } from 'vitest'
import { newOrg, useServerAndHome } from '../support/cli.js'

const shared = useServerAndHome()

describe('finding a CLI error in the server log', () => {
  it('--verbose prints the request id, and the server logged that request under it', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'verbose-org')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const result = await shared.home.run(['tokens', 'get', 'tok_missing', '--verbose'], { env })
    expect(result.exitCode).not.toBe(0)
    const id = /^request id: ([\w=-]+)$/m.exec(result.stderr)?.[1]
    expect(id, result.stderr).toBeDefined()
    // The problem details printed below it carry the same id.
    expect(result.stderr).toContain(`"request_id": "${id}"`)

    const line = await shared.server.waitForLogRecord((l) => l.msg === 'request' && l.request_id === id)
    expect(line).toMatchObject({
      method: 'GET',
      route: '/console/rwa/tokens/{id}',
      path: '/console/rwa/tokens/tok_missing',
      status: 404,
      org_id: 'verbose-org',
    })
  })

  it('without --verbose prints no request id', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'quiet-org')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const result = await shared.home.run(['tokens', 'get', 'tok_missing'], { env })
    expect(result.exitCode).not.toBe(0)
    expect(result.stderr).not.toContain('request id')
  })
})
