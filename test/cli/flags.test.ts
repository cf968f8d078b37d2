import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Command } from 'commander'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { CommandFailure } from '../../src/cli/command-failure.js'
import { ExitError } from '../../src/cli/exit-error.js'
import { flagsOf, longOf } from '../../src/cli/flags/flag.js'
import { decimal, list, maxHolders, wholeNumber } from '../../src/cli/flags/parse.js'
import { buildProgram } from '../../src/cli/main.js'

/*
 * One flag table per command group (src/cli/flags/): each entry gives one request field, and the
 * commander option, the request, the prompt and the flag named in errors all come from it.
 */

/** Every command of the program with its path (`tokens rules set`). */
function commands(): Array<{ path: string; command: Command }> {
  const all: Array<{ path: string; command: Command }> = []
  const walk = (command: Command, path: string) => {
    for (const sub of command.commands) {
      const subPath = `${path} ${sub.name()}`.trim()
      all.push({ path: subPath, command: sub })
      walk(sub, subPath)
    }
  }
  walk(buildProgram(), '')
  return all
}

/** Options of a command with a table that give no request field. */
const NOT_FIELDS = new Set([
  '--file',
  '--all',
  '--clear',
  '--help',
  '--interval',
  '--lines',
  '--trust',
  '--forward-to',
  '--accept-new-origin',
])

let configHome: string
beforeAll(() => {
  configHome = mkdtempSync(join(tmpdir(), 'rwa-flags-'))
  vi.stubEnv('XDG_CONFIG_HOME', configHome)
})
afterAll(() => {
  vi.unstubAllEnvs()
  rmSync(configHome, { recursive: true, force: true })
})

/** Runs `rwa ARGS` in process and returns what it threw (every case here fails before or at the network). */
async function failureOf(args: string[]): Promise<CommandFailure> {
  const program = buildProgram()
  program.configureOutput({ writeErr: () => {}, writeOut: () => {} })
  try {
    await program.parseAsync(['node', 'rwa', ...args])
  } catch (error) {
    expect(error).toBeInstanceOf(CommandFailure)
    return error as CommandFailure
  }
  throw new Error(`rwa ${args.join(' ')} did not fail`)
}

// Nothing listens on port 9: a command that gets as far as sending fails there.
const UNREACHABLE = ['--url', 'http://127.0.0.1:9', '--api-key', `rwa_live_${'a'.repeat(43)}`]

describe('the flag table of a command is its options', () => {
  const withTables = commands().filter(({ command }) => flagsOf(command).length > 0)

  it('covers every command that sends a request body or filters a list', () => {
    const paths = withTables.map((c) => c.path)
    for (const path of [
      'keys create',
      'keys list',
      'subscription set',
      'usage',
      'jurisdictions register',
      'jurisdictions update',
      'jurisdictions list',
      'trust establish',
      'trust revoke',
      'credentials issue',
      'credentials revoke',
      'attestations submit',
      'tokens create',
      'tokens freeze',
      'tokens force-transfer',
      'tokens recover',
      'tokens rules set',
      'transfers request',
      'transfers check',
      'transfers list',
    ])
      expect(paths, path).toContain(path)
  })

  it.each(withTables.map((c) => [c.path, c.command] as const))(
    '%s: each flag declared once, nothing beside the table',
    (_, command) => {
      const table = flagsOf(command)
      const longs = table.map(longOf)
      expect(new Set(longs).size).toBe(longs.length)
      expect(new Set(table.map((f) => f.field)).size).toBe(table.length)
      const declared = command.options.map((o) => o.long!)
      for (const long of longs) expect(declared).toContain(long)
      // A renamed flag's earlier spelling is its table entry's too (docs/cli.md, "Renamed flags").
      const spellings = [...longs, ...table.flatMap((f) => f.aliases ?? [])]
      for (const long of declared) if (!NOT_FIELDS.has(long)) expect(spellings, long).toContain(long)
      let help = ''
      command.configureOutput({ writeOut: (s) => (help += s) }).outputHelp()
      const lines = help.split('\n')
      for (const flag of table) {
        const at = lines.findIndex((l) => l.trimStart().startsWith(flag.flag))
        expect(at, flag.flag).toBeGreaterThan(0)
        // Its help, wrapped lines included (they are indented past the flags).
        let entry = lines[at]!
        for (let i = at + 1; /^ {4,}\S/.test(lines[i] ?? ''); i++) entry += ` ${lines[i]!.trim()}`
        expect(entry.includes('(required)'), flag.flag).toBe(flag.prompt !== undefined)
      }
    },
  )
})

