import SQLite from 'better-sqlite3'
import { execa } from 'execa'
import { describe, expect, it } from 'vitest'
import { RWA_BIN } from '../support/server-process.js'
import { newOrg, newOrgCli, tokenThroughCli, useServerAndHome } from '../support/cli.js'

/*
 * The CLI behaves differently on a terminal: color, prompts. These tests give it a real pseudo-terminal
 * with util-linux `script`, so "on a TTY" is checked, not assumed.
 */

const shared = useServerAndHome()

const ESC = '\x1b['
const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`

/**
 * Runs `rwa ARGS` on a pseudo-terminal (stdin and stdout are both TTYs) of `columns` columns (`stty`
 * sets the size the CLI reads), typing `keys` into it.
 */
async function onTerminal(args: string[], env: Record<string, string> = {}, keys?: string, columns?: number) {
  const rwa = [process.execPath, RWA_BIN, ...args].map(quote).join(' ')
  const command = columns ? `stty cols ${columns} rows 50 && ${rwa}` : rwa
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

  it('rwa audit export counts what it fetched, singular for one', async () => {
    // A new organization: its log holds one entry (key.created), and no record.
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'progress-one')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const tty = await onTerminal(['audit', 'export', '--out', `${shared.home.dir}/progress-one`], env)
    expect(tty.exitCode, tty.output).toBe(0)
    expect(tty.output).toMatch(/fetched 0 credentials/)
    expect(tty.output).toMatch(/fetched 1 of 1 log entry…/)
    expect(tty.output).toMatch(/exported 1 log entry, 0 credentials/)
  })
})

/** What a person sees: escapes and carriage returns removed. */
const screen = (output: string) =>
  output
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping terminal escapes
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .replaceAll('\r', '')

describe('width', () => {
  it('on an 80-column terminal, a transfer with its compliance checks fits, every DID and reason whole', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'narrow')
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${shared.server.url}/console/rwa/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(body),
      })
      expect(response.status, await response.clone().text()).toBe(201)
      return (await response.json()) as Record<string, any>
    }
    await post('jurisdictions', {
      jurisdiction_id: 'US',
      name: 'United States',
      regulatory_body: 'SEC',
      transfer_requirements: ['kyc', 'aml'],
    })
    await post('jurisdictions', {
      jurisdiction_id: 'SG',
      name: 'Singapore',
      regulatory_body: 'MAS',
      transfer_requirements: ['kyc', 'investor_qualification'],
    })
    await post('jurisdictions/trust', { from_jurisdiction: 'US', to_jurisdiction: 'SG' })
    const recipient = 'did:web:acme-international-holdings:treasury-operations'
    await post('attestations', {
      jurisdiction: 'US',
      subject_did: recipient,
      type: 'kyc',
      attester: 'Onfido',
    })
    const credential = await post('credentials', {
      jurisdiction: 'US',
      owner_did: 'did:web:acme:alice',
      property_data: {
        address: '600 Congress Ave, Austin, TX 78701',
        type: 'office',
        value_usd: 48_500_000,
        title_deed: 'TX-1',
      },
    })
    const token = await post('tokenize', { credential_id: credential.credential_id, total_supply: 1000 })
    const transfer = await post('transfers', {
      token_id: token.token_id,
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      recipient_did: recipient,
      amount: 10,
    })
    expect(transfer.status).toBe('rejected')

    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    for (const args of [
      ['transfers', 'get', transfer.transfer_id],
      ['tokens', 'get', token.token_id],
      ['pricing'],
    ]) {
      const run = await onTerminal(args, env, undefined, 80)
      expect(run.exitCode, run.output).toBe(0)
      const lines = screen(run.output).split('\n')
      for (const line of lines) expect([...line].length, `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(80)
      expect(run.output).not.toMatch(/[│┌└]/)
    }
    const detail = screen(
      (await onTerminal(['transfers', 'get', transfer.transfer_id], env, undefined, 80)).output,
    )
    // Whole values survive the fitting: the DID on one line, each failing reason readable in full.
    expect(detail).toContain(recipient)
    const flat = detail.replace(/\s+/g, ' ')
    for (const check of transfer.compliance_details.checks as Array<{ reason: string }>) {
      expect(flat).toContain(check.reason)
    }
  })
})

