import { execa } from 'execa'
import { describe, expect, it } from 'vitest'
import { RWA_BIN } from '../support/server-process.js'
import { newOrg, useServerAndHome } from '../support/cli.js'

/*
 * The CLI behaves differently on a terminal: color, prompts. These tests give it a real pseudo-terminal
 * with util-linux `script`, so "on a TTY" is checked, not assumed.
 */

const shared = useServerAndHome()

const ESC = '\x1b['
const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`

/** Runs `rwa ARGS` on a pseudo-terminal (stdin and stdout are both TTYs), typing `keys` into it. */
async function onTerminal(args: string[], env: Record<string, string> = {}, keys?: string) {
  const command = [process.execPath, RWA_BIN, ...args].map(quote).join(' ')
  const child = execa('script', ['-qec', command, '/dev/null'], {
    extendEnv: false,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: shared.home.dir,
      XDG_CONFIG_HOME: shared.home.configHome,
      TERM: 'xterm-256color',
      ...env,
    },
    reject: false,
    timeout: 20_000,
    stdin: 'pipe',
  })
  if (keys !== undefined) {
    // Give the prompt time to draw before typing, as a person would.
    setTimeout(() => child.stdin?.write(keys), 1_500)
  } else child.stdin?.end()
  const result = await child
  return { exitCode: result.exitCode ?? -1, output: String(result.stdout) }
}

describe('color', () => {
  it('colors tables on a terminal, and not with NO_COLOR, TERM=dumb or --no-color', async () => {
    const env = { RWA_URL: shared.server.url }
    const colored = await onTerminal(['pricing'], env)
    expect(colored.exitCode, colored.output).toBe(0)
    expect(colored.output).toContain(ESC)

    for (const [label, args, extra] of [
      ['NO_COLOR', ['pricing'], { NO_COLOR: '1' }],
      ['TERM=dumb', ['pricing'], { TERM: 'dumb' }],
      ['--no-color', ['pricing', '--no-color'], {}],
    ] as const) {
      const plain = await onTerminal([...args], { ...env, ...extra })
      expect(plain.exitCode, label).toBe(0)
      expect(plain.output, label).toContain('Community')
      expect(plain.output, label).not.toContain(ESC)
    }
  })

  it('never colors when stdout is not a terminal', async () => {
    const run = await shared.home.run(['pricing'], { env: { RWA_URL: shared.server.url, FORCE_COLOR: '3' } })
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toContain('Community')
    expect(run.stdout + run.stderr).not.toContain(ESC)
  })
})

describe('prompts', () => {
  it('on a terminal, asks for a missing required field and uses the answer', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'prompted')
    const run = await onTerminal(
      ['keys', 'create', '--json'],
      { RWA_URL: shared.server.url, RWA_API_KEY: key },
      'typed-name\r',
    )
    expect(run.output).toMatch(/Name of the key/)
    expect(run.exitCode, run.output).toBe(0)
    expect(run.output).toMatch(/"name": "typed-name"/)
  })

  it('on a terminal with --no-input, fails listing the missing flags instead of asking', async () => {
    const run = await onTerminal(['keys', 'create', '--no-input'], {
      RWA_URL: shared.server.url,
      RWA_API_KEY: shared.server.adminKey,
    })
    expect(run.exitCode).toBe(2)
    expect(run.output).toMatch(/missing required flag: --name/)
    expect(run.output).not.toMatch(/Name of the key/)
  })
})

describe('progress', () => {
  it('--all shows page progress on a terminal and nothing of it in a pipe', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'progress')
    for (const id of ['AA', 'BB', 'CC']) {
      const response = await fetch(`${shared.server.url}/console/rwa/jurisdictions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ jurisdiction_id: id, name: id, regulatory_body: 'R' }),
      })
      expect(response.status).toBe(201)
    }
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const tty = await onTerminal(['jurisdictions', 'list', '--limit', '1', '--all'], env)
    expect(tty.exitCode, tty.output).toBe(0)
    expect(tty.output).toMatch(/fetched 1 of 3 jurisdictions/)
    expect(tty.output).toMatch(/fetched 2 of 3 jurisdictions/)
    expect(tty.output).toMatch(/3 of 3 jurisdictions/)
    const noColor = await onTerminal(['jurisdictions', 'list', '--limit', '1', '--all'], {
      ...env,
      NO_COLOR: '1',
    })
    expect(noColor.output).toMatch(/fetched 2 of 3 jurisdictions/)
    expect(noColor.output).not.toContain(ESC)

    const piped = await shared.home.run(['jurisdictions', 'list', '--limit', '1', '--all'], { env })
    expect(piped.exitCode).toBe(0)
    expect(piped.stderr).not.toMatch(/fetched/)
    expect(piped.stderr).toMatch(/3 of 3 jurisdictions/)
  })
})
