import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { bodyOfRow } from '../../src/cli/commands/imports.js'
import { CsvError, parseCsv } from '../../src/cli/csv.js'
import { api, newOrg, useServerAndHome } from '../support/cli.js'
import { buildWorld, RECIPIENT } from '../support/governance.js'
import { apiCaller } from '../support/harness.js'

vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()

describe('parseCsv (RFC 4180)', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, CRLF or LF, and skips blank lines', () => {
    const { header, rows } = parseCsv('a,b,c\r\n1,"x, y","say ""hi"""\r\n\n2,"two\nlines",\n')
    expect(header).toEqual(['a', 'b', 'c'])
    expect(rows).toEqual([
      { line: 2, values: { a: '1', b: 'x, y', c: 'say "hi"' } },
      { line: 4, values: { a: '2', b: 'two\nlines', c: '' } },
    ])
  })

  it('refuses what is not CSV, naming the line', () => {
    expect(() => parseCsv('a,b\n1,"open\n')).toThrow(CsvError)
    expect(() => parseCsv('a,b\n1,2,3\n')).toThrow('line 2: 3 fields where the header has 2')
    expect(() => parseCsv('a,a\n')).toThrow('names a twice')
    expect(() => parseCsv('a\nx"y\n')).toThrow('line 2')
  })

  it('makes request bodies: property fields nest, numbers are numbers, empty cells are left out', () => {
    expect(
      bodyOfRow('credentials', {
        jurisdiction: 'US',
        owner_did: 'did:web:a:b',
        address: '1 Main St',
        type: 'residential',
        value_usd: '250000',
        title_deed: 'D-1',
        valid_until: '',
      }),
    ).toEqual({
      jurisdiction: 'US',
      owner_did: 'did:web:a:b',
      property_data: { address: '1 Main St', type: 'residential', value_usd: 250000, title_deed: 'D-1' },
    })
    expect(bodyOfRow('transfers', { amount: '12', token_id: 'tok_1' })).toEqual({
      amount: 12,
      token_id: 'tok_1',
    })
  })
})

function credentialsCsv(rows: number): string {
  const lines = ['jurisdiction,owner_did,address,type,value_usd,title_deed']
  for (let i = 0; i < rows; i++)
    lines.push(`US,did:web:acme:owner${i % 7},"${i} Main St, Austin",residential,${100_000 + i},IMP-${i}`)
  // One refused row: an unknown jurisdiction.
  lines.push('XX,did:web:acme:owner0,"9 Side St",residential,1,IMP-bad')
  return `${lines.join('\n')}\n`
}

async function credentialCount(key: string): Promise<number> {
  return ((await api(shared.server.url, '/console/rwa/credentials?limit=1', key)) as { total: number }).total
}

/** A new organization with the jurisdiction US, and the environment that points the CLI at it. */
async function importingOrg(name: string) {
  const key = await newOrg(shared.server.url, shared.server.adminKey, name)
  await api(shared.server.url, '/console/rwa/jurisdictions', key, {
    method: 'POST',
    body: JSON.stringify({ jurisdiction_id: 'US', name: 'United States', regulatory_body: 'SEC' }),
  })
  return { key, env: { RWA_URL: shared.server.url, RWA_API_KEY: key } }
}