describe('frozen holders', () => {
  it('rwa tokens frozen-holders is a titled table on a terminal, with its footer', async () => {
    const rwa = await newOrgCli(shared, 'frozen-table')
    const holder = 'did:web:lion:bob'
    const { tokenId } = await tokenThroughCli(rwa, {
      owner: 'did:web:acme:alice',
      holders: [],
      titleDeed: 'FT-1',
    })
    await rwa.json(['tokens', 'freeze', tokenId, '--holder-did', holder])
    const run = await onTerminal(
      ['tokens', 'frozen-holders', tokenId],
      { RWA_URL: shared.server.url, RWA_API_KEY: rwa.key },
      undefined,
      80,
    )
    expect(run.exitCode, run.output).toBe(0)
    const lines = screen(run.output)
      .split('\n')
      .map((line) => line.trim())
    expect(lines.slice(0, 3)).toEqual(['frozen holders', 'holder_did', holder])
    expect(lines).toContain('1 of 1 frozen holder')
    expect(run.output).not.toContain('\t')

    // The history's details, one a line: the line breaks are the CLI's, not escaped as data.
    const history = await onTerminal(
      ['tokens', 'history', tokenId],
      { RWA_URL: shared.server.url, RWA_API_KEY: rwa.key },
      undefined,
      160,
    )
    expect(history.exitCode, history.output).toBe(0)
    expect(history.output).not.toContain('\\x0a')
    const shown = screen(history.output).split('\n')
    const frozen = shown.findIndex((line) => /\bholder_frozen\b/.test(line))
    expect(frozen, history.output).toBeGreaterThan(0)
    expect(shown[frozen]).toMatch(/holder_frozen\s+holder_did: did:web:lion:bob$/)
    expect(shown[frozen + 1]).toMatch(/^\s+reason: null$/)
  })
})

describe('interrupt', () => {
  it('Ctrl-C at a prompt exits 130 quietly', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'interrupted')
    const run = await onTerminal(['keys', 'create'], { RWA_URL: shared.server.url, RWA_API_KEY: key }, '\x03')
    expect(run.output).toMatch(/Name of the key/)
    expect(run.exitCode, run.output).toBe(130)
    expect(run.output).not.toMatch(/error:/)
    // Nothing was created.
    const listed = await shared.home.run(['keys', 'list', '--json'], {
      env: { RWA_URL: shared.server.url, RWA_API_KEY: key },
    })
    expect(JSON.parse(listed.stdout).total).toBe(1)
  })
})

