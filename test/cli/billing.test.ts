import { createServer as createHttpServer } from 'node:http'
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { api, newOrg, useServerAndHome } from '../support/cli.js'

// One real server process for the file; every test works in its own organization.
// Each test runs the CLI a dozen times or more; give it room on a loaded 2-core machine.
vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()

const as = (key: string) => ({ RWA_URL: shared.server.url, RWA_API_KEY: key })

describe('rwa keys (real CLI against a real server process)', () => {
  it('creates a key, lists it masked, revokes it, and the revoked key no longer works', async () => {
    const created = await shared.home.run(
      ['keys', 'create', '--org', 'keys-flow', '--name', 'ci', '--trial', '--json'],
      {
        env: as(shared.server.adminKey),
      },
    )
    expect(created.exitCode, created.stderr).toBe(0)
    const key = JSON.parse(created.stdout)
    expect(key).toMatchObject({ org_id: 'keys-flow', name: 'ci', tier: 'free' })
    expect(key.api_key).toMatch(/^rwa_live_[A-Za-z0-9_-]{43}$/)
    expect(key.trial_ends_at).not.toBeNull()

    // The new key works on its own organization, through the CLI.
    const listed = await shared.home.run(['keys', 'list', '--json'], { env: as(key.api_key) })
    expect(listed.exitCode, listed.stderr).toBe(0)
    const list = JSON.parse(listed.stdout)
    expect(list.total).toBe(1)
    expect(list.keys[0]).toMatchObject({
      key_id: key.key_id,
      revoked: false,
      key_prefix: `${key.api_key.slice(0, 12)}...`,
    })
    // --json prints the API's JSON exactly.
    expect(list).toEqual(
      await api(shared.server.url, '/console/billing/keys?org_id=keys-flow', shared.server.adminKey),
    )

    // The human table shows the prefix, never the raw key.
    const table = await shared.home.run(['keys', 'list', '--org', 'keys-flow'], {
      env: as(shared.server.adminKey),
    })
    expect(table.exitCode).toBe(0)
    expect(table.stdout).toContain(key.key_id)
    expect(table.stdout).toContain(`${key.api_key.slice(0, 12)}...`)
    expect(table.stdout + table.stderr).not.toContain(key.api_key)

    const revoked = await shared.home.run(['keys', 'revoke', key.key_id, '--yes', '--json'], {
      env: as(shared.server.adminKey),
    })
    expect(revoked.exitCode, revoked.stderr).toBe(0)
    expect(JSON.parse(revoked.stdout)).toEqual({ status: 'revoked', key_id: key.key_id })

    const after = await shared.home.run(['keys', 'list', '--org', 'keys-flow', '--json'], {
      env: as(shared.server.adminKey),
    })
    expect(JSON.parse(after.stdout).keys[0].revoked).toBe(true)
    const refused = await shared.home.run(['keys', 'list'], { env: as(key.api_key) })
    expect(refused.exitCode).toBe(3)
    expect(refused.stderr).toMatch(/revoked/)
  })

  it('in human mode prints the raw key once on stdout and the warning on stderr', async () => {
    const created = await shared.home.run(['keys', 'create', '--org', 'keys-human', '--name', 'ops'], {
      env: as(shared.server.adminKey),
    })
    expect(created.exitCode, created.stderr).toBe(0)
    const raw = created.stdout.match(/rwa_live_[A-Za-z0-9_-]{43}/g)
    expect(raw).toHaveLength(1)
    expect(created.stderr).toMatch(/shown only once/)
  })
})

describe('rwa subscription, usage, pricing, stats', () => {
  it('--json output of each report equals the API response', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'reports')
    const cases: Array<[string[], string, string]> = [
      [['pricing'], '/console/billing/pricing', ''],
      [['subscription', 'get'], '/console/billing/subscription/reports', key],
      [['subscription', 'get', 'reports'], '/console/billing/subscription/reports', shared.server.adminKey],
      [['stats'], '/console/billing/stats', shared.server.adminKey],
    ]
    for (const [args, path, apiKey] of cases) {
      const run = await shared.home.run([...args, '--json'], {
        env: apiKey ? as(apiKey) : { RWA_URL: shared.server.url },
      })
      expect(run.exitCode, `${args.join(' ')}: ${run.stderr}`).toBe(0)
      expect(JSON.parse(run.stdout), args.join(' ')).toEqual(
        await api(shared.server.url, path, apiKey || undefined),
      )
    }
  })

  it('usage --days counts the requests the CLI made, per day', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'usage-days')
    const run = await shared.home.run(['usage', '--days', '3', '--json'], { env: as(key) })
    expect(run.exitCode, run.stderr).toBe(0)
    const usage = JSON.parse(run.stdout)
    expect(usage.org_id).toBe('usage-days')
    expect(usage.daily_usage).toHaveLength(3)
    // `usage` first asks which organization the key belongs to (keys list), then reads the usage.
    expect(usage.totals.total_requests).toBeGreaterThanOrEqual(2)
  })

  it('subscription set (admin) changes the tier and get shows the new limits', async () => {
    await newOrg(shared.server.url, shared.server.adminKey, 'sub-set')
    const set = await shared.home.run(
      ['subscription', 'set', '--org', 'sub-set', '--tier', 'pro', '--json'],
      {
        env: as(shared.server.adminKey),
      },
    )
    expect(set.exitCode, set.stderr).toBe(0)
    expect(JSON.parse(set.stdout)).toMatchObject({ status: 'updated', org_id: 'sub-set', tier: 'pro' })
    const get = await shared.home.run(['subscription', 'get', 'sub-set'], { env: as(shared.server.adminKey) })
    // Piped, a record is `field<TAB>value` lines (issue 13; it was box-drawn before).
    expect(get.stdout).toMatch(/^tier\tpro$/m)
    expect(get.stdout).toMatch(/^requests_per_day\t50000$/m)
  })
})

