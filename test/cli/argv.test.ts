import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Command } from 'commander'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiProblemError, ConnectionError } from '../../src/client/errors.js'
import { resolveConnection } from '../../src/cli/context.js'
import { ExitError } from '../../src/cli/exit-error.js'
import { CommandFailure, describeFailure } from '../../src/cli/failure.js'
import { buildProgram } from '../../src/cli/main.js'
import { colorEnabled } from '../../src/cli/output.js'
import { ERROR_STATUS, problemType, REASONS, type Reason } from '../../src/contract/errors.js'

/** Parses argv with the real program, capturing the leaf command's arguments and merged options. */
async function parse(
  argv: string[],
): Promise<{ path: string; args: unknown[]; options: Record<string, unknown> }> {
  const program = buildProgram()
  let captured: { path: string; args: unknown[]; options: Record<string, unknown> } | undefined
  const hook = (command: Command, path: string) => {
    for (const sub of command.commands) {
      const subPath = `${path} ${sub.name()}`.trim()
      if (sub.commands.length === 0) {
        sub.action((...all: unknown[]) => {
          const cmd = all.at(-1) as Command
          captured = { path: subPath, args: all.slice(0, -2), options: cmd.optsWithGlobals() }
        })
      }
      hook(sub, subPath)
    }
  }
  hook(program, '')
  await program.parseAsync(['node', 'rwa', ...argv])
  if (!captured) throw new Error('no command ran')
  return captured
}

describe('argv -> command and options', () => {
  const table: Array<[string[], string, unknown[], Record<string, unknown>]> = [
    [['keys', 'list'], 'keys list', [], { color: true, input: true }],
    [['keys', 'list', '--org-id', 'acme', '--json'], 'keys list', [], { orgId: 'acme', json: true }],
    // Global options are accepted before or after the subcommand.
    [['--json', '--url', 'http://h:1', 'pricing'], 'pricing', [], { json: true, url: 'http://h:1' }],
    [
      ['keys', 'create', '--name', 'ci', '--start-trial', '--org-id', 'a'],
      'keys create',
      [],
      { name: 'ci', startTrial: true, orgId: 'a' },
    ],
    [['keys', 'revoke', 'key_1', '-y'], 'keys revoke', ['key_1'], { yes: true }],
    [
      ['usage', '--days', '7', '--no-color', '--no-input'],
      'usage',
      [],
      { days: '7', color: false, input: false },
    ],
    [['subscription', 'get', 'acme'], 'subscription get', ['acme'], {}],
    [
      [
        'jurisdictions',
        'register',
        '--jurisdiction-id',
        'US',
        '--transfer-requirements',
        'kyc,aml',
        '--transfer-requirements',
        'x',
      ],
      'jurisdictions register',
      [],
      { jurisdictionId: 'US', transferRequirements: ['kyc,aml', 'x'] },
    ],
    [['jurisdictions', 'update', 'US', '--name', 'X'], 'jurisdictions update', ['US'], { name: 'X' }],
    [
      ['trust', 'establish', '--from', 'US', '--to', 'SG', '--mutual'],
      'trust establish',
      [],
      { from: 'US', to: 'SG', mutual: true },
    ],
    [
      ['credentials', 'list', '--owner-did', 'did:web:a:b', '--all', '--limit', '10'],
      'credentials list',
      [],
      { ownerDid: 'did:web:a:b', all: true, limit: '10' },
    ],
    [
      ['credentials', 'issue', '--value-usd', '1.5', '-f', 'body.json'],
      'credentials issue',
      [],
      { valueUsd: '1.5', file: 'body.json' },
    ],
    [
      ['transfers', 'request', '--token-id', 'tok_1', '--amount', '5'],
      'transfers request',
      [],
      { tokenId: 'tok_1', amount: '5' },
    ],
    [['proofs', 'verify', '-'], 'proofs verify', ['-'], {}],
    [['apply', '-f', 'm.yaml', '--dry-run'], 'apply', [], { file: 'm.yaml', dryRun: true }],
    [['sandbox', '--demo'], 'sandbox', [], { demo: true }],
    [['sandbox', '--port', '0', '--db', 'x.db'], 'sandbox', [], { port: '0', db: 'x.db' }],
    // `rwa dev issuer` alone is `rwa dev issuer start`, its flags included.
    [['dev', 'issuer', '--port', '0', '--dir', 'd'], 'dev issuer start', [], { port: '0', dir: 'd' }],
    [
      ['dev', 'issuer', 'issue', '--subject', 'did:web:a:b', '--type', 'A', '--type', 'B'],
      'dev issuer issue',
      [],
      { subject: 'did:web:a:b', type: ['A', 'B'] },
    ],
    [['dev', 'issuer', 'revoke', 'vc-1'], 'dev issuer revoke', ['vc-1'], {}],
    [
      ['config', 'set', 'prod', '--url', 'https://x', '--api-key-stdin', '--use'],
      'config set',
      ['prod'],
      { url: 'https://x', apiKeyStdin: true, use: true },
    ],
    [['completion', 'zsh'], 'completion', ['zsh'], {}],
  ]
  it.each(table)('%j runs %s', async (argv, path, args, options) => {
    const parsed = await parse(argv)
    expect(parsed.path).toBe(path)
    expect(parsed.args).toEqual(args)
    expect(parsed.options).toMatchObject(options)
  })

  it('sandbox has no built-in host, port or database: they fall back to RWA_HOST, RWA_PORT, RWA_DB', async () => {
    const { options } = await parse(['sandbox'])
    expect(options.host).toBeUndefined()
    expect(options.port).toBeUndefined()
    expect(options.db).toBeUndefined()
  })

  it('rejects an unknown option and a missing required one as usage errors', async () => {
    await expect(parse(['keys', 'list', '--bogus'])).rejects.toMatchObject({
      code: 'commander.unknownOption',
    })
    await expect(parse(['apply'])).rejects.toMatchObject({ code: 'commander.missingMandatoryOptionValue' })
  })
})