describe('stored text', () => {
  it('reaches the screen escaped: a stored escape sequence and a bidi override are shown, not obeyed', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'escapes')
    // An 8-bit CSI "clear screen", an 8-bit OSC "set the window title", a right-to-left override: the
    // server stores them (it refuses C0 controls, not these), the terminal must not get them raw.
    const name = 'Evil\u009b2J\u009d0;pwned\u009c\u202eTXT.exe'
    const response = await fetch(`${shared.server.url}/console/rwa/jurisdictions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ jurisdiction_id: 'EV', name, regulatory_body: 'R' }),
    })
    expect(response.status).toBe(201)
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    for (const args of [
      ['jurisdictions', 'get', 'EV'],
      ['jurisdictions', 'list'],
    ]) {
      const run = await onTerminal(args, env, undefined, 200)
      expect(run.exitCode, run.output).toBe(0)
      expect(run.output, args.join(' ')).toContain('Evil\\x9b2J\\x9d0;pwned\\x9c\\u202eTXT.exe')
      for (const raw of ['\u009b', '\u009d', '\u009c', '\u202e']) expect(run.output).not.toContain(raw)
    }
    // Through a pipe the data is left as stored (TSV is data for programs, not for a screen).
    const piped = await shared.home.run(['jurisdictions', 'get', 'EV'], { env })
    expect(piped.stdout).toContain(name)
  })
})

describe('colors over escaped data', () => {
  it('rwa transfers list prints real colors in aligned columns, and a stored escape sequence escaped', async () => {
    const rwa = await newOrgCli(shared, 'colored-list')
    const bob = 'did:web:lion:bob'
    const { tokenId } = await tokenThroughCli(rwa, {
      owner: 'did:web:acme:alice',
      holders: [bob],
      titleDeed: 'CL-1',
    })
    const transfer = (to: string) => [
      'transfers',
      'request',
      '--token-id',
      tokenId,
      '--from',
      'US',
      '--to',
      'US',
      '--recipient-did',
      to,
      '--amount',
      '5',
    ]
    const approved = await rwa.json(transfer(bob))
    expect(approved.status).toBe('approved')
    const carol = 'did:web:lion:carol'
    const rejected = (await rwa.run([...transfer(carol), '--json'])).stdout
    expect(JSON.parse(rejected).status).toBe('rejected')
    // Text stored before the server refused control characters (or by a server that does not): the
    // CLI must show it, not obey it. An OSC "set the window title" and a CSI "clear the screen".
    const planted = 'did:web:lion:\x1b]0;pwned\x07eve\x1b[2J'
    const sqlite = new SQLite(shared.server.storage.dbPath!)
    try {
      const changed = sqlite
        .prepare('update transfers set recipient_did = ? where transfer_id = ?')
        .run(planted, JSON.parse(rejected).transfer_id)
      expect(changed.changes).toBe(1)
    } finally {
      sqlite.close()
    }

    const env = { RWA_URL: shared.server.url, RWA_API_KEY: rwa.key }
    const run = await onTerminal(['transfers', 'list'], env, undefined, 200)
    expect(run.exitCode, run.output).toBe(0)
    // The verdicts in real SGR sequences, never written out as text.
    expect(run.output).toContain('\x1b[32mapproved\x1b[39m')
    expect(run.output).toContain('\x1b[31mrejected\x1b[39m')
    expect(run.output).not.toContain('\\x1b[3')
    // The stored sequences shown as text, and nothing of them raw.
    expect(run.output).toContain('did:web:lion:\\x1b]0;pwned\\x07eve\\x1b[2J')
    expect(run.output).not.toContain('\x1b]0;')
    expect(run.output).not.toContain('\x1b[2J')
    // Every column starts where its header does.
    const lines = screen(run.output).split('\n')
    const head = lines.find((line) => line.startsWith('transfer_id'))!
    const rows = lines.filter((line) => line.startsWith('tx_'))
    expect(rows).toHaveLength(2)
    for (const column of ['status', 'token_id', 'amount', 'recipient_did']) {
      const at = head.indexOf(column)
      for (const row of rows) {
        expect(row.slice(at - 2, at), `${column} in ${row}`).toBe('  ')
        expect(row[at], `${column} in ${row}`).not.toBe(' ')
      }
    }
    for (const row of rows) expect(row.indexOf(tokenId)).toBe(head.indexOf('token_id'))

    // NO_COLOR: no escape sequence at all, the stored one still shown escaped.
    const plain = await onTerminal(['transfers', 'list'], { ...env, NO_COLOR: '1' }, undefined, 200)
    expect(plain.exitCode, plain.output).toBe(0)
    expect(plain.output).not.toContain(ESC)
    expect(plain.output).toContain('did:web:lion:\\x1b]0;pwned\\x07eve\\x1b[2J')
    expect(plain.output).toMatch(/\brejected\b/)

    // A record: the status of a transfer and of a credential, colored for real.
    const detail = await onTerminal(['transfers', 'get', approved.transfer_id], env, undefined, 200)
    expect(detail.output).toContain('\x1b[32mapproved\x1b[39m')
    // A check that held reads yes in the colour of approved, one that failed no in that of rejected
    // (all_satisfied and each check's satisfied alike); never yes in the yellow of a warning.
    expect(detail.output).toContain('\x1b[32myes\x1b[39m')
    expect(detail.output).not.toContain('\x1b[33myes')
    const refused = await onTerminal(
      ['transfers', 'get', JSON.parse(rejected).transfer_id],
      env,
      undefined,
      200,
    )
    expect(refused.output).toContain('\x1b[31mno\x1b[39m')
    expect(refused.output).toContain('\x1b[32myes\x1b[39m')
    const credentials = await rwa.json(['credentials', 'list'])
    const credential = await onTerminal(
      ['credentials', 'get', credentials.credentials[0].credential_id],
      env,
      undefined,
      200,
    )
    expect(credential.output).toContain('\x1b[32mactive\x1b[39m')
    expect(credential.output).not.toContain('\\x1b')
  })
})
