import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'
import { type CliHome, cliHome, newOrg } from '../support/cli.js'

let server: ServerProcess
beforeAll(async () => {
  server = await startServerProcess()
})
afterAll(async () => {
  await server?.cleanup()
})

describe('rwa config (profiles)', () => {
  let home: CliHome
  beforeAll(() => {
    home = cliHome()
  })
  afterAll(() => home.cleanup())

  it('saves a profile with mode 0600, never echoes its key, and uses it; env and flags win over it', async () => {
    const key = await newOrg(server.url, server.adminKey, 'profiled')
    const saved = await home.run(['config', 'set', 'local', '--url', server.url, '--api-key-stdin'], {
      input: `${key}\n`,
    })
    expect(saved.exitCode, saved.stderr).toBe(0)
    expect(saved.stdout + saved.stderr).not.toContain(key)

    const file = join(home.configHome, 'rwa', 'config.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(home.configHome, 'rwa')).mode & 0o777).toBe(0o700)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      current_profile: 'local',
      profiles: { local: { url: server.url, api_key: key } },
    })

    const list = await home.run(['config', 'list', '--json'])
    expect(list.stdout).not.toContain(key)
    expect(JSON.parse(list.stdout).profiles.local.api_key).toBe(`${key.slice(0, 12)}...`)

    // The profile alone is enough to reach the server.
    const viaProfile = await home.run(['keys', 'list', '--json'])
    expect(viaProfile.exitCode, viaProfile.stderr).toBe(0)
    expect(JSON.parse(viaProfile.stdout).keys[0].org_id).toBe('profiled')

    // RWA_URL beats the profile (nothing listens on port 9), and --url beats RWA_URL.
    expect((await home.run(['keys', 'list'], { env: { RWA_URL: 'http://127.0.0.1:9' } })).exitCode).toBe(7)
    const flagWins = await home.run(['keys', 'list', '--url', server.url], {
      env: { RWA_URL: 'http://127.0.0.1:9' },
    })
    expect(flagWins.exitCode, flagWins.stderr).toBe(0)

    const show = JSON.parse(
      (await home.run(['config', 'show', '--json'], { env: { RWA_URL: 'http://127.0.0.1:9' } })).stdout,
    )
    expect(show).toMatchObject({
      profile: 'local',
      url: 'http://127.0.0.1:9',
      url_source: 'env',
      api_key_source: 'profile',
    })
    expect(show.api_key).toBe(`${key.slice(0, 12)}...`)
  })

  it('switches profiles, removes one only with --yes, and refuses a malformed key or file', async () => {
    const other = cliHome()
    try {
      expect((await other.run(['config', 'set', 'a', '--url', 'http://a.example'])).exitCode).toBe(0)
      expect((await other.run(['config', 'set', 'b', '--url', 'http://b.example'])).exitCode).toBe(0)
      expect(JSON.parse((await other.run(['config', 'show', '--json'])).stdout).url).toBe('http://a.example')
      expect((await other.run(['config', 'use', 'b'])).exitCode).toBe(0)
      expect(JSON.parse((await other.run(['config', 'show', '--json'])).stdout).url).toBe('http://b.example')
      expect(
        JSON.parse((await other.run(['config', 'show', '--json'], { env: { RWA_PROFILE: 'a' } })).stdout).url,
      ).toBe('http://a.example')

      const unconfirmed = await other.run(['config', 'remove', 'a'])
      expect(unconfirmed.exitCode).toBe(2)
      expect((await other.run(['config', 'remove', 'a', '--yes'])).exitCode).toBe(0)
      expect(
        Object.keys(JSON.parse((await other.run(['config', 'list', '--json'])).stdout).profiles),
      ).toEqual(['b'])

      // A name that names no profile is one usage error (exit 2), wherever it was named.
      const unknown = [
        await other.run(['config', 'use', 'nope']),
        await other.run(['config', 'remove', 'nope', '--yes']),
        await other.run(['--profile', 'nope', 'pricing']),
        await other.run(['pricing'], { env: { RWA_PROFILE: 'nope' } }),
      ]
      for (const run of unknown) {
        expect(run.exitCode, run.stderr).toBe(2)
        expect(run.stderr).toBe(unknown[0]!.stderr)
      }
      expect(unknown[0]!.stderr).toMatch(
        /^error: no profile named nope in .*config\.json\nhint: list profiles with `rwa config list`/,
      )

      const badKey = await other.run(['config', 'set', 'c', '--api-key-stdin'], { input: 'not-a-key' })
      expect(badKey.exitCode).toBe(2)
      expect(badKey.stderr).toMatch(/malformed/)

      mkdirSync(join(other.configHome, 'rwa'), { recursive: true })
      writeFileSync(join(other.configHome, 'rwa', 'config.json'), '{ not json')
      const corrupt = await other.run(['pricing'])
      expect(corrupt.exitCode).toBe(2)
      expect(corrupt.stderr).toMatch(/config\.json is not valid JSON/)
    } finally {
      other.cleanup()
    }
  })
})

describe('rwa completion and version', () => {
  let home: CliHome
  beforeAll(() => {
    home = cliHome()
  })
  afterAll(() => home.cleanup())

  /** Sources the generated bash script in a real bash and asks it to complete `words`. */
  async function complete(words: string[]): Promise<string[]> {
    const script = (await home.run(['completion', 'bash'])).stdout
    const file = join(home.dir, 'rwa.bash')
    writeFileSync(file, script)
    const array = words.map((w) => `'${w}'`).join(' ')
    const { stdout } = await execa('bash', [
      '-c',
      `source ${file}; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _rwa; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ])
    return stdout.split('\n').filter(Boolean)
  }

  it('completes command groups, subcommands and their flags', async () => {
    expect(await complete(['rwa', 'tr'])).toEqual(['trust', 'transfers', 'trust-bundle'])
    expect(await complete(['rwa', 'keys', ''])).toEqual(expect.arrayContaining(['list', 'create', 'revoke']))
    expect(await complete(['rwa', 'transfers', 'request', '--t'])).toEqual(['--token-id', '--to'])
    expect(await complete(['rwa', '--json', 'proofs', 'v'])).toEqual(['verify'])
  })

  it("offers a renamed flag by its field's name, not by the old spelling it still takes", async () => {
    const offered = await complete(['rwa', 'keys', 'create', '--'])
    expect(offered).toEqual(expect.arrayContaining(['--org-id', '--start-trial', '--roles']))
    expect(offered.filter((f) => ['--org', '--trial', '--role'].includes(f))).toEqual([])
  })

  it('zsh gets the same table through bashcompinit; other shells are a usage error', async () => {
    const zsh = await home.run(['completion', 'zsh'])
    expect(zsh.stdout).toMatch(/^# rwa zsh completion/)
    expect(zsh.stdout).toContain('bashcompinit')
    expect(zsh.stdout).toContain('complete -o default -F _rwa rwa')
    expect((await home.run(['completion', 'fish'])).exitCode).toBe(2)
  })

  it('prints its version with `version` and `--version`', async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
      version: string
    }
    expect((await home.run(['version'])).stdout.trim()).toBe(pkg.version)
    expect((await home.run(['--version'])).stdout.trim()).toBe(pkg.version)
  })
})