describe('rwa credentials import', () => {
  it('imports in chunks, lists the refused row, and a resumed run after an interruption creates nothing twice', async () => {
    const { key, env } = await importingOrg('importer')
    const file = join(shared.home.dir, 'credentials.csv')
    writeFileSync(file, credentialsCsv(24))

    const first = await shared.home.run(['credentials', 'import', file, '--chunk-size', '10', '--json'], {
      env,
    })
    expect(first.exitCode, first.stderr).toBe(6)
    const out = JSON.parse(first.stdout)
    expect(out).toMatchObject({ rows: 25, imported: 24, failed: 1 })
    expect(out.results[24]).toMatchObject({ line: 26, status: 404, reason: 'jurisdiction_not_found' })
    expect(out.results[0]).toMatchObject({ line: 2, status: 201, id: expect.stringMatching(/^cred_/) })
    expect(await credentialCount(key)).toBe(24)

    // An interruption after the server ran the last chunk but before the state file kept it: the
    // chunk is still written down as in flight, and the run sends it again as it was, whatever chunk
    // size it is given now (same rows, same Idempotency-Key: replayed).
    const stateDir = join(shared.home.dir, '.local', 'state', 'rwa', 'imports')
    const [stateFile] = readdirSync(stateDir)
    const statePath = join(stateDir, stateFile!)
    const state = JSON.parse(readFileSync(statePath, 'utf8'))
    expect(state).toMatchObject({ org_id: 'importer', kind: 'credentials', results: out.results })
    expect(state.pending).toBeUndefined()
    state.results = state.results.slice(0, 20)
    state.pending = { start: 20, size: 5 }
    writeFileSync(statePath, JSON.stringify(state))
    const resumed = await shared.home.run(['credentials', 'import', file, '--chunk-size', '3', '--json'], {
      env,
    })
    expect(resumed.exitCode, resumed.stderr).toBe(6)
    expect(JSON.parse(resumed.stdout).results).toEqual(out.results)
    expect(await credentialCount(key)).toBe(24)

    // With no state at all, every chunk is replayed by the server: still nothing twice.
    rmSync(statePath)
    const again = await shared.home.run(['credentials', 'import', file, '--chunk-size', '10', '--json'], {
      env,
    })
    expect(JSON.parse(again.stdout).results).toEqual(out.results)
    expect(await credentialCount(key)).toBe(24)

    // The same file into another organization is an import of its own, not the first one's results.
    const { key: other } = await importingOrg('importer-two')
    const elsewhere = await shared.home.run(['credentials', 'import', file, '--json'], {
      env: { ...env, RWA_API_KEY: other },
    })
    expect(elsewhere.exitCode, elsewhere.stderr).toBe(6)
    const theirs = JSON.parse(elsewhere.stdout).results
    expect(theirs.map((r: { status: number }) => r.status)).toEqual(out.results.map((r: any) => r.status))
    expect(theirs[0].id).not.toBe(out.results[0].id)
    expect(await credentialCount(other)).toBe(24)

    // A file that changed after an import of it is refused: its rows imported then would be again.
    writeFileSync(file, credentialsCsv(25))
    const changed = await shared.home.run(['credentials', 'import', file], { env })
    expect(changed.exitCode).toBe(2)
    expect(changed.stderr).toContain('changed since 24 of its rows were imported into importer')
    expect(changed.stderr).toContain('--again')
    expect(await credentialCount(key)).toBe(24)
    // --again sends every row: those the server refuses as duplicates (the title deeds) are listed.
    const forced = await shared.home.run(['credentials', 'import', file, '--again', '--json'], { env })
    expect(forced.exitCode, forced.stderr).toBe(6)
    expect(JSON.parse(forced.stdout)).toMatchObject({ rows: 26, imported: 1, failed: 25 })
    expect(await credentialCount(key)).toBe(25)

    // A CSV that is not one is exit 2, naming the line.
    writeFileSync(file, 'jurisdiction,owner_did\nUS\n')
    const bad = await shared.home.run(['credentials', 'import', file], { env })
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('line 2')
  })

  it('a row its schema refuses names its line; fixed, or with rows added, the file goes on after the rows done', async () => {
    const { key, env } = await importingOrg('fixer')
    const header = 'jurisdiction,owner_did,address,type,value_usd,title_deed'
    const row = (i: number, value = String(1000 + i)) =>
      `US,did:web:acme:owner${i % 3},"${i} Oak St",residential,${value},FIX-${i}`
    const lines = Array.from({ length: 25 }, (_, i) => row(i))
    lines[14] = row(14, '12k')
    const file = join(shared.home.dir, 'fixable.csv')
    writeFileSync(file, `${[header, ...lines].join('\n')}\n`)
    const refused = await shared.home.run(['credentials', 'import', file, '--chunk-size', '10'], { env })
    expect(refused.exitCode).toBe(2)
    // Row 15 of the file is its line 16: named so, not by its index in the batch.
    expect(refused.stderr).toContain(`${file} line 16: property_data.value_usd:`)
    expect(await credentialCount(key)).toBe(10)

    // A column the operation does not take is said once, with the lines it is on.
    const extra = join(shared.home.dir, 'extra-column.csv')
    writeFileSync(extra, `${[`${header},notes`, ...lines.slice(0, 8).map((l) => `${l},x`)].join('\n')}\n`)
    const unknown = await shared.home.run(['credentials', 'import', extra], { env })
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr).toContain(`${extra} lines 2, 3, 4, 5, 6 and 3 more: notes: Unknown field`)
    expect(unknown.stderr.match(/Unknown field/g)).toHaveLength(1)

    lines[14] = row(14)
    writeFileSync(file, `${[header, ...lines].join('\n')}\n`)
    const fixed = await shared.home.run(['credentials', 'import', file, '--chunk-size', '10', '--json'], {
      env,
    })
    expect(fixed.exitCode, fixed.stderr).toBe(0)
    expect(fixed.stderr).toContain('its first 10 rows are those done then')
    expect(JSON.parse(fixed.stdout)).toMatchObject({ rows: 25, imported: 25, failed: 0 })
    expect(await credentialCount(key)).toBe(25)

    writeFileSync(file, `${[header, ...lines, row(25), row(26)].join('\n')}\n`)
    const added = await shared.home.run(['credentials', 'import', file, '--json'], { env })
    expect(added.exitCode, added.stderr).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({ rows: 27, imported: 27, failed: 0 })
    expect(await credentialCount(key)).toBe(27)
  })

  it("waits for the organization's minute when a chunk meets the per-minute limit, and goes on by itself", async () => {
    // A trial organization has Pro's limits: 500 requests a minute, each row one (DESIGN §18).
    const { key, env } = await importingOrg('patient-importer')
    // 460 of the minute's 500 spent: the first chunk of 30 fits, the second does not.
    for (let i = 0; i < 459; i++) {
      const response = await fetch(`${shared.server.url}/console/billing/keys/self`, {
        headers: { 'x-api-key': key },
      })
      await response.arrayBuffer()
      expect(response.status).toBe(200)
    }
    const lines = ['jurisdiction,owner_did,address,type,value_usd,title_deed']
    for (let i = 0; i < 60; i++)
      lines.push(`US,did:web:acme:owner${i % 5},"${i} Elm St",residential,${1000 + i},WAIT-${i}`)
    const file = join(shared.home.dir, 'patient.csv')
    writeFileSync(file, `${lines.join('\n')}\n`)

    const run = await shared.home.run(['credentials', 'import', file, '--chunk-size', '30', '--json'], {
      env,
      timeout: 150_000,
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stderr).toMatch(
      /rate limit of 500 requests per minute reached for organization patient-importer; waiting \d+ s, then rows 31–60 \(lines 32–61\) again \(30 of 60 rows done; the import goes on by itself\)/,
    )
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: 60, imported: 60, failed: 0 })
    expect(await credentialCount(key)).toBe(60)
  }, 180_000)
})