describe('--help lists commands first (like gh)', () => {
  /** The --help of the command at `path`, as commander prints it. */
  function helpOf(path: string[]): string {
    let command: Command = buildProgram()
    for (const name of path) command = command.commands.find((c) => c.name() === name)!
    let help = ''
    command.configureOutput({ writeOut: (s) => (help += s) }).outputHelp()
    return help
  }

  it('a group: its commands, then its own options; the global ones are behind `rwa --help`', () => {
    const help = helpOf(['transfers'])
    expect(help.indexOf('Commands:')).toBeGreaterThan(0)
    expect(help.indexOf('Commands:')).toBeLessThan(help.indexOf('Options:'))
    expect(help).not.toMatch(/Global Options:/)
    expect(help).not.toMatch(/^ {2}--api-key-file/m)
    expect(help).toMatch(/`rwa --help` lists them\.\n$/)
  })

  it('the root: commands before the global options', () => {
    const help = helpOf([])
    expect(help.indexOf('Commands:')).toBeLessThan(help.indexOf('Options:'))
    expect(help).toMatch(/^ {2}--api-key-file <path>/m)
  })

  it('a command: its options, then the global ones', () => {
    const help = helpOf(['transfers', 'request'])
    expect(help.indexOf('Options:')).toBeLessThan(help.indexOf('Global Options:'))
    expect(help).toMatch(/^ {2}--amount <n> +whole units to move \(required\)$/m)
  })

  it('apply says its manifest takes tokens', () => {
    const help = helpOf(['apply'])
    expect(help).toMatch(/attestations and tokens/)
    expect(help).toMatch(
      /^ {2}tokens: +\[\{ credential: REF \| credential_id, total_supply, symbol\?, rules\? \}\]$/m,
    )
  })
})

