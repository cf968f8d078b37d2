import { isUtf8 } from 'node:buffer'
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, resolve } from 'node:path'
import { execa } from 'execa'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { bodyOfRow, firstNonUtf8 } from '../../src/cli/commands/imports/rows.js'
import { CsvError, parseCsv } from '../../src/cli/csv.js'
import { api, newOrg, useServerAndHome } from '../support/cli.js'
import { buildWorld, RECIPIENT } from '../support/governance.js'
import { apiCaller } from '../support/harness.js'
import { RWA_BIN } from '../support/server-process.js'

vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()

describe('firstNonUtf8', () => {
  it('is the length of well-formed UTF-8, else the offset before which the bytes are well-formed', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      // Mostly text, with a stray byte somewhere: the common case of a Latin-1 export.
      fc
        .tuple(
          fc.string({ unit: 'grapheme', maxLength: 20 }),
          fc.integer({ min: 0x80, max: 0xff }),
          fc.string(),
        )
        .map(([a, b, c]) => new Uint8Array([...Buffer.from(a), b, ...Buffer.from(c)])),
    )
    fc.assert(
      fc.property(bytes, (b) => {
        const at = firstNonUtf8(b)
        expect(at === b.length).toBe(isUtf8(b))
        expect(isUtf8(b.subarray(0, at))).toBe(true)
      }),
      { numRuns: 5_000 },
    )
    // Overlong, surrogate and past-U+10FFFF forms are not UTF-8.
    for (const bad of [
      [0xc0, 0x80],
      [0xe0, 0x80, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
    ])
      expect(firstNonUtf8(new Uint8Array([0x41, ...bad]))).toBe(1)
  })
})

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

/** Attestations are not deduplicated by the server: a row imported twice shows in their count. */
async function attestationCount(key: string): Promise<number> {
  return ((await api(shared.server.url, '/console/rwa/attestations?limit=1', key)) as { total: number }).total
}

/** Where the CLI keeps the state of importing `file`, as it is now, into `orgId` as `kind`. */
function importStatePath(orgId: string, kind: string, file: string): string {
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex')
  const scope = [shared.server.url, orgId, kind, sha256, resolve(file)].join('\n')
  const name = createHash('sha256').update(scope).digest('hex').slice(0, 40)
  return join(shared.home.dir, '.local', 'state', 'rwa', 'imports', `${name}.json`)
}

