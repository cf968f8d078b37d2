import { generateKeyPairSync } from 'node:crypto'
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { normalizedServer } from '../../src/cli/witness.js'
import { eventLeafHash } from '../../src/tlog/leaf.js'
import { rootOfLeaves } from '../../src/tlog/merkle.js'
import {
  parseCheckpointText,
  parseNote,
  rawPublicKey,
  signCheckpoint,
  verifierKey,
} from '../../src/tlog/note.js'
import { type CliHome, cliHome, newOrg } from '../support/cli.js'
import { buildWorld, OWNER, PROPERTY, RECIPIENT, transferBody } from '../support/governance.js'
import { type ApiCaller, apiCaller } from '../support/harness.js'
import {
  createServerStorage,
  RWA_BIN,
  type ServerProcess,
  type ServerStorage,
  startServerProcess,
} from '../support/server-process.js'

/*
 * What an adversarial re-review of `rwa log verify` and `rwa audit verify` found after issue 36, each
 * reproduced against a real server and the real CLI (docs/governance.md, "`rwa log verify`" and "The
 * audit bundle"; docs/verification.md, "The window of an audit bundle"):
 * - a forged log of an organization under a new origin, signed by a fresh key, reached through another
 *   spelling of the server's URL (or a proxy), was pinned on first use;
 * - a bundle whose "before" checkpoint is an older genuine one opened a window that excused deleted
 *   records under --accept-window;
 * - `rwa log inclusion` printed its proof's line breaks as `\x0a` on a terminal; `--index -1` was
 *   refused in zod's words.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 })

const PUBLIC_URL = 'https://rwa.test'
const ORIGIN = 'rwa.test/console/audit/ledger'
const ELSEWHERE = 'elsewhere.test/console/audit/ledger'

let storage: ServerStorage
let server: ServerProcess
let home: CliHome
let key: string
let api: ApiCaller
let tokenId: string
let trust: string

const env = (more: Record<string, string> = {}) => ({ RWA_URL: server.url, RWA_API_KEY: key, ...more })
const run = (args: string[], more: Record<string, string> = {}) =>
  home.run(args, { env: env(more), timeout: 120_000 })
const readJson = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'))
const writeJson = (dir: string, file: string, value: unknown) =>
  writeFileSync(join(dir, file), JSON.stringify(value))
const checkpointOf = (dir: string, when: 'before' | 'after') =>
  parseCheckpointText(parseNote(readJson(dir, 'checkpoints.json')[when]).text)
const checkpointNow = async (): Promise<string> => {
  const res = await api.get('/console/audit/log/checkpoint', { key })
  expect(res.status, res.text).toBe(200)
  return res.body.checkpoint
}

/**
 * A real HTTP proxy to the server: `before(method, path)` runs before each request is forwarded (writes
 * made at a chosen point of the CLI's reads); `rewrite(path, body)` may change an answer on its way back.
 */
const proxy = async (
  before: (method: string, path: string) => Promise<void>,
  rewrite: (path: string, body: Buffer) => Buffer = (_path, body) => body,
  upstreamUrl: () => string = () => server.url,
) => {
  const hop = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'content-encoding'])
  const proxied = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      await before(req.method ?? 'GET', req.url ?? '/')
      const upstream = await fetch(new URL(req.url ?? '/', upstreamUrl()), {
        method: req.method ?? 'GET',
        headers: Object.entries(req.headers).flatMap(([k, v]) =>
          hop.has(k) || v === undefined ? [] : [[k, String(v)] as [string, string]],
        ),
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      })
      const body = rewrite(req.url ?? '/', Buffer.from(await upstream.arrayBuffer()))
      res.writeHead(upstream.status, Object.fromEntries([...upstream.headers].filter(([k]) => !hop.has(k))))
      res.end(body)
    })().catch((error: unknown) => {
      res.writeHead(502)
      res.end(String(error))
    })
  })
  await new Promise<void>((resolve) => proxied.listen(0, '127.0.0.1', resolve))
  const port = (proxied.address() as AddressInfo).port
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => proxied.close(() => resolve())),
  }
}

