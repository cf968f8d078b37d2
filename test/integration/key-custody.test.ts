import { createHash } from 'node:crypto'
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { jurisdictionKeyAad, serviceKeyAad } from '../../server/platform/signing/signing-keys.js'
import { parseMasterKey, SEALED_PREFIX } from '../../server/platform/signing/master-key.js'
import { cliHome, newOrg } from '../support/cli.js'
import { type ServerProcess, type ServerStorage, startServerProcess } from '../support/server-process.js'

/*
 * Key custody (README.md, "Signing keys at rest") as an operator and an attacker meet it, on real server
 * processes over the test dialect: what the database, its files and the log hold after jurisdictions,
 * credentials and proofs were made; a start with the wrong master key; a database from before encryption.
 */

vi.setConfig({ testTimeout: 180_000 })

const home = cliHome()
afterAll(() => home.cleanup())
let cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups = []
})

/** A key row as stored: the table, the row's identity (its additional data) and the stored value. */
interface StoredKey {
  table: 'rwa_service_keys' | 'jurisdictions'
  aad: string
  where: Record<string, string>
  private_key: string
}

/** Reads and writes the key rows of a storage: the SQLite file, or the PostgreSQL database. */
interface KeyTables {
  keys(): Promise<StoredKey[]>
  setKey(key: StoredKey, value: string): Promise<void>
  deleteCheck(): Promise<void>
  /** Every row of every table as text: what a dump of the database holds. */
  dump(): Promise<string>
  /** The key tables as a pg_dump-like text (PostgreSQL), or the raw bytes of the file and its WAL (SQLite). */
  raw(): Promise<Buffer>
  close(): Promise<void>
}

const databaseUrlOf = (storage: ServerStorage) => storage.args[storage.args.indexOf('--database-url') + 1]!