/** `count` requests of the organization's minute spent (each a `GET keys/self`). */
async function spendRequests(key: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${shared.server.url}/console/billing/keys/self`, {
      headers: { 'x-api-key': key },
    })
    await response.arrayBuffer()
    expect(response.status).toBe(200)
  }
}

/** `rows` credentials on one street, their title deeds `<deeds>-<i>`, for five owners. */
function streetCsv(rows: number, street: string, deeds: string): string {
  const lines = ['jurisdiction,owner_did,address,type,value_usd,title_deed']
  for (let i = 0; i < rows; i++)
    lines.push(`US,did:web:acme:owner${i % 5},"${i} ${street} St",residential,${1000 + i},${deeds}-${i}`)
  return `${lines.join('\n')}\n`
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

    // The refused row fixed (here: replaced by a good one, the bad one moved to the end): it is sent
    // again, then the rows after it; the rows done are not.
    writeFileSync(file, credentialsCsv(25))
    const fixed = await shared.home.run(['credentials', 'import', file, '--json'], { env })
    expect(fixed.exitCode, fixed.stderr).toBe(6)
    expect(fixed.stderr).toContain(
      'but for 1 refused row changed since: sending it again, going on after them',
    )
    expect(JSON.parse(fixed.stdout)).toMatchObject({ rows: 26, imported: 25, failed: 1 })
    expect(JSON.parse(fixed.stdout).results.slice(0, 24)).toEqual(out.results.slice(0, 24))
    expect(await credentialCount(key)).toBe(25)

    // A file whose rows imported then changed is refused: they would be imported again.
    writeFileSync(file, credentialsCsv(26).replace(',100000,', ',100001,'))
    const changed = await shared.home.run(['credentials', 'import', file], { env })
    expect(changed.exitCode).toBe(2)
    expect(changed.stderr).toContain('changed since 25 of its rows were imported into importer')
    expect(changed.stderr).toContain('--again')
    expect(await credentialCount(key)).toBe(25)
    // --again sends every row: those the server refuses as duplicates (the title deeds) are listed.
    const forced = await shared.home.run(['credentials', 'import', file, '--again', '--json'], { env })
    expect(forced.exitCode, forced.stderr).toBe(6)
    expect(JSON.parse(forced.stdout)).toMatchObject({ rows: 27, imported: 1, failed: 26 })
    expect(await credentialCount(key)).toBe(26)

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

    // A column the operation does not take is named once, before any row is sent.
    const extra = join(shared.home.dir, 'extra-column.csv')
    writeFileSync(extra, `${[`${header},notes`, ...lines.slice(0, 8).map((l) => `${l},x`)].join('\n')}\n`)
    const unknown = await shared.home.run(['credentials', 'import', extra], { env })
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr).toContain(
      `${extra}: the column notes is not a field of credentials.issue; nothing was sent`,
    )
    expect(await credentialCount(key)).toBe(10)

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

  it('sends again only the refused rows the file has fixed, not those left as they were', async () => {
    const { key, env } = await importingOrg('row-fixer')
    const header = 'jurisdiction,owner_did,address,type,value_usd,title_deed'
    const rowsOf = (first: string) => [
      header,
      `${first},did:web:acme:o1,1 Birch St,residential,10,B-1`,
      'YY,did:web:acme:o2,2 Birch St,residential,10,B-2',
      'US,did:web:acme:o3,3 Birch St,residential,10,B-3',
    ]
    const file = join(shared.home.dir, 'row-fixer.csv')
    writeFileSync(file, `${rowsOf('XX').join('\n')}\n`)
    const first = await shared.home.run(['credentials', 'import', file, '--json'], { env })
    expect(first.exitCode).toBe(6)
    expect(JSON.parse(first.stdout).results.map((r: { status: number }) => r.status)).toEqual([404, 404, 201])

    // YY now exists, but its row is unchanged: not sent again (it would now be made). XX's row fixed is.
    await api(shared.server.url, '/console/rwa/jurisdictions', key, {
      method: 'POST',
      body: JSON.stringify({ jurisdiction_id: 'YY', name: 'Elsewhere', regulatory_body: 'R' }),
    })
    writeFileSync(file, `${rowsOf('US').join('\n')}\n`)
    const again = await shared.home.run(['credentials', 'import', file, '--json'], { env })
    expect(again.exitCode).toBe(6)
    expect(again.stderr).toContain('but for 1 refused row changed since: sending it again')
    const results = JSON.parse(again.stdout).results
    expect(results.map((r: { status: number }) => r.status)).toEqual([201, 404, 201])
    expect(results[2]).toEqual(JSON.parse(first.stdout).results[2])
    expect(await credentialCount(key)).toBe(2)

    // The fixed row changed once more: it was made by the last run (whose state is the newest), so
    // this is a row imported then that changed, refused; the first run's state, where it is refused
    // still, is not gone on from.
    const fixedAgain = rowsOf('US')
    fixedAgain[1] = 'US,did:web:acme:o1,1 Birch St,residential,12,B-1b'
    writeFileSync(file, `${fixedAgain.join('\n')}\n`)
    const refused = await shared.home.run(['credentials', 'import', file], { env })
    expect(refused.exitCode, refused.stderr).toBe(2)
    expect(refused.stderr).toContain('changed since 2 of its rows were imported into row-fixer')
    expect(await credentialCount(key)).toBe(2)

    // The last run's answer lost (its batch in flight), then a row added: not gone on from, neither from
    // the newest state (its batch may have run) nor from an older one (which does not know it).
    writeFileSync(file, `${rowsOf('US').join('\n')}\n`)
    const last = importStatePath('row-fixer', 'credentials', file)
    writeFileSync(last, JSON.stringify({ ...JSON.parse(readFileSync(last, 'utf8')), pending: { rows: [1] } }))
    writeFileSync(
      file,
      `${[...rowsOf('US'), 'US,did:web:acme:o4,4 Birch St,residential,10,B-4'].join('\n')}\n`,
    )
    const inFlight = await shared.home.run(['credentials', 'import', file], { env })
    expect(inFlight.exitCode, inFlight.stderr).toBe(2)
    expect(inFlight.stderr).toContain('changed while a batch of its last import was in flight')
    expect(inFlight.stderr).toContain(`put ${file} back as it was and run the command again`)
    expect(await credentialCount(key)).toBe(2)
  })

  it('refuses before sending anything: a file it cannot read, text that is not UTF-8, columns no field takes, --idempotency-key', async () => {
    const { key, env } = await importingOrg('careful-importer')
    const header = 'jurisdiction,owner_did,address,type,value_usd,title_deed'
    const missing = join(shared.home.dir, 'nowhere.csv')
    const notThere = await shared.home.run(['credentials', 'import', missing], { env })
    expect(notThere.exitCode).toBe(2)
    expect(notThere.stderr).toContain(`cannot read ${missing}: no such file`)

    // A spreadsheet's Latin-1 "CSV": é is the byte 0xE9, which UTF-8 never has alone.
    const latin1 = join(shared.home.dir, 'latin1.csv')
    writeFileSync(
      latin1,
      Buffer.concat([
        Buffer.from(`${header}\nUS,did:web:acme:o1,1 Main St,residential,10,L-1\nUS,did:web:acme:o2,"2 Caf`),
        Buffer.from([0xe9]),
        Buffer.from('",residential,10,L-2\n'),
      ]),
    )
    const garbled = await shared.home.run(['credentials', 'import', latin1], { env })
    expect(garbled.exitCode).toBe(2)
    expect(garbled.stderr).toContain(`${latin1} is not UTF-8 text (line 3 holds a byte that is not)`)
    expect(garbled.stderr).toContain('iconv')
    // Lines counted as the CSV counts them: a lone CR ends one (an old Mac export).
    writeFileSync(
      latin1,
      Buffer.concat([
        Buffer.from(`${header}\rUS,did:web:acme:o1,1 Main St,residential,10,L-1\rUS,x,Caf`),
        Buffer.from([0xe9, 0x0d]),
      ]),
    )
    const mac = await shared.home.run(['credentials', 'import', latin1], { env })
    expect(mac.stderr).toContain('(line 3 holds a byte that is not)')

    // Columns named by where they would go, bare property fields included; nothing is sent.
    const columns = join(shared.home.dir, 'columns.csv')
    writeFileSync(
      columns,
      `${header},colour,property_data.floors\nUS,did:web:acme:o1,1 Main St,residential,10,C-1,red,3\n`,
    )
    const unknown = await shared.home.run(['credentials', 'import', columns], { env })
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr).toContain(
      'the columns colour, property_data.floors are not fields of credentials.issue',
    )
    // A dotted column is named whole; one beside an unknown column is named too.
    writeFileSync(
      columns,
      `${header},owner.name,notes\nUS,did:web:acme:o1,1 Main St,residential,10,C-1,Ann,n\n`,
    )
    const dotted = await shared.home.run(['credentials', 'import', columns], { env })
    expect(dotted.stderr).toContain('the columns owner.name, notes are not fields of credentials.issue')
    writeFileSync(
      columns,
      `${header},address.line2\nUS,did:web:acme:o1,1 Main St,residential,10,C-1,Flat 2\n`,
    )
    const nested = await shared.home.run(['credentials', 'import', columns], { env })
    expect(nested.stderr).toContain('the column address.line2 is not a field of credentials.issue')

    // The import names its own key per batch (its resume relies on them); one given is refused, not ignored.
    const good = join(shared.home.dir, 'good.csv')
    writeFileSync(good, `${header}\nUS,did:web:acme:o1,1 Main St,residential,10,G-1\n`)
    const keyed = await shared.home.run(['--idempotency-key', 'ci-42', 'credentials', 'import', good], {
      env,
    })
    expect(keyed.exitCode).toBe(2)
    expect(keyed.stderr).toContain('--idempotency-key')
    expect(await credentialCount(key)).toBe(0)

    const imported = await shared.home.run(['credentials', 'import', good, '--json'], { env })
    expect(imported.exitCode, imported.stderr).toBe(0)
    expect(await credentialCount(key)).toBe(1)

    // A column empty in every row is in no row's body: a spreadsheet's unused column is no refusal.
    const unused = join(shared.home.dir, 'unused-column.csv')
    writeFileSync(unused, `${header},notes\nUS,did:web:acme:o2,2 Main St,residential,10,G-2,\n`)
    const withUnused = await shared.home.run(['credentials', 'import', unused], { env })
    expect(withUnused.exitCode, withUnused.stderr).toBe(0)
    expect(await credentialCount(key)).toBe(2)
  })

  it('Ctrl-C stops at once, its state on disk, and says how to go on', async () => {
    const { key, env } = await importingOrg('interrupted-importer')
    // 470 of the trial minute's 500 spent: the first chunk of 20 fits, the second waits for the minute.
    await spendRequests(key, 469)
    const file = join(shared.home.dir, 'interrupted.csv')
    writeFileSync(file, streetCsv(40, 'Pine', 'INT'))

    const run = execa(process.execPath, [RWA_BIN, 'credentials', 'import', file, '--chunk-size', '20'], {
      extendEnv: false,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: shared.home.dir,
        XDG_CONFIG_HOME: shared.home.configHome,
        ...env,
      },
      reject: false,
      timeout: 60_000,
    })
    let stderr = ''
    await new Promise<void>((resolve) => {
      run.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        if (stderr.includes('waiting')) resolve()
      })
      // Had the minute turned over during the setup, the run would end without waiting: asserted below.
      run.finally(() => resolve())
    })
    run.kill('SIGINT')
    const stopped = await run
    expect(stopped.exitCode).toBe(130)
    expect(String(stopped.stderr)).toContain(
      'interrupted: 20 of 40 rows done, a batch in flight; run the same command again to go on',
    )
    expect(await credentialCount(key)).toBe(20)
  })

  it('keeps a batch the server still runs (409 in progress) in flight, and sends it again as it was', async () => {
    const { key, env } = await importingOrg('overlapping-importer')
    // The real server behind a proxy that answers the first batch as the server answers a key still
    // running (an earlier run's, cut off, running past the client's 70 s wait): Retry-After beyond it.
    const batches: Array<{ key: string; rows: number; answered: number }> = []
    let stillRunning = true
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', async () => {
        const body = Buffer.concat(chunks)
        const headers: Record<string, string> = {}
        for (const name of ['x-api-key', 'content-type', 'idempotency-key'])
          if (typeof req.headers[name] === 'string') headers[name] = req.headers[name] as string
        if (req.url === '/console/rwa/batch') {
          const rows = (JSON.parse(body.toString()) as { operations: unknown[] }).operations.length
          const answered = stillRunning ? 409 : 0
          batches.push({ key: headers['idempotency-key'] ?? '', rows, answered })
          if (stillRunning) {
            stillRunning = false
            res.writeHead(409, { 'content-type': 'application/problem+json', 'retry-after': '120' }).end(
              JSON.stringify({
                type: 'urn:rwa:problem:conflict',
                title: 'Conflict',
                status: 409,
                detail: 'A request with this Idempotency-Key is still running; retry once it has answered',
                code: 'conflict',
                reason: 'idempotency_key_in_progress',
                context: { idempotency_key: headers['idempotency-key'] },
              }),
            )
            return
          }
        }
        const answer = await fetch(new URL(req.url ?? '/', shared.server.url), {
          method: req.method,
          headers,
          ...(req.method === 'GET' ? {} : { body }),
        })
        const out: Record<string, string> = {}
        for (const name of ['content-type', 'retry-after', 'idempotent-replayed'])
          if (answer.headers.has(name)) out[name] = answer.headers.get(name)!
        res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()))
      })
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const viaProxy = { ...env, RWA_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` }
      const file = join(shared.home.dir, 'overlapping.csv')
      writeFileSync(file, streetCsv(30, 'Ash', 'RUN'))
      const cut = await shared.home.run(['credentials', 'import', file, '--chunk-size', '20'], {
        env: viaProxy,
      })
      expect(cut.exitCode).toBe(5)
      expect(await credentialCount(key)).toBe(0)

      // Run again with another chunk size: the batch in flight goes first, as it was sent.
      const again = await shared.home.run(['credentials', 'import', file, '--chunk-size', '7', '--json'], {
        env: viaProxy,
      })
      expect(again.exitCode, again.stderr).toBe(0)
      expect(batches[0]).toMatchObject({ rows: 20, answered: 409 })
      expect(batches[1]).toEqual({ key: batches[0]!.key, rows: 20, answered: 0 })
      expect(batches.slice(2).map((b) => b.rows)).toEqual([7, 3])
      expect(JSON.parse(again.stdout)).toMatchObject({ rows: 30, imported: 30, failed: 0 })
      expect(await credentialCount(key)).toBe(30)
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()))
    }
  })

  it("waits for the organization's minute when a chunk meets the per-minute limit, and goes on by itself", async () => {
    // A trial organization has Pro's limits: 500 requests a minute, each row one
    // (docs/batches.md, "Roles, limits, idempotency, audit").
    const { key, env } = await importingOrg('patient-importer')
    // 460 of the minute's 500 spent: the first chunk of 30 fits, the second does not.
    await spendRequests(key, 459)
    const file = join(shared.home.dir, 'patient.csv')
    writeFileSync(file, streetCsv(60, 'Elm', 'WAIT'))

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

describe('rwa attestations import', () => {
  it("a copy of a file is a file of its own: its import leaves the original's state, which goes on after its rows", async () => {
    const { key, env } = await importingOrg('copier')
    const attestations = () => attestationCount(key)
    const lines = (n: number) => [
      'jurisdiction,subject_did,type,attester',
      ...Array.from({ length: n }, (_, i) => `US,did:web:acme:copied${i},kyc,Acme KYC`),
    ]
    const original = join(shared.home.dir, 'original.csv')
    const copy = join(shared.home.dir, 'original-copy.csv')
    writeFileSync(original, `${lines(5).join('\n')}\n`)
    expect((await shared.home.run(['attestations', 'import', original], { env })).exitCode).toBe(0)
    expect(await attestations()).toBe(5)
    // The same content under another name: its batches have the original's keys, so they are replayed.
    writeFileSync(copy, readFileSync(original))
    expect((await shared.home.run(['attestations', 'import', copy], { env })).exitCode).toBe(0)
    expect(await attestations()).toBe(5)

    // The original with rows added goes on after its own rows done (an attestation is not deduplicated
    // by the server: were its state gone, all seven would be made again). The server's URL may be
    // typed with a trailing slash: the same server.
    writeFileSync(original, `${lines(7).join('\n')}\n`)
    const added = await shared.home.run(['attestations', 'import', original, '--json'], {
      env: { ...env, RWA_URL: `${shared.server.url}/` },
    })
    expect(added.exitCode, added.stderr).toBe(0)
    expect(added.stderr).toContain('its first 5 rows are those done then')
    expect(await attestations()).toBe(7)
  })

  it('goes on from the newest import: by generation, unless an older CLI (no generation) wrote since', async () => {
    const { key, env } = await importingOrg('generations')
    const attestations = () => attestationCount(key)
    const file = join(shared.home.dir, 'generations.csv')
    const write = (n: number) =>
      writeFileSync(
        file,
        `${['jurisdiction,subject_did,type,attester', ...Array.from({ length: n }, (_, i) => `US,did:web:acme:g${i},kyc,K`)].join('\n')}\n`,
      )
    const run = async (n: number) => {
      write(n)
      const result = await shared.home.run(['attestations', 'import', file], { env })
      expect(result.exitCode, result.stderr).toBe(0)
      return importStatePath('generations', 'attestations', file)
    }
    const first = await run(4)
    // Rows 5–6 imported by an earlier version of the CLI: its state has no generation, written after,
    // and the server's URL as it was typed (a trailing slash).
    const second = await run(6)
    const { generation: _, ...unCounted } = JSON.parse(readFileSync(second, 'utf8'))
    writeFileSync(second, JSON.stringify({ ...unCounted, server: `${shared.server.url}/` }))
    expect(await attestations()).toBe(6)
    await run(8)
    expect(await attestations()).toBe(8)

    // A restored state directory: its files' times say nothing (the first state now looks newest); the
    // generations still name the newest import.
    const later = new Date(Date.now() + 60_000)
    utimesSync(first, later, later)
    await run(9)
    expect(await attestations()).toBe(9)
  })

  it("sends rows too long for one request (the server's 1 MiB) in smaller batches, and names a row too long alone", async () => {
    const { key, env } = await importingOrg('long-rows')
    // Each row ~2.3 KB as JSON (the longest attester and evidence the schema takes): 470 of them are
    // over 1 MiB as one batch, 235 are not.
    const header = 'jurisdiction,subject_did,type,attester,evidence'
    const rows = Array.from(
      { length: 470 },
      (_, i) => `US,did:web:acme:holder${i},kyc,${'A'.repeat(200)},${String(i).padEnd(2000, '.')}`,
    )
    const file = join(shared.home.dir, 'long-rows.csv')
    writeFileSync(file, `${[header, ...rows].join('\n')}\n`)
    const run = await shared.home.run(['attestations', 'import', file, '--chunk-size', '470', '--json'], {
      env,
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stderr).toContain(
      "rows 1–470 are over the server's request size as one batch; sending them 235 at a time",
    )
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: 470, imported: 470, failed: 0 })
    expect(await attestationCount(key)).toBe(470)

    // A batch left in flight by a run with a larger --chunk-size (interrupted while it was sent): too
    // large, it is sent again in batches no larger than this run's --chunk-size.
    const { key: resumedKey, env: resumedEnv } = await importingOrg('long-rows-resumed')
    const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex')
    const inFlight = {
      version: 2,
      file: resolve(file),
      sha256,
      kind: 'attestations',
      server: shared.server.url,
    }
    writeFileSync(
      importStatePath('long-rows-resumed', 'attestations', file),
      JSON.stringify({
        ...inFlight,
        org_id: 'long-rows-resumed',
        results: [],
        digests: [],
        pending: { start: 0, size: 470 },
      }),
    )
    const resumed = await shared.home.run(['attestations', 'import', file, '--chunk-size', '100', '--json'], {
      env: resumedEnv,
    })
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    expect(resumed.stderr).toContain(
      "rows 1–470 are over the server's request size as one batch; sending them 100 at a time",
    )
    expect(JSON.parse(resumed.stdout)).toMatchObject({ rows: 470, imported: 470, failed: 0 })
    expect(await attestationCount(resumedKey)).toBe(470)

    const huge = join(shared.home.dir, 'huge-row.csv')
    writeFileSync(huge, `${header}\nUS,did:web:acme:big,kyc,Acme KYC,${'e'.repeat(1_100_000)}\n`)
    const alone = await shared.home.run(['attestations', 'import', huge], { env })
    expect(alone.exitCode).toBe(2)
    expect(alone.stderr).toContain(
      `${huge} line 2: the row alone is over the server's request size (1048576 bytes)`,
    )
  })
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
