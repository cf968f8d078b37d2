import { describe, expect, it, vi } from 'vitest'
import { newOrg, useServerAndHome } from '../support/cli.js'

// One real server process for the file; every test works in its own organization.
vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()

const as = (key: string) => ({ env: { RWA_URL: shared.server.url, RWA_API_KEY: key } })

describe('least privilege from the CLI (real CLI against a real server process)', () => {
  it('an owner gives CI a transfers key expiring in 24h; it may not make keys; whoami says what it is', async () => {
    const owner = await newOrg(shared.server.url, shared.server.adminKey, 'cli-roles')
    const before = Date.now()
    const created = await shared.home.run(
      [
        'keys',
        'create',
        '--name',
        'ci',
        '--role',
        'transfers',
        '--role',
        'auditor',
        '--expires-in',
        '24h',
        '--json',
      ],
      as(owner),
    )
    expect(created.exitCode, created.stderr).toBe(0)
    const ci = JSON.parse(created.stdout)
    expect(ci).toMatchObject({ org_id: 'cli-roles', name: 'ci', roles: ['transfers', 'auditor'] })
    const expires = Date.parse(ci.expires_at)
    expect(expires - before).toBeGreaterThanOrEqual(24 * 3_600_000)
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3_600_000)

    const who = await shared.home.run(['whoami', '--json'], as(ci.api_key))
    expect(who.exitCode, who.stderr).toBe(0)
    expect(JSON.parse(who.stdout)).toMatchObject({
      key_id: ci.key_id,
      org_id: 'cli-roles',
      admin: false,
      roles: ['transfers', 'auditor'],
      expires_at: ci.expires_at,
    })
    const human = await shared.home.run(['whoami'], as(ci.api_key))
    expect(human.stdout).toMatch(/^roles\s+transfers, auditor$/m)
    expect(human.stdout).toContain(ci.expires_at)

    const refused = await shared.home.run(['keys', 'create', '--name', 'mine'], as(ci.api_key))
    expect(refused.exitCode).toBe(3)
    expect(refused.stderr).toMatch(/hint: `rwa whoami` shows the roles of the key in use/)

    const table = await shared.home.run(['keys', 'list'], as(owner))
    expect(table.exitCode, table.stderr).toBe(0)
    expect(table.stdout).toMatch(new RegExp(`${ci.key_id}.*transfers,auditor.*${ci.expires_at.slice(0, 10)}`))
  })

  it('rerolls a key with an overlap: both work, the old one until the overlap ends; without one, it asks or takes --yes', async () => {
    const owner = await newOrg(shared.server.url, shared.server.adminKey, 'cli-reroll')
    const spare = JSON.parse(
      (await shared.home.run(['keys', 'create', '--name', 'deploy', '--role', 'issuer', '--json'], as(owner)))
        .stdout,
    )
    const rolled = await shared.home.run(
      ['keys', 'reroll', spare.key_id, '--overlap', '1h', '--json'],
      as(owner),
    )
    expect(rolled.exitCode, rolled.stderr).toBe(0)
    const fresh = JSON.parse(rolled.stdout)
    expect(fresh).toMatchObject({ name: 'deploy', roles: ['issuer'], previous_key_id: spare.key_id })
    const overlapEnd = Date.parse(fresh.previous_key_revoked_at)
    expect(overlapEnd - Date.parse(fresh.created_at)).toBe(3_600_000)
    for (const key of [spare.api_key, fresh.api_key])
      expect((await shared.home.run(['whoami'], as(key))).exitCode).toBe(0)

    // Rerolling with no overlap cuts the old key off at once: a pipe must say --yes.
    const unconfirmed = await shared.home.run(['keys', 'reroll', fresh.key_id], as(owner))
    expect(unconfirmed.exitCode).toBe(2)
    expect(unconfirmed.stderr).toMatch(/without --yes/)
    const again = await shared.home.run(['keys', 'reroll', fresh.key_id, '--yes', '--json'], as(owner))
    expect(again.exitCode, again.stderr).toBe(0)
    const third = JSON.parse(again.stdout)
    const gone = await shared.home.run(['whoami'], as(fresh.api_key))
    expect(gone.exitCode).toBe(3)
    expect(gone.stderr).toMatch(/hint: use the key that replaced it/)
    expect((await shared.home.run(['whoami'], as(third.api_key))).exitCode).toBe(0)

    const twice = await shared.home.run(['keys', 'reroll', spare.key_id, '--overlap', '1h'], as(owner))
    expect(twice.exitCode).toBe(5)
    expect(twice.stderr).toContain(
      `hint: reroll its replacement instead: \`rwa keys reroll ${fresh.key_id}\``,
    )

    const bad = await shared.home.run(['keys', 'reroll', third.key_id, '--overlap', 'soon'], as(owner))
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/--overlap must be a duration such as 24h, 30m or 10s/)
  })

  it('a reroll whose answer was lost and is replayed without its key says so, what to do, and exits 5', async () => {
    const owner = await newOrg(shared.server.url, shared.server.adminKey, 'cli-reroll-lost')
    const spare = JSON.parse(
      (await shared.home.run(['keys', 'create', '--name', 'deploy', '--json'], as(owner))).stdout,
    )
    const reroll = ['keys', 'reroll', spare.key_id, '--overlap', '10m', '--idempotency-key', 'rr-lost-1']
    const first = await shared.home.run([...reroll, '--json'], as(owner))
    expect(first.exitCode, first.stderr).toBe(0)
    const fresh = JSON.parse(first.stdout)

    // The same command again (the first answer lost on the way): the replay carries api_key null.
    for (const extra of [[], ['--json'], ['-q']]) {
      const replay = await shared.home.run([...reroll, ...extra], as(owner))
      expect(replay.exitCode, `${extra} ${replay.stderr}`).toBe(5)
      expect(replay.stderr).toContain(
        `error: the new key ${fresh.key_id} was shown only in the first answer to --idempotency-key rr-lost-1, and cannot be recovered`,
      )
      expect(replay.stderr).toContain(
        `hint: the old key ${spare.key_id} still works until ${fresh.previous_key_revoked_at}: with it, make a new key now`,
      )
      expect(replay.stderr).toContain(`rwa keys revoke ${fresh.key_id}`)
      expect(replay.stdout).not.toContain(fresh.api_key)
      if (extra[0] === '--json') expect(JSON.parse(replay.stdout)).toMatchObject({ api_key: null })
    }
    // What the hint says works: the old key still acts.
    expect((await shared.home.run(['whoami'], as(spare.api_key))).exitCode).toBe(0)
  })

  it('with the admin key, keys create without --org refuses instead of minting an admin key', async () => {
    const run = await shared.home.run(['keys', 'create', '--name', 'x'], as(shared.server.adminKey))
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/hint: name it: `--org-id ORG` \(`--org-id admin` makes another admin key\)/)
    const admin = await shared.home.run(['whoami', '--json'], as(shared.server.adminKey))
    expect(JSON.parse(admin.stdout)).toMatchObject({ org_id: 'admin', admin: true, roles: ['owner'] })
  })
})