async function keyTables(storage: ServerStorage): Promise<KeyTables> {
  type Row = Record<string, any>
  let query: (text: string, params?: unknown[]) => Promise<Row[]>
  let close: () => Promise<void>
  if (storage.dialect === 'postgres') {
    const client = new pg.Client({ connectionString: databaseUrlOf(storage) })
    await client.connect()
    query = async (text, params = []) => {
      let n = 0
      return (
        await client.query(
          text.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows
    }
    close = () => client.end()
  } else {
    const sqlite = new SQLite(storage.dbPath!)
    query = async (text, params = []) => {
      const statement = sqlite.prepare(text)
      if (statement.reader) return statement.all(...params) as Row[]
      statement.run(...params)
      return []
    }
    close = async () => {
      sqlite.close()
    }
  }
  const tables = async () =>
    storage.dialect === 'postgres'
      ? (
          await query(
            "select table_name as name from information_schema.tables where table_schema = 'public' order by 1",
          )
        ).map((r) => r.name as string)
      : (await query("select name from sqlite_master where type = 'table' order by 1")).map(
          (r) => r.name as string,
        )
  return {
    async keys() {
      const service = await query('select kid, purpose, private_key from rwa_service_keys')
      const jurisdictions = await query(
        'select org_id, jurisdiction_id, issuer_did, private_key from jurisdictions',
      )
      return [
        ...service.map((r) => ({
          table: 'rwa_service_keys' as const,
          aad: serviceKeyAad(r as { kid: string; purpose: string }),
          where: { kid: r.kid },
          private_key: r.private_key,
        })),
        ...jurisdictions.map((r) => ({
          table: 'jurisdictions' as const,
          aad: jurisdictionKeyAad(r as { org_id: string; jurisdiction_id: string; issuer_did: string }),
          where: { org_id: r.org_id, jurisdiction_id: r.jurisdiction_id },
          private_key: r.private_key,
        })),
      ]
    },
    async setKey(key, value) {
      const columns = Object.keys(key.where)
      await query(
        `update ${key.table} set private_key = ? where ${columns.map((c) => `${c} = ?`).join(' and ')}`,
        [value, ...columns.map((c) => key.where[c])],
      )
    },
    async deleteCheck() {
      await query('delete from key_custody')
    },
    async dump() {
      const out: string[] = []
      for (const table of await tables()) {
        out.push(table, JSON.stringify(await query(`select * from ${table} order by 1`)))
      }
      return out.join('\n')
    },
    async raw() {
      if (storage.dialect === 'postgres') {
        const rows: Row[] = []
        for (const table of ['rwa_service_keys', 'jurisdictions', 'key_custody']) {
          rows.push(...(await query(`select t::text as line from ${table} t`)))
        }
        return Buffer.from(rows.map((r) => r.line).join('\n'))
      }
      const path = storage.dbPath!
      return Buffer.concat([path, `${path}-wal`].filter(existsSync).map((f) => readFileSync(f)))
    },
    close,
  }
}

/** The master key of a storage: its RWA_MASTER_KEY (PostgreSQL) or the file beside the database. */
const masterKeyOf = (storage: ServerStorage) =>
  storage.dialect === 'postgres'
    ? parseMasterKey(storage.env.RWA_MASTER_KEY!, 'RWA_MASTER_KEY')
    : parseMasterKey(readFileSync(`${storage.dbPath}.master-key`, 'utf8'), 'the master key file')

/** Every private key of the storage, opened, as the forms it could leak in (raw, base64, hex...). */
async function secretForms(storage: ServerStorage): Promise<{ raw: Buffer[]; text: string[] }> {
  const master = masterKeyOf(storage)
  const tables = await keyTables(storage)
  try {
    const raw: Buffer[] = []
    const text: string[] = []
    for (const key of await tables.keys()) {
      const der = master.open(key.private_key, key.aad, key.aad)
      // An Ed25519 PKCS#8 DER is 16 bytes of header, then the 32-byte seed.
      const seed = der.subarray(der.length - 32)
      expect(der.length).toBe(48)
      raw.push(seed, der)
      for (const bytes of [seed, der]) {
        text.push(bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'))
      }
    }
    return { raw, text }
  } finally {
    await tables.close()
  }
}

/** Jurisdictions US and SG with trust, a credential, a token and a transfer (a signed proof), by the CLI. */
async function makeRecords(server: ServerProcess) {
  const key = await newOrg(server.url, server.adminKey, 'custody')
  const env = { RWA_URL: server.url, RWA_API_KEY: key }
  const json = async (args: string[]) => {
    const run = await home.run([...args, '--json'], { env })
    expect(run.exitCode, `rwa ${args.join(' ')}: ${run.stderr}`).toBe(0)
    return JSON.parse(run.stdout)
  }
  for (const id of ['US', 'SG']) {
    await json(['jurisdictions', 'register', '--id', id, '--name', id, '--regulatory-body', 'R'])
  }
  await json(['trust', 'establish', '--from', 'US', '--to', 'SG'])
  const credential = await json([
    ...['credentials', 'issue', '--jurisdiction', 'US', '--owner-did', 'did:web:acme:alice'],
    ...['--address', '1 Main St', '--type', 'office', '--value-usd', '1000000', '--title-deed', 'TD-1'],
  ])
  const token = await json([
    'tokens',
    'create',
    '--credential-id',
    credential.credential_id,
    '--total-supply',
    '10',
  ])
  const transfer = await json([
    ...['transfers', 'request', '--token-id', token.token_id, '--from', 'US', '--to', 'SG'],
    ...['--recipient-did', 'did:web:acme:bob', '--amount', '4'],
  ])
  const proof = await json(['proofs', 'get', transfer.proof_id])
  return { key, env, json, credential, token, transfer, proof }
}

/** Saves the trust bundle, a proof and a credential, and verifies them with `rwa ... verify --trust`. */
async function verifySaved(
  env: Record<string, string>,
  saved: { proof: unknown; credential: unknown },
  tag: string,
): Promise<void> {
  const bundle = await home.run(['trust-bundle'], { env })
  expect(bundle.exitCode, bundle.stderr).toBe(0)
  const file = (name: string) => join(home.dir, `${tag}-${name}`)
  writeFileSync(file('trust.json'), bundle.stdout)
  writeFileSync(file('proof.json'), JSON.stringify(saved.proof))
  writeFileSync(file('credential.json'), JSON.stringify(saved.credential))
  const proof = await home.run(['proofs', 'verify', file('proof.json'), '--trust', file('trust.json')], {
    env,
  })
  expect(proof.exitCode, proof.stdout + proof.stderr).toBe(0)
  const credential = await home.run(
    // --offline: its status list URL names the port of the process that issued it (--port 0).
    ['credentials', 'verify', file('credential.json'), '--trust', file('trust.json'), '--offline'],
    { env },
  )
  expect(credential.exitCode, credential.stdout + credential.stderr).toBe(0)
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

describe('signing keys at rest', () => {
  it('no private key byte in the database, its WAL or the log; the files are 0600', async () => {
    const server = await startServerProcess()
    cleanups.push(() => server.cleanup())
    const { storage } = server
    await makeRecords(server)

    if (storage.dialect === 'sqlite') {
      const path = storage.dbPath!
      for (const file of [path, `${path}-wal`, `${path}.master-key`]) {
        expect((statSync(file).mode & 0o777).toString(8), file).toBe('600')
      }
      expect(server.stderr()).toContain(`created the master key file ${path}.master-key (0600)`)
    }
    const secrets = await secretForms(storage)
    // Two jurisdictions and the proof key (and the log key, once a checkpoint was signed): seed and DER each.
    expect(secrets.raw.length).toBeGreaterThanOrEqual(6)
    const check = async (label: string) => {
      const tables = await keyTables(storage)
      const raw = await tables.raw()
      const dump = await tables.dump()
      await tables.close()
      for (const bytes of secrets.raw) expect(raw.includes(bytes), `${label}: raw key bytes`).toBe(false)
      for (const form of secrets.text) {
        expect(raw.includes(Buffer.from(form)), `${label}: ${form.length} characters`).toBe(false)
        expect(dump.includes(form), `${label} (dump)`).toBe(false)
      }
      for (const form of secrets.text) expect(server.stderr().includes(form), 'the log').toBe(false)
      // Every stored key says what it is: sealed.
      const stored = await keyTables(storage)
      for (const key of await stored.keys()) expect(key.private_key.startsWith(SEALED_PREFIX)).toBe(true)
      await stored.close()
    }
    await check('while running')
    expect(await server.stop()).toBe(0)
    await check('stopped')
  })

  it('a start with the wrong master key exits 2 naming it, changes nothing and makes no key', async () => {
    const server = await startServerProcess()
    cleanups.push(() => server.cleanup())
    const { storage } = server
    await makeRecords(server)
    expect(await server.stop()).toBe(0)

    const snapshot = async () => {
      if (storage.dialect === 'sqlite') {
        const files = [storage.dbPath!, `${storage.dbPath}-wal`, `${storage.dbPath}.master-key`]
        return files.map((f) => `${f}:${existsSync(f) ? sha256(readFileSync(f)) : 'absent'}`).join('\n')
      }
      const tables = await keyTables(storage)
      try {
        return sha256(Buffer.from(await tables.dump()))
      } finally {
        await tables.close()
      }
    }
    const before = await snapshot()
    const wrongKey = Buffer.alloc(32, 9).toString('base64url')
    const run = await home.run(['server', 'start', '--port', '0', ...storage.args], {
      env: { ...storage.env, RWA_MASTER_KEY: wrongKey },
    })
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(
      /error: the master key \(RWA_MASTER_KEY\) is not the one the signing keys of .* are encrypted with \(its check value does not decrypt\); nothing was changed/,
    )
    expect(run.stderr).not.toContain(wrongKey)
    expect(run.stderr).not.toMatch(/admin API key|listening on/)
    expect(await snapshot()).toBe(before)

    // The same through a key file: named by its path.
    const file = join(home.dir, 'wrong.key')
    writeFileSync(file, `${wrongKey}\n`, { mode: 0o600 })
    const { RWA_MASTER_KEY: _, ...env } = storage.env
    const viaFile = await home.run(
      ['server', 'start', '--port', '0', ...storage.args, '--master-key-file', file],
      {
        env,
      },
    )
    expect(viaFile.exitCode).toBe(2)
    expect(viaFile.stderr).toContain(
      `the master key (the master key file ${file} (--master-key-file)) is not the one`,
    )
    expect(await snapshot()).toBe(before)

    if (storage.dialect === 'sqlite') {
      // Its master key file lost: refused, and no new file is made in its place.
      const keyFile = `${storage.dbPath}.master-key`
      const kept = readFileSync(keyFile)
      rmSync(keyFile)
      const lost = await home.run(['server', 'start', '--port', '0', ...storage.args])
      expect(lost.exitCode).toBe(2)
      expect(lost.stderr).toContain(`and ${keyFile} does not exist: restore that file beside the database`)
      expect(existsSync(keyFile)).toBe(false)
      writeFileSync(keyFile, kept, { mode: 0o600 })
      expect(await snapshot()).toBe(before)
    }
  })

  it('a database with plaintext keys (from before encryption) is encrypted in place; what it signed still verifies', async () => {
    const server = await startServerProcess()
    cleanups.push(() => server.cleanup())
    const { storage } = server
    const made = await makeRecords(server)
    const us = await made.json(['jurisdictions', 'get', 'US'])
    expect(await server.stop()).toBe(0)

    // Back to what a database from before migration 0013's encryption held: each private key as plain
    // base64 PKCS#8, no check value, and (SQLite) no master key file.
    const master = masterKeyOf(storage)
    const tables = await keyTables(storage)
    const plaintexts: string[] = []
    for (const key of await tables.keys()) {
      const plaintext = master.open(key.private_key, key.aad, key.aad).toString('base64')
      plaintexts.push(plaintext)
      await tables.setKey(key, plaintext)
    }
    await tables.deleteCheck()
    await tables.close()
    if (storage.dialect === 'sqlite') rmSync(`${storage.dbPath}.master-key`)

    const again = await startServerProcess({ storage, adminKey: server.adminKey })
    cleanups.push(() => again.cleanup())
    expect(again.stderr()).toContain(
      `encrypted ${plaintexts.length} signing key(s) stored in plaintext under the master key`,
    )
    const after = await keyTables(storage)
    const stored = await after.keys()
    const dump = await after.dump()
    await after.close()
    expect(stored).toHaveLength(plaintexts.length)
    expect(plaintexts.length).toBeGreaterThanOrEqual(3)
    for (const key of stored) expect(key.private_key.startsWith(SEALED_PREFIX)).toBe(true)
    for (const plaintext of plaintexts) expect(dump).not.toContain(plaintext)

    const env = { RWA_URL: again.url, RWA_API_KEY: made.key }
    // Signed before, verified now against the trust bundle the server publishes now.
    await verifySaved(env, { proof: made.proof, credential: made.credential }, 'legacy')
    // The same jurisdiction key signs on: a new credential has US's issuer.
    const run = await home.run(
      [
        ...['credentials', 'issue', '--jurisdiction', 'US', '--owner-did', 'did:web:acme:carol'],
        ...[
          '--address',
          '2 Main St',
          '--type',
          'office',
          '--value-usd',
          '5',
          '--title-deed',
          'TD-2',
          '--json',
        ],
      ],
      { env },
    )
    expect(run.exitCode, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout).issuer_did).toBe(us.issuer_did)
  })

  it('rwa server rotate-signing-key: a proof signed before verifies after it; one signed after has the new kid; an owner key is refused', async () => {
    const server = await startServerProcess()
    cleanups.push(() => server.cleanup())
    const made = await makeRecords(server)
    const rotate = (key: string, extra: string[] = []) =>
      home.run(['server', 'rotate-signing-key', ...extra], { env: { RWA_URL: server.url, RWA_API_KEY: key } })

    const refused = await rotate(made.key)
    expect(refused.exitCode).toBe(3)
    expect(refused.stderr).toMatch(/requires the admin API key/)

    const rotated = await rotate(server.adminKey, ['--reason', 'yearly rotation', '--json'])
    expect(rotated.exitCode, rotated.stderr).toBe(0)
    const answer = JSON.parse(rotated.stdout)
    expect(answer.retired.kid).toBe(made.proof.kid)
    expect(answer.kid).not.toBe(made.proof.kid)

    // The proof signed before, against the trust bundle and the JWKS published after.
    await verifySaved(made.env, { proof: made.proof, credential: made.credential }, 'rotated')
    // The JWKS keeps the retired key, marked.
    const jwks = await home.run(['proofs', 'jwks'], { env: made.env })
    expect(jwks.exitCode, jwks.stderr).toBe(0)
    const keys = JSON.parse(jwks.stdout).keys as Array<{ kid: string; retired_at?: string }>
    expect(keys[0]!.kid).toBe(answer.kid)
    expect(keys.find((k) => k.kid === made.proof.kid)?.retired_at).toBe(answer.retired.retired_at)

    // Signed after: the new kid, and it verifies too.
    const transfer = await made.json([
      ...['transfers', 'request', '--token-id', made.token.token_id, '--from', 'US', '--to', 'SG'],
      ...['--recipient-did', 'did:web:acme:bob', '--amount', '1'],
    ])
    const proof = await made.json(['proofs', 'get', transfer.proof_id])
    expect(proof.kid).toBe(answer.kid)
    await verifySaved(made.env, { proof, credential: made.credential }, 'after')
  })
})