/** A checkpoint of `size` leaves of `entries` under `origin`, signed by a fresh key: a forger's own. */
const forgedCheckpoint = (origin: string, entries: unknown[]) => {
  const { privateKey } = generateKeyPairSync('ed25519')
  const { root, size } = rootOfLeaves(entries.map((e) => eventLeafHash(e as never)))
  return {
    note: signCheckpoint({ origin, size, root }, origin, privateKey),
    vkey: verifierKey(origin, rawPublicKey(privateKey)),
  }
}

beforeAll(async () => {
  storage = await createServerStorage('sqlite')
  server = await startServerProcess({ storage, env: { RWA_PUBLIC_URL: PUBLIC_URL } })
  home = cliHome()
  key = await newOrg(server.url, server.adminKey, 'ledger')
  api = apiCaller(
    (path, init) => fetch(new URL(path, server.url), init),
    () => server.adminKey,
  )
  tokenId = (await buildWorld(api, key)).tokenId
  const transfer = await api.post('/console/rwa/transfers', transferBody(tokenId, 100), { key })
  expect(transfer.status, transfer.text).toBe(201)
  const saved = await run(['trust-bundle', '--json'])
  expect(saved.exitCode, saved.stderr).toBe(0)
  trust = join(home.dir, 'trust.json')
  writeFileSync(trust, saved.stdout)
})

afterAll(async () => {
  await server?.cleanup()
  await storage?.remove()
  home?.cleanup()
})

