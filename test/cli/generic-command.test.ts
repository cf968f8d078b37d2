import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Command } from 'commander'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildProgram } from '../../src/cli/main.js'
import { command, declareGroup } from '../../src/cli/program/operation-command.js'
import { newOrg, useServerAndHome } from '../support/cli.js'

/*
 * A command of an operation that says nothing but its operation (and how its path parameter is written):
 * its flags, `--file`, `--all` and an example come from the operation's request, and it prints the answer
 * as it comes (src/cli/commands/generic.ts). This is what adding an operation's command costs.
 */

const shared = useServerAndHome()

let configHome: string
beforeAll(() => {
  configHome = mkdtempSync(join(tmpdir(), 'rwa-generic-'))
  vi.stubEnv('XDG_CONFIG_HOME', configHome)
})
afterAll(() => {
  vi.unstubAllEnvs()
  rmSync(configHome, { recursive: true, force: true })
})

/** The program with `rwa places` over the jurisdictions' operations, declared by operation alone. */
function program(): Command {
  const rwa = buildProgram()
  declareGroup(rwa.command('places').description('Jurisdictions, as any operation gets them'), {
    list: command({ operation: 'listJurisdictions' }),
    get: command({ operation: 'getJurisdiction', args: { id: '<jurisdiction_id>' } }),
    add: command({ operation: 'registerJurisdiction' }),
  })
  return rwa
}

/** Runs `rwa ARGS` in process, answering what it printed on stdout. */
async function run(key: string, args: string[]): Promise<string> {
  let out = ''
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk)
    return true
  })
  const quiet = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
  try {
    await program().parseAsync(['node', 'rwa', '--url', shared.server.url, '--api-key', key, ...args])
  } finally {
    write.mockRestore()
    quiet.mockRestore()
  }
  return out
}

describe('a command declared by its operation alone', () => {
  it('has a flag for each field, --file, --all and an example made of its required flags', () => {
    const places = program().commands.find((c) => c.name() === 'places')!
    const helpOf = (name: string) => {
      let help = ''
      places.commands
        .find((c) => c.name() === name)!
        .configureOutput({ writeOut: (s) => (help += s) })
        .outputHelp()
      return help
    }
    const add = helpOf('add')
    expect(add).toMatch(/--jurisdiction-id <id> +short code of the jurisdiction, e\.g\. US\s+\(required\)/)
    expect(add).toMatch(/--frameworks <list>/)
    expect(add).toMatch(/-f, --file <file>/)
    expect(add).toMatch(/\$ rwa places add --jurisdiction-id US --name 'United States' --regulatory-body SEC/)
    expect(helpOf('list')).toMatch(/--all +follow next_cursor/)
    expect(helpOf('get')).toMatch(/Usage: rwa places get \[options\] <jurisdiction_id>/)
  })

  it('sends its request and prints the answer: a record, or a list with every page', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'generic')
    const added = await run(key, [
      'places',
      'add',
      '--jurisdiction-id',
      'US',
      '--name',
      'United States',
      '--regulatory-body',
      'SEC',
      '--transfer-requirements',
      'kyc,aml',
    ])
    expect(added).toMatch(/^jurisdiction_id\tUS$/m)
    expect(added).toMatch(/^transfer_requirements\tkyc, aml$/m)
    await run(key, [
      'places',
      'add',
      '--jurisdiction-id',
      'SG',
      '--name',
      'Singapore',
      '--regulatory-body',
      'MAS',
    ])
    expect(await run(key, ['places', 'get', 'SG'])).toMatch(/^name\tSingapore$/m)
    expect(await run(key, ['places', 'get', 'SG', '-q'])).toBe('SG\n')
    const all = await run(key, ['places', 'list', '--limit', '1', '--all'])
    expect(all.split('\n')[0]).toMatch(/^jurisdiction_id\tname\tregulatory_body\t/)
    expect(all).toMatch(/^SG\tSingapore\tMAS\t/m)
    expect(all).toMatch(/^US\tUnited States\tSEC\t/m)
    expect(JSON.parse(await run(key, ['places', 'list', '--limit', '1', '--all', '--json']))).toMatchObject({
      jurisdictions: [{}, {}],
      next_cursor: null,
    })
  })
})