describe('exit codes and failure messages', () => {
  it('2: usage and validation errors, with the flag or field named', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'exit-two')
    const missing = await shared.home.run(['keys', 'create'], { env: as(key) })
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toMatch(/missing required flag: --name/)

    const badDays = await shared.home.run(['usage', '--days', 'lots'], { env: as(key) })
    expect(badDays.exitCode).toBe(2)
    expect(badDays.stderr).toMatch(/--days must be a whole number/)

    // The server refuses the value; its field path reaches the user.
    const outOfRange = await shared.home.run(['usage', '--days', '9999'], { env: as(key) })
    expect(outOfRange.exitCode).toBe(2)
    expect(outOfRange.stderr).toMatch(/days/)

    const badTier = await shared.home.run(['subscription', 'set', '--org', 'exit-two', '--tier', 'gold'], {
      env: as(shared.server.adminKey),
    })
    expect(badTier.exitCode).toBe(2)
    expect(badTier.stderr).toMatch(/--tier must be one of free, pro, enterprise/)

    const typo = await shared.home.run(['kyes', 'list'])
    expect(typo.exitCode).toBe(2)
    expect(typo.stderr).toMatch(/Did you mean keys\?/)
    const unknownFlag = await shared.home.run(['keys', 'list', '--colour'])
    expect(unknownFlag.exitCode).toBe(2)
    expect(unknownFlag.stderr).toMatch(/unknown option/)
  })

  it('3: no key, an unknown key, and a member key on an admin-only call', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'exit-three')
    const noKey = await shared.home.run(['keys', 'list'], { env: { RWA_URL: shared.server.url } })
    expect(noKey.exitCode).toBe(3)
    expect(noKey.stderr).toMatch(/no API key given/)
    expect(noKey.stderr).toMatch(/^hint: /m)

    const unknown = await shared.home.run(['keys', 'list'], { env: as(`rwa_live_${'x'.repeat(43)}`) })
    expect(unknown.exitCode).toBe(3)
    expect(unknown.stderr).toMatch(/Unknown API key/)

    const forbidden = await shared.home.run(['stats'], { env: as(key) })
    expect(forbidden.exitCode).toBe(3)
  })

  it('4: an unknown key id; 5: revoking a key twice', async () => {
    const missing = await shared.home.run(['keys', 'revoke', 'key_doesnotexist', '--yes'], {
      env: as(shared.server.adminKey),
    })
    expect(missing.exitCode).toBe(4)
    expect(missing.stderr).toMatch(/No API key with id key_doesnotexist/)

    const created = JSON.parse(
      (
        await shared.home.run(['keys', 'create', '--org', 'exit-five', '--name', 'x', '--json'], {
          env: as(shared.server.adminKey),
        })
      ).stdout,
    )
    expect(
      (
        await shared.home.run(['keys', 'revoke', created.key_id, '--yes'], {
          env: as(shared.server.adminKey),
        })
      ).exitCode,
    ).toBe(0)
    const again = await shared.home.run(['keys', 'revoke', created.key_id, '--yes'], {
      env: as(shared.server.adminKey),
    })
    expect(again.exitCode).toBe(5)
    expect(again.stderr).toMatch(/already revoked/)
  })

  it('7: nothing listening at the URL', async () => {
    const run = await shared.home.run(['pricing'], { env: { RWA_URL: 'http://127.0.0.1:9' } })
    expect(run.exitCode).toBe(7)
    expect(run.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/)
  })

  it('1: a --url that is not an rwa server (a web page, another JSON API, not HTTP, https to plain http) says so, with a hint', async () => {
    const http = createHttpServer((req, res) => {
      if (req.url?.startsWith('/console/rwa/tokens'))
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>')
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world"}')
    })
    const ssh = createTcpServer((socket) => {
      socket.on('data', () => {})
      socket.on('error', () => {})
      socket.end('SSH-2.0-OpenSSH_9.6\r\n')
    })
    const listen = (server: Server | ReturnType<typeof createHttpServer>) =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
      )
    const [webPort, sshPort] = [await listen(http), await listen(ssh)]
    const key = { RWA_API_KEY: 'rwa_live_0123456789abcdefghijklmnopqrstuv' }
    try {
      const cases: Array<[string[], string, RegExp]> = [
        [['tokens', 'list'], `http://127.0.0.1:${webPort}`, /answered 404 without problem details/],
        [['pricing'], `http://127.0.0.1:${webPort}`, /answered a body this client does not understand/],
        [['tokens', 'list'], `http://127.0.0.1:${sshPort}`, /answered something that is not HTTP/],
        [['pricing'], `https://127.0.0.1:${webPort}`, /did not answer in TLS: is it http, not https\?/],
      ]
      for (const [args, url, error] of cases) {
        const run = await shared.home.run(args, { env: { ...key, RWA_URL: url } })
        expect(run.exitCode, `${url} ${run.stderr}`).toBe(1)
        expect(run.stderr, url).toMatch(error)
        expect(run.stderr, url).toMatch(
          /^hint: is --url \(or RWA_URL\) the base URL of an rwa server, of this CLI's version\? `rwa config show` shows the one in use; --verbose shows what it answered$/m,
        )
        // Never the usage text, nor a stack.
        expect(run.stderr, url).not.toMatch(/Usage:|\n\s+at /)
        expect(run.stdout, url).toBe('')
      }
    } finally {
      http.close()
      ssh.close()
    }
  })

  it('--verbose adds the reason, the context and the full problem document', async () => {
    const run = await shared.home.run(['keys', 'revoke', 'key_nope', '--yes', '--verbose'], {
      env: as(shared.server.adminKey),
    })
    expect(run.exitCode).toBe(4)
    expect(run.stderr).toMatch(/^reason: key_not_found$/m)
    expect(run.stderr).toMatch(/^context: \{"key_id":"key_nope"\}$/m)
    const problem = JSON.parse(run.stderr.slice(run.stderr.indexOf('\n{') + 1))
    expect(problem).toMatchObject({
      status: 404,
      code: 'not_found',
      reason: 'key_not_found',
      type: 'urn:rwa:problem:not_found',
    })
  })
})