describe('H1: a forged log under a new origin, whatever URL it comes through', () => {
  it('keeps a server URL in one spelling: host in lower case, no default port, userinfo, query or trailing slash', () => {
    expect(normalizedServer('HTTPS://alice:secret@Rwa.Example.COM:443/base/?q=1#f')).toBe(
      'https://rwa.example.com/base',
    )
    expect(normalizedServer('http://LOCALHOST:80/')).toBe('http://localhost')
    expect(normalizedServer('http://127.0.0.1:4600')).toBe('http://127.0.0.1:4600')
  })

  it('rwa log verify refuses a new origin for an organization it holds, through any spelling of the URL or a proxy: exit 8 naming the held origin', async () => {
    const stateHome = join(home.dir, 'witness-h1')
    const statePath = join(stateHome, 'rwa', 'log-checkpoints.json')
    // The man in the middle answers a forged checkpoint: the log under a new origin, signed by a key of
    // its own, every unsigned field matching it; the log it signs is the genuine one but its last
    // entry (a rollback).
    let forge = false
    const mitm = await proxy(
      async () => {},
      (path, body) => {
        if (!forge || new URL(path, 'http://x').pathname !== '/console/audit/log/checkpoint') return body
        const answer = JSON.parse(body.toString('utf8'))
        // A log that lost its last entry (its root made up: a first use checks nothing against it).
        const size = answer.tree_size - 1
        const { privateKey } = generateKeyPairSync('ed25519')
        const root = Buffer.from(answer.root_hash, 'base64')
        const note = signCheckpoint({ origin: ELSEWHERE, size, root }, ELSEWHERE, privateKey)
        return Buffer.from(
          JSON.stringify({
            ...answer,
            origin: ELSEWHERE,
            tree_size: size,
            checkpoint: note,
            log_key: { ...answer.log_key, vkey: verifierKey(ELSEWHERE, rawPublicKey(privateKey)) },
          }),
        )
      },
    )
    const as = (url: string, args: string[] = []) =>
      run(['log', 'verify', ...args], { RWA_URL: url, XDG_STATE_HOME: stateHome })
    try {
      const first = await as(mitm.url)
      expect(first.exitCode, first.stderr).toBe(0)
      expect(first.stdout).toContain('first checkpoint seen')
      const held = readFileSync(statePath, 'utf8')
      expect(Object.keys(JSON.parse(held).logs)).toEqual([ORIGIN])
      // The same server through another spelling of its URL: the same log, consistent.
      const again = await as(`http://LOCALHOST:${mitm.port}/`)
      expect(again.exitCode, again.stderr).toBe(0)
      expect(again.stdout).toContain('consistent with the')
      const state = readFileSync(statePath, 'utf8')

      forge = true
      // Another URL in front of the forger: a second proxy.
      const other = await proxy(
        async () => {},
        (_path, body) => body,
        () => mitm.url,
      )
      try {
        for (const url of [
          `http://localhost:${mitm.port}`,
          `http://LOCALHOST:${mitm.port}/`,
          `http://127.0.0.1:${mitm.port}/`,
          other.url,
        ]) {
          const res = await as(url)
          expect(res.exitCode, `${url}: ${res.stdout}${res.stderr}`).toBe(8)
          expect(res.stderr, url).toMatch(
            /this machine holds organization ledger's log as rwa\.test\/console\/audit\/ledger \(\d+ entries, last verified on \S+ through http:\/\/127\.0\.0\.1:\d+, http:\/\/localhost:\d+\); now it is signed as elsewhere\.test\/console\/audit\/ledger, with a key this machine never saw/,
          )
          expect(res.stderr, url).toMatch(/--accept-new-origin/)
          expect(res.stdout, url).not.toContain('first checkpoint seen')
          expect(readFileSync(statePath, 'utf8'), url).toBe(state)
        }
      } finally {
        await other.close()
      }

      // The log held kept its servers as one each, whatever the spelling.
      expect(JSON.parse(readFileSync(statePath, 'utf8')).logs[ORIGIN].servers).toEqual([
        mitm.url,
        `http://localhost:${mitm.port}`,
      ])

      // Accepted knowingly: kept beside the log held, which stays as it was.
      const accepted = await as(mitm.url, ['--accept-new-origin'])
      expect(accepted.exitCode, accepted.stderr).toBe(0)
      expect(accepted.stderr).toContain('a new origin, accepted with --accept-new-origin')
      const logs = JSON.parse(readFileSync(statePath, 'utf8')).logs
      expect(Object.keys(logs).sort()).toEqual([ELSEWHERE, ORIGIN])
      expect(logs[ORIGIN]).toEqual(JSON.parse(state).logs[ORIGIN])
    } finally {
      await mitm.close()
    }
  })

  it("rwa log verify refuses, unasked, a log of an organization it never verified beside the ones it holds: a forged log under another organization's name", async () => {
    const stateHome = join(home.dir, 'witness-other-org')
    const OTHER = 'rwa.test/console/audit/ledger-x'
    let forge = false
    const mitm = await proxy(
      async () => {},
      (path, body) => {
        if (!forge || new URL(path, 'http://x').pathname !== '/console/audit/log/checkpoint') return body
        const answer = JSON.parse(body.toString('utf8'))
        const { privateKey } = generateKeyPairSync('ed25519')
        const root = Buffer.from(answer.root_hash, 'base64')
        const size = answer.tree_size - 1
        return Buffer.from(
          JSON.stringify({
            ...answer,
            org_id: 'ledger-x',
            origin: OTHER,
            tree_size: size,
            checkpoint: signCheckpoint({ origin: OTHER, size, root }, OTHER, privateKey),
            log_key: { ...answer.log_key, vkey: verifierKey(OTHER, rawPublicKey(privateKey)) },
          }),
        )
      },
    )
    const as = (args: string[] = [], more: Record<string, string> = {}) =>
      run(['log', 'verify', ...args], { RWA_URL: mitm.url, XDG_STATE_HOME: stateHome, ...more })
    try {
      expect((await as()).exitCode).toBe(0)
      const state = readFileSync(join(stateHome, 'rwa', 'log-checkpoints.json'), 'utf8')
      forge = true
      const forged = await as()
      expect(forged.exitCode, forged.stdout + forged.stderr).toBe(8)
      expect(forged.stderr).toContain(
        "the server answers organization ledger-x's log, which this machine never verified; it verifies ledger's",
      )
      expect(forged.stderr).toContain('rwa log verify --org-id ledger-x')
      expect(forged.stdout).not.toContain('first checkpoint seen')
      // Asked for its own organization's log, the forgery is refused as an answer of another's.
      const asked = await as(['--org-id', 'ledger'])
      expect(asked.exitCode, asked.stderr).toBe(8)
      expect(asked.stderr).toContain("the checkpoint signs the log of organization ledger-x, not ledger's")
      expect(readFileSync(join(stateHome, 'rwa', 'log-checkpoints.json'), 'utf8')).toBe(state)
      forge = false
      // A genuine second organization verified on this machine: named once, then held as the first.
      const second = await newOrg(server.url, server.adminKey, 'second')
      const unnamed = await as([], { RWA_API_KEY: second })
      expect(unnamed.exitCode, unnamed.stderr).toBe(8)
      expect(unnamed.stderr).toContain('rwa log verify --org-id second')
      const named = await as(['--org-id', 'second'], { RWA_API_KEY: second })
      expect(named.exitCode, named.stderr).toBe(0)
      expect((await as([], { RWA_API_KEY: second })).exitCode).toBe(0)
      expect((await as()).exitCode).toBe(0)
    } finally {
      await mitm.close()
    }
  })

  it('L1: rwa audit verify refuses, unpinned, a bundle of a held organization signed under a new origin by a fresh key', async () => {
    const stateHome = join(home.dir, 'witness-l1')
    const seen = await run(['log', 'verify'], { XDG_STATE_HOME: stateHome })
    expect(seen.exitCode, seen.stderr).toBe(0)
    const dir = join(home.dir, 'bundle-l1')
    rmSync(dir, { recursive: true, force: true })
    const exported = await run(['audit', 'export', '--out', dir])
    expect(exported.exitCode, exported.stderr).toBe(0)
    // The genuine log re-signed under a new origin by the forger's key, its trust bundle's log key
    // replaced to match: self-consistent, and no witness state of that origin to contradict it.
    const forged = join(home.dir, 'bundle-l1-forged')
    rmSync(forged, { recursive: true, force: true })
    cpSync(dir, forged, { recursive: true })
    const { note, vkey } = forgedCheckpoint(ELSEWHERE, readJson(forged, 'entries.json'))
    writeJson(forged, 'checkpoints.json', { before: note, after: note })
    const trustBundle = readJson(forged, 'trust-bundle.json')
    writeJson(forged, 'trust-bundle.json', { ...trustBundle, log_key: { ...trustBundle.log_key, vkey } })

    const refused = await run(['audit', 'verify', forged], { XDG_STATE_HOME: stateHome })
    expect(refused.exitCode, refused.stdout + refused.stderr).toBe(8)
    expect(refused.stderr).toMatch(
      /this machine holds organization ledger's log as rwa\.test\/console\/audit\/ledger \(\d+ entries, last verified on \S+ through http:\/\/127\.0\.0\.1:\d+\); the bundle's checkpoints sign it as elsewhere\.test\/console\/audit\/ledger, with the bundle's own key/,
    )
    const accepted = await run(['audit', 'verify', forged, '--accept-new-origin'], {
      XDG_STATE_HOME: stateHome,
    })
    expect(accepted.exitCode, accepted.stderr).toBe(0)
    expect(accepted.stdout).toContain('a new origin, accepted with --accept-new-origin')
    // The genuine bundle is the log held: it verifies, pinned or not.
    for (const args of [[], ['--trust', trust]]) {
      const genuine = await run(['audit', 'verify', dir, ...args], { XDG_STATE_HOME: stateHome })
      expect(genuine.exitCode, genuine.stderr).toBe(0)
    }
  })
})

