import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { RWA_BIN } from '../support/server-process.js'

/*
 * The CI recipe of docs/cli.md, run by bash as it is written there (between its ci-recipe markers), so
 * the documentation cannot drift from what works: `rwa` on the PATH, RUNNER_TEMP and RWA_ADMIN_KEY as a
 * CI runner would have them, and the commands a pipeline would run next appended.
 */

vi.setConfig({ testTimeout: 60_000 })

const dir = mkdtempSync(join(tmpdir(), 'rwa-ci-recipe-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function recipe(): string {
  const doc = readFileSync(resolve(import.meta.dirname, '../../docs/cli.md'), 'utf8')
  const block = /<!-- ci-recipe:start -->\n```sh\n([\s\S]*?)```\n<!-- ci-recipe:end -->/.exec(doc)
  if (!block) throw new Error('docs/cli.md has no ci-recipe block between its markers')
  return block[1]!
}

/** A directory holding `rwa`, as `npm link` or a global install would put it on the PATH. */
function binDir(): string {
  const bin = join(dir, 'bin')
  if (!existsSync(bin)) {
    mkdirSync(bin)
    symlinkSync(RWA_BIN, join(bin, 'rwa'))
  }
  return bin
}

function runScript(script: string, env: Record<string, string>, name: string) {
  const cwd = join(dir, name)
  mkdirSync(cwd)
  return execa('bash', ['-eo', 'pipefail', '-c', script], {
    cwd,
    extendEnv: false,
    env: {
      PATH: `${binDir()}:${process.env.PATH ?? ''}`,
      HOME: cwd,
      XDG_CONFIG_HOME: join(cwd, 'config'),
      ...env,
    },
    reject: false,
    timeout: 45_000,
  })
}

const adminKey = () => `rwa_live_${randomBytes(32).toString('base64url')}`

describe('the CI recipe of docs/cli.md', () => {
  it('starts a server, exports its URL and the admin key for the CLI, and the URL file goes with the server', async () => {
    const runnerTemp = join(dir, 'runner-temp')
    mkdirSync(runnerTemp)
    const key = adminKey()
    const after = [
      'rwa whoami --json',
      'echo "url=$RWA_URL"',
      'cp "$url_file" url-while-running',
      'kill "$server_pid"',
      'wait "$server_pid" || true',
      '[ -e "$url_file" ] && echo "url file: left" || echo "url file: removed"',
    ].join('\n')
    const run = await runScript(
      `${recipe()}\n${after}\n`,
      { RUNNER_TEMP: runnerTemp, RWA_ADMIN_KEY: key },
      'works',
    )
    expect(run.exitCode, String(run.stderr)).toBe(0)
    const stdout = String(run.stdout)
    const url = /^url=(http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout)?.[1]
    expect(url, stdout).toBeDefined()
    expect(JSON.parse(stdout.slice(0, stdout.indexOf('\nurl=')))).toMatchObject({ org_id: 'admin' })
    expect(readFileSync(join(dir, 'works', 'url-while-running'), 'utf8')).toBe(`${url}\n`)
    expect(stdout).toMatch(/^url file: removed$/m)
  })

  it('fails within its bound, saying why and showing the log, when the server cannot start', async () => {
    const started = Date.now()
    const run = await runScript(
      recipe(),
      { RUNNER_TEMP: join(dir, 'no-such-directory'), RWA_ADMIN_KEY: adminKey() },
      'fails',
    )
    expect(run.exitCode).toBe(1)
    expect(String(run.stderr)).toMatch(/rwa server did not start within 15 s; its log:/)
    expect(String(run.stderr)).toMatch(/no-such-directory does not exist; nothing was started or created/)
    // The server exited at once, and the loop noticed instead of waiting out its 15 s.
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('stops at once without the admin key secret', async () => {
    const run = await runScript(recipe(), { RUNNER_TEMP: dir }, 'no-key')
    expect(run.exitCode).not.toBe(0)
    expect(String(run.stderr)).toMatch(/set RWA_ADMIN_KEY to a CI secret/)
  })
})