describe('rwa transfers import', () => {
  it('counts a transfer rejected by compliance apart, names its unmet checks, and exits 6', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'distributor')
    const caller = apiCaller(
      (path, init) => fetch(new URL(path, shared.server.url), init),
      () => key,
    )
    const w = await buildWorld(caller, key)
    const file = join(shared.home.dir, 'distribution.csv')
    writeFileSync(
      file,
      [
        'token_id,from_jurisdiction,to_jurisdiction,recipient_did,amount',
        `${w.tokenId},US,SG,${RECIPIENT},5`,
        // No KYC, AML or qualification attested for this recipient.
        `${w.tokenId},US,SG,did:web:nowhere:nobody,5`,
        '',
      ].join('\n'),
    )
    const run = await shared.home.run(['transfers', 'import', file, '--json'], {
      env: { RWA_URL: shared.server.url, RWA_API_KEY: key },
    })
    expect(run.exitCode, run.stderr).toBe(6)
    const out = JSON.parse(run.stdout)
    expect(out).toMatchObject({ rows: 2, imported: 2, failed: 0, rejected: 1 })
    expect(out.results[0]).toMatchObject({ line: 2, status: 201, decision: 'approved', reason: null })
    expect(out.results[1]).toMatchObject({
      line: 3,
      status: 201,
      id: expect.stringMatching(/^tx_/),
      decision: 'rejected',
      reason: 'rejected',
      detail: expect.stringContaining('kyc'),
    })
    const table = await shared.home.run(['transfers', 'import', file], {
      env: { RWA_URL: shared.server.url, RWA_API_KEY: key },
    })
    expect(table.exitCode).toBe(6)
    expect(table.stderr).toContain('1 rejected by compliance')
  })
})