describe('non-interactive use', () => {
  it('never prompts without a terminal: destructive commands need --yes and nothing changes', async () => {
    const created = JSON.parse(
      (
        await shared.home.run(['keys', 'create', '--org', 'no-tty', '--name', 'x', '--json'], {
          env: as(shared.server.adminKey),
        })
      ).stdout,
    )
    const started = Date.now()
    const run = await shared.home.run(['keys', 'revoke', created.key_id], { env: as(shared.server.adminKey) })
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/refusing to revoke API key .* without --yes/)
    expect(Date.now() - started).toBeLessThan(10_000)
    const list = (await api(
      shared.server.url,
      '/console/billing/keys?org_id=no-tty',
      shared.server.adminKey,
    )) as {
      keys: Array<{ revoked: boolean }>
    }
    expect(list.keys[0]!.revoked).toBe(false)
  })

  it('--no-input lists every missing flag at once', async () => {
    const run = await shared.home.run(['subscription', 'set', '--no-input'], {
      env: as(shared.server.adminKey),
    })
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/missing required flags: --org-id, --tier/)
  })

  it('--file - reads the full JSON body from stdin; flags override it', async () => {
    const run = await shared.home.run(['keys', 'create', '--file', '-', '--name', 'from-flag', '--json'], {
      env: as(shared.server.adminKey),
      input: JSON.stringify({ org_id: 'from-file', name: 'from-file', start_trial: true }),
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ org_id: 'from-file', name: 'from-flag' })
  })

  it('--api-key-stdin and --api-key-file read the key without putting it on the command line', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'key-input')
    const fromStdin = await shared.home.run(['keys', 'list', '--api-key-stdin', '--json'], {
      env: { RWA_URL: shared.server.url },
      input: `${key}\n`,
    })
    expect(fromStdin.exitCode, fromStdin.stderr).toBe(0)
    expect(JSON.parse(fromStdin.stdout).keys[0].org_id).toBe('key-input')

    const { writeFileSync } = await import('node:fs')
    const file = `${shared.home.dir}/key.txt`
    writeFileSync(file, `${key}\n`, { mode: 0o600 })
    const fromFile = await shared.home.run(['keys', 'list', '--api-key-file', file, '--json'], {
      env: { RWA_URL: shared.server.url },
    })
    expect(fromFile.exitCode, fromFile.stderr).toBe(0)
    expect(JSON.parse(fromFile.stdout).keys[0].org_id).toBe('key-input')
  })
})
