import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { execa } from 'execa'
import { afterAll, describe, expect, it } from 'vitest'
import { RWA_BIN } from '../support/server-process.js'
import { cliHome } from '../support/cli.js'

const home = cliHome()
afterAll(() => home.cleanup())

const RECORDER = resolve(import.meta.dirname, '../support/record-imports.mjs')

const BUNDLE = `${resolve(import.meta.dirname, '../../dist/cli')}/`

/**
 * The modules a loaded file stands for: bin/rwa runs the bundle in dist/cli (rolldown.config.mjs), whose
 * chunks each hold several modules; a chunk's source map names them (dist/src/..., node_modules/...).
 */
function modulesOf(url: string): string[] {
  if (!url.startsWith('file:')) return [url]
  const path = fileURLToPath(url)
  // rolldown's own runtime chunk (the CommonJS interop helpers) has no map: no module of ours or a package's.
  if (!path.startsWith(BUNDLE) || !existsSync(`${path}.map`)) return [url]
  const map = JSON.parse(readFileSync(`${path}.map`, 'utf8')) as { sources: string[] }
  return map.sources.map((source) => pathToFileURL(resolve(dirname(path), source)).href)
}

/** Runs bin/rwa with a module recorder and returns every module URL it loaded (a chunk's modules for a chunk). */
async function loadedModules(
  args: string[],
  name: string,
): Promise<{ exitCode: number; stdout: string; files: string[]; modules: string[] }> {
  const log = join(home.dir, `${name}.log`)
  const run = await execa(process.execPath, ['--import', RECORDER, RWA_BIN, ...args], {
    extendEnv: false,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home.dir,
      XDG_CONFIG_HOME: home.configHome,
      RWA_IMPORT_LOG: log,
    },
    reject: false,
  })
  const files = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))]
  return {
    exitCode: run.exitCode ?? -1,
    stdout: String(run.stdout),
    files,
    modules: files.flatMap(modulesOf),
  }
}

const HEAVY = [
  /\/dist\/server\//,
  /better-sqlite3/,
  /kysely/,
  /@inquirer\//,
  /\/hono\//,
  /undici/,
  /\/jose\//,
  /\/zod\//,
  /\/chalk\//,
]

describe('startup cost', () => {
  it('`rwa --help` loads neither the server, SQLite, inquirer, zod nor the HTTP client', async () => {
    const { exitCode, stdout, modules } = await loadedModules(['--help'], 'help')
    expect(exitCode).toBe(0)
    expect(stdout).toMatch(/Exit codes \(/)
    // The recorder works: it saw the CLI entry point and commander (both in the bundle's main chunk).
    expect(modules.some((m) => m.endsWith('/dist/src/cli/main.js'))).toBe(true)
    expect(modules.some((m) => m.includes('/commander/'))).toBe(true)
    for (const heavy of HEAVY)
      expect(
        modules.filter((m) => heavy.test(m)),
        String(heavy),
      ).toEqual([])
  })

  it('a subcommand --help loads no command module either', async () => {
    const { exitCode, stdout, modules } = await loadedModules(['transfers', 'request', '--help'], 'sub-help')
    expect(exitCode).toBe(0)
    expect(stdout).toMatch(/Examples:/)
    expect(modules.filter((m) => m.includes('/dist/src/cli/commands/'))).toEqual([])
    for (const heavy of HEAVY)
      expect(
        modules.filter((m) => heavy.test(m)),
        String(heavy),
      ).toEqual([])
  })

  it('`rwa server start --help` lists the server settings without loading the server', async () => {
    const { exitCode, stdout, modules } = await loadedModules(['server', 'start', '--help'], 'server-help')
    expect(exitCode).toBe(0)
    expect(stdout).toMatch(/RWA_ADMIN_KEY/)
    for (const heavy of HEAVY)
      expect(
        modules.filter((m) => heavy.test(m)),
        String(heavy),
      ).toEqual([])
  })

  it('a client command loads the client but not the server or SQLite', async () => {
    // Nothing listens on port 9: the command fails with 7 after loading what it needs.
    const { exitCode, files, modules } = await loadedModules(
      ['--url', 'http://127.0.0.1:9', 'pricing'],
      'pricing',
    )
    expect(exitCode).toBe(7)
    expect(modules.some((m) => m.endsWith('/dist/src/client/http.js'))).toBe(true)
    expect(modules.some((m) => m.includes('/node_modules/zod/'))).toBe(true)
    // ...from the bundle's chunks: not one of zod's ~95 files, nor one of ours, read on its own.
    expect(files.filter((f) => /\/node_modules\/|\/dist\/src\//.test(f))).toEqual([])
    expect(modules.filter((m) => /\/dist\/server\/|better-sqlite3|@inquirer\//.test(m))).toEqual([])
  })

  it('every command has --help with an example', async () => {
    const { buildProgram } = await import('../../src/cli/main.js')
    type Cmd = ReturnType<typeof buildProgram>
    const leaves: Array<{ path: string; command: Cmd }> = []
    const walk = (command: Cmd, path: string) => {
      const subs = command.commands.filter((c) => c.name() !== 'help')
      if (subs.length === 0) leaves.push({ path, command })
      for (const sub of subs) walk(sub, `${path} ${sub.name()}`.trim())
    }
    walk(buildProgram(), '')
    expect(leaves.length).toBeGreaterThan(40)
    for (const { path, command } of leaves) {
      let help = ''
      command.configureOutput({ writeOut: (s) => (help += s) }).outputHelp()
      expect(help, path).toMatch(/Examples:\n {2}\$ /)
    }
  })
})