describe('M1: the window between the checkpoints excuses no deleted record', () => {
  it('records deleted behind an older genuine "before" checkpoint: exit 8 with --accept-window, naming each', async () => {
    const older = await checkpointNow()
    // Records made after that checkpoint: a credential, an attestation, a transfer.
    const credential = await api.post(
      '/console/rwa/credentials',
      { jurisdiction: 'US', owner_did: OWNER, property_data: { ...PROPERTY, title_deed: 'US-M1-1' } },
      { key },
    )
    expect(credential.status, credential.text).toBe(201)
    const attestation = await api.post(
      '/console/rwa/attestations',
      { jurisdiction: 'US', subject_did: RECIPIENT, type: 'aml', attester: 'M1 AML Ltd' },
      { key },
    )
    expect(attestation.status, attestation.text).toBe(201)
    const transfer = await api.post('/console/rwa/transfers', transferBody(tokenId, 10), { key })
    expect(transfer.status, transfer.text).toBe(201)

    const dir = join(home.dir, 'bundle-m1')
    rmSync(dir, { recursive: true, force: true })
    expect((await run(['audit', 'export', '--out', dir])).exitCode).toBe(0)
    const genuine = await run(['audit', 'verify', dir, '--trust', trust])
    expect(genuine.exitCode, genuine.stderr).toBe(0)

    // The attack: the three records deleted, the older genuine checkpoint put as the one before.
    const credentialId = credential.body.credential_id as string
    const attestationId = attestation.body.attestation_id as string
    const transferId = transfer.body.transfer_id as string
    const attacked = join(home.dir, 'bundle-m1-attacked')
    rmSync(attacked, { recursive: true, force: true })
    cpSync(dir, attacked, { recursive: true })
    writeJson(attacked, 'checkpoints.json', { ...readJson(attacked, 'checkpoints.json'), before: older })
    writeJson(
      attacked,
      'credentials.json',
      readJson(attacked, 'credentials.json').filter((c: any) => c.credential_id !== credentialId),
    )
    writeJson(
      attacked,
      'attestations.json',
      readJson(attacked, 'attestations.json').filter((a: any) => a.attestation_id !== attestationId),
    )
    writeJson(
      attacked,
      'transfers.json',
      readJson(attacked, 'transfers.json').filter((t: any) => t.transfer_id !== transferId),
    )
    writeJson(
      attacked,
      'proofs.json',
      readJson(attacked, 'proofs.json').filter((p: any) => p.transfer_id !== transferId),
    )
    expect(checkpointOf(attacked, 'before').size).toBeLessThan(checkpointOf(attacked, 'after').size)
    const res = await run(['audit', 'verify', attacked, '--trust', trust, '--accept-window'])
    expect(res.exitCode, res.stdout + res.stderr).toBe(8)
    for (const [what, action] of <Array<[string, string]>>[
      [`credential ${credentialId}`, 'credential.issued'],
      [`attestation ${attestationId}`, 'attestation.submitted'],
      [`transfer ${transferId}`, 'transfer.approved'],
    ])
      expect(res.stderr).toMatch(
        new RegExp(
          `${what}: its entry \\d+ \\(${action.replace('.', '\\.')}\\) is in the log, its record is not in the bundle \\(deleted\\)`,
        ),
      )
    expect(res.stdout).not.toContain('every record has its entry')
  })

  it('a genuine export while records are made and revoked: the records the window changed are read after, and it verifies under --accept-window', async () => {
    const pathOf = (path: string) => new URL(path, 'http://x').pathname
    const made: { credentials: string[]; transfers: string[] } = { credentials: [], transfers: [] }
    // An active credential, revoked while the export reads the records the third time: after the
    // credentials list read it active.
    const toRevoke = await api.post(
      '/console/rwa/credentials',
      { jurisdiction: 'US', owner_did: OWNER, property_data: { ...PROPERTY, title_deed: 'US-BUSY-REVOKED' } },
      { key },
    )
    expect(toRevoke.status, toRevoke.text).toBe(201)
    const revokedId = toRevoke.body.credential_id as string
    // A credential made each time the export reads the attestations (after the credentials: the list
    // missed it), a transfer each time it reads a status list (after the transfers).
    const busy = await proxy(async (method, path) => {
      if (method !== 'GET') return
      if (pathOf(path) === '/console/rwa/attestations') {
        const res = await api.post(
          '/console/rwa/credentials',
          {
            jurisdiction: 'US',
            owner_did: OWNER,
            property_data: { ...PROPERTY, title_deed: `US-BUSY-${made.credentials.length}` },
          },
          { key },
        )
        expect(res.status, res.text).toBe(201)
        made.credentials.push(res.body.credential_id)
        if (made.credentials.length === 3) {
          const revoked = await api.post(
            `/console/rwa/credentials/${revokedId}/revoke`,
            { reason: 'busy' },
            { key },
          )
          expect(revoked.status, revoked.text).toBe(200)
        }
      } else if (
        pathOf(path).startsWith('/console/rwa/status/') &&
        made.transfers.length < made.credentials.length
      ) {
        const res = await api.post('/console/rwa/transfers', transferBody(tokenId, 1), { key })
        expect(res.status, res.text).toBe(201)
        made.transfers.push(res.body.transfer_id)
      }
    })
    const dir = join(home.dir, 'bundle-busy')
    rmSync(dir, { recursive: true, force: true })
    try {
      const exported = await run(['audit', 'export', '--out', dir], { RWA_URL: busy.url })
      expect(exported.exitCode, exported.stderr).toBe(0)
      expect(exported.stderr).toContain('not a snapshot')
    } finally {
      await busy.close()
    }
    expect(made.credentials).toHaveLength(3)
    expect(made.transfers).toHaveLength(3)
    // Every record made, the last ones read one by one after the lists.
    const ids = (file: string, field: string) => readJson(dir, file).map((r: any) => r[field])
    expect(ids('credentials.json', 'credential_id')).toEqual(expect.arrayContaining(made.credentials))
    expect(ids('transfers.json', 'transfer_id')).toEqual(expect.arrayContaining(made.transfers))
    const verified = await run(['audit', 'verify', dir, '--trust', trust, '--accept-window', '--json'])
    expect(verified.exitCode, verified.stdout + verified.stderr).toBe(0)
    const outcome = JSON.parse(verified.stdout)
    expect(outcome).toMatchObject({ valid: true, snapshot: false })
    expect(outcome.window.join('\n')).toContain(`on credential ${made.credentials.at(-1)}`)
    expect(outcome.window.join('\n')).not.toContain('not in the bundle')
    // The revocation logged meanwhile shows in the record, read again after the checkpoint.
    expect(outcome.window.join('\n')).toContain(`(credential.revoked) on credential ${revokedId}`)
    expect(readJson(dir, 'credentials.json').find((c: any) => c.credential_id === revokedId).status).toBe(
      'revoked',
    )
  })
})