describe('the request is built from the table', () => {
  it('without a terminal, every missing required flag is named at once, before anything is sent', async () => {
    const failure = await failureOf(['transfers', 'request', '--token-id', 'tok_1', ...UNREACHABLE])
    expect(failure.error).toBeInstanceOf(ExitError)
    expect((failure.error as ExitError).code).toBe(2)
    expect((failure.error as ExitError).message).toBe(
      'missing required flags: --from, --to, --recipient-did, --amount',
    )
  })

  it('each flag sets its field, nested ones included, parsed by its parser', async () => {
    const failure = await failureOf([
      'credentials',
      'issue',
      '--jurisdiction',
      'US',
      '--owner-did',
      'did:web:acme:alice',
      '--address',
      '1 Main St',
      '--type',
      'office',
      '--value-usd',
      '2500000.5',
      '--title-deed',
      'T-1',
      ...UNREACHABLE,
    ])
    expect((failure.error as Error).name).toBe('ConnectionError')
    expect(failure.context.request?.body).toEqual({
      jurisdiction: 'US',
      owner_did: 'did:web:acme:alice',
      property_data: { address: '1 Main St', type: 'office', value_usd: 2500000.5, title_deed: 'T-1' },
    })
    expect([...(failure.context.request?.fromFlags ?? [])]).toContain('property_data.value_usd')
  })

  it('a repeated list flag collects its values; a boolean flag is true', async () => {
    const failure = await failureOf([
      'jurisdictions',
      'register',
      '--id',
      'US',
      '--name',
      'United States',
      '--regulatory-body',
      'SEC',
      '--transfer-requirements',
      'kyc, aml',
      '--transfer-requirements',
      'title_verification',
      ...UNREACHABLE,
    ])
    expect(failure.context.request?.body).toMatchObject({
      transfer_requirements: ['kyc', 'aml', 'title_verification'],
    })
    const trust = await failureOf([
      'trust',
      'establish',
      '--from',
      'US',
      '--to',
      'SG',
      '--mutual',
      ...UNREACHABLE,
    ])
    expect(trust.context.request?.body).toEqual({
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      mutual: true,
    })
  })

  it('a value its parser refuses is named by its flag', async () => {
    const failure = await failureOf([
      'tokens',
      'create',
      '--credential-id',
      'cred_1',
      '--total-supply',
      '1.5',
      ...UNREACHABLE,
    ])
    expect((failure.error as ExitError).message).toBe('--total-supply must be a whole number, got "1.5"')
  })
})

describe('parsers', () => {
  it('wholeNumber: a whole number JSON holds exactly, or one message with the value as typed', () => {
    expect(wholeNumber('250', '--amount')).toBe(250)
    expect(wholeNumber(' +5 ', '--amount')).toBe(5)
    expect(wholeNumber('9007199254740991', '--amount')).toBe(9007199254740991)
    expect(() => wholeNumber('9007199254740992', '--amount')).toThrow(
      '--amount must be at most 9007199254740991, got 9007199254740992',
    )
    expect(() => wholeNumber('-99999999999999999999', '--amount')).toThrow(
      '--amount must be at least -9007199254740991, got -99999999999999999999',
    )
    expect(() => wholeNumber('1e3', '--amount')).toThrow('--amount must be a whole number, got "1e3"')
  })

  it('decimal, list, maxHolders', () => {
    expect(decimal('1e3', '--value-usd')).toBe(1000)
    expect(() => decimal('1e400', '--value-usd')).toThrow('--value-usd must be a number, got "1e400"')
    expect(list(['a, b', 'c', ' '])).toEqual(['a', 'b', 'c'])
    expect(maxHolders('50', '--max-holders')).toBe(50)
    expect(maxHolders('US=2000, SG=50', '--max-holders')).toEqual({ US: 2000, SG: 50 })
    expect(() => maxHolders('US=x', '--max-holders')).toThrow(
      '--max-holders must be a number or JURISDICTION=N pairs, got "US=x"',
    )
  })
})

describe('a flag renamed to its field keeps its earlier spelling, hidden (docs/cli.md, "Renamed flags")', () => {
  it('--org, --trial and --role give org_id, start_trial and roles as --org-id, --start-trial and --roles do', async () => {
    const renamed = ['--org', 'acme', '--trial', '--role', 'agent', '--roles', 'transfers']
    const old = await failureOf(['keys', 'create', '--name', 'ci', ...renamed, ...UNREACHABLE])
    expect((old.error as Error).name).toBe('ConnectionError')
    expect(old.context.request?.body).toEqual({
      name: 'ci',
      org_id: 'acme',
      start_trial: true,
      roles: ['agent', 'transfers'],
    })
    // A refused field is named by its flag's name, whichever spelling gave it.
    expect(old.context.flagValues).toMatchObject({ '--org-id': 'acme', '--start-trial': true })
    // ...and called as typed.
    expect(old.context.spelled).toEqual({
      '--org-id': '--org',
      '--start-trial': '--trial',
      '--roles': '--role',
    })
    const current = await failureOf([
      'keys',
      'create',
      '--name',
      'ci',
      '--org-id',
      'acme',
      '--start-trial',
      '--roles',
      'agent,transfers',
      ...UNREACHABLE,
    ])
    expect(current.context.request?.body).toEqual(old.context.request?.body)
  })

  it('--id of jurisdictions register, --org of usage, subscription and the log', async () => {
    const register = await failureOf([
      'jurisdictions',
      'register',
      '--id',
      'US',
      '--name',
      'United States',
      '--regulatory-body',
      'SEC',
      ...UNREACHABLE,
    ])
    expect(register.context.request?.body).toMatchObject({ jurisdiction_id: 'US' })
    for (const args of [
      ['usage', '--org', 'acme'],
      ['subscription', 'set', '--org', 'acme', '--tier', 'pro'],
      ['log', 'inclusion', '--org', 'acme', '--index', '1', '--tree-size', '2'],
    ]) {
      const failure = await failureOf([...args, ...UNREACHABLE])
      expect((failure.error as Error).name, args.join(' ')).toBe('ConnectionError')
      expect(failure.context.request?.body, args.join(' ')).toMatchObject({ org_id: 'acme' })
    }
  })

  it('--help shows the field names alone', () => {
    for (const { path, command } of commands()) {
      let help = ''
      command.configureOutput({ writeOut: (s) => (help += s) }).outputHelp()
      const own = help.split('Global Options:')[0]!
      for (const old of ['--org ', '--trial', '--role ', '--id '])
        expect(own, `${path}: ${old}`).not.toContain(old)
    }
  })
})