describe('connection precedence: flag > env > profile > default', () => {
  let dir: string
    const keyA = `rwa_live_${'a'.repeat(43)}`
  const keyB = `rwa_live_${'b'.repeat(43)}`
  const keyC = `rwa_live_${'c'.repeat(43)}`
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rwa-conn-'))
    vi.stubEnv('XDG_CONFIG_HOME', dir)
    mkdirSync(join(dir, 'rwa'))
    writeFileSync(
      join(dir, 'rwa', 'config.json'),
      JSON.stringify({
        current_profile: 'main',
        profiles: { main: { url: 'http://profile:1', api_key: keyC }, other: { url: 'http://other:1' } },
      }),
    )
  })
  afterEach(() => {
    vi.unstubAllEnvs()
    rmSync(dir, { recursive: true, force: true })
  })

  it('uses the current profile when nothing else is given', async () => {
    expect(await resolveConnection({}, {})).toMatchObject({
      url: 'http://profile:1',
      urlSource: 'profile',
      apiKey: keyC,
      apiKeySource: 'profile',
      profileName: 'main',
    })
  })
  it('the environment wins over the profile, and flags over the environment', async () => {
    const env = { RWA_URL: 'http://env:1', RWA_API_KEY: keyB }
    expect(await resolveConnection({}, env)).toMatchObject({
      url: 'http://env:1',
      apiKey: keyB,
      apiKeySource: 'env',
    })
    expect(await resolveConnection({ url: 'http://flag:1', apiKey: keyA }, env)).toMatchObject({
      url: 'http://flag:1',
      urlSource: 'flag',
      apiKey: keyA,
      apiKeySource: 'flag',
    })
  })
  it('RWA_PROFILE and --profile pick another profile; --profile wins', async () => {
    expect(await resolveConnection({}, { RWA_PROFILE: 'other' })).toMatchObject({
      url: 'http://other:1',
      apiKey: undefined,
    })
    expect(await resolveConnection({ profile: 'main' }, { RWA_PROFILE: 'other' })).toMatchObject({
      url: 'http://profile:1',
    })
  })
  it('defaults to the local server without any profile', async () => {
    rmSync(join(dir, 'rwa', 'config.json'))
    expect(await resolveConnection({}, {})).toMatchObject({
      url: 'http://127.0.0.1:4600',
      urlSource: 'default',
      apiKey: undefined,
    })
  })
  it('naming a missing profile, two key sources, or a bad URL is a usage error', async () => {
    await expect(resolveConnection({ profile: 'nope' }, {})).rejects.toMatchObject({ code: 2 })
    await expect(resolveConnection({ apiKey: keyA, apiKeyStdin: true }, {})).rejects.toMatchObject({
      code: 2,
    })
    await expect(resolveConnection({ url: 'ftp://x' }, {})).rejects.toBeInstanceOf(ExitError)
  })
})

describe('color decision', () => {
  it.each([
    [{ color: true, env: {}, isTTY: true }, true],
    [{ color: true, env: { NO_COLOR: '1' }, isTTY: true }, false],
    [{ color: true, env: { TERM: 'dumb' }, isTTY: true }, false],
    [{ color: false, env: {}, isTTY: true }, false],
    [{ color: true, env: {}, isTTY: false }, false],
    [{ color: true, env: {}, isTTY: undefined }, false],
  ])('%j -> %s', (input, expected) => {
    expect(colorEnabled(input)).toBe(expected)
  })
})

describe('failure -> exit code', () => {
  const problem = (reason: Reason, errors?: Array<{ path: string; message: string }>) => {
    const code = REASONS[reason].code
    return new ApiProblemError({
      type: problemType(code),
      title: code,
      status: ERROR_STATUS[code],
      detail: `the ${reason} detail`,
      code,
      reason,
      context: {},
      errors,
    })
  }
  it.each([
    ['invalid_field', 2],
    ['credential_type_not_accepted', 2],
    ['key_unknown', 3],
    ['other_organization', 3],
    ['plan_required', 3],
    ['token_not_found', 4],
    ['route_not_found', 2],
    ['jurisdiction_exists', 5],
    ['max_dids', 5],
    ['rate_limited', 5],
    ['internal', 1],
    ['starting', 7],
  ] as const)('%s exits %i with the detail and a hint', (reason, exit) => {
    const failure = describeFailure(
      new CommandFailure(problem(reason), { command: 'tokens get', fields: [], args: [], argumentNames: [] }),
    )
    expect(failure.code).toBe(exit)
    expect(failure.message).toBe(`the ${reason} detail`)
    expect(failure.hint).toBeTruthy()
  })
  it('names the failing fields of a validation error', () => {
    const failure = describeFailure(
      problem('invalid_field', [{ path: 'property_data.value_usd', message: 'Too small' }]),
    )
    expect(failure.message).toBe('property_data.value_usd: Too small')
  })
  it('cannot reach the server: 7; anything else: 1', () => {
    expect(describeFailure(new ConnectionError('http://x', 'ECONNREFUSED')).code).toBe(7)
    expect(describeFailure(new Error('boom'))).toMatchObject({ code: 1, message: 'boom' })
  })
})