describe('rwa log inclusion', () => {
  const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`

  it('L3: on a terminal, prints the proof one hash a line, never an escaped line break', async () => {
    const rwa = [process.execPath, RWA_BIN, 'log', 'inclusion', '--index', '1'].map(quote).join(' ')
    const tty = await execa('script', ['-qec', `stty cols 200 rows 50 && ${rwa}`, '/dev/null'], {
      extendEnv: false,
      env: { PATH: process.env.PATH ?? '', HOME: home.dir, TERM: 'xterm-256color', NO_COLOR: '1', ...env() },
      reject: false,
      timeout: 20_000,
    })
    expect(tty.exitCode, String(tty.stdout)).toBe(0)
    const json = JSON.parse((await run(['log', 'inclusion', '--index', '1', '--json'])).stdout)
    expect(json.proof.length).toBeGreaterThan(1)
    const output = String(tty.stdout).replaceAll('\r', '')
    expect(output).not.toContain('\\x0a')
    // Each hash whole on a line of its own, under the first.
    const lines = output.split('\n')
    const first = lines.findIndex((l) => /^proof\s+/.test(l))
    expect(lines[first]).toMatch(new RegExp(`^proof\\s+${json.proof[0].replace(/[+/]/g, '\\$&')}$`))
    for (const [i, hash] of (json.proof as string[]).entries())
      expect(lines[first + i]?.trim().endsWith(hash), lines[first + i]).toBe(true)
    // Piped: one field, the hashes joined.
    const tsv = await run(['log', 'inclusion', '--index', '1'])
    expect(tsv.stdout).toContain(`proof\t${(json.proof as string[]).join('; ')}`)
  })

  it('--index -1 is refused naming the flag and what it expects', async () => {
    const res = await run(['log', 'inclusion', '--index', '-1'])
    expect(res.exitCode, res.stderr).toBe(2)
    expect(res.stderr).toMatch(/^error: --index: expected a non-negative integer.* \(got -1/m)
  })
})
