import { generateKeyPairSync, sign } from 'node:crypto'
import { copyFileSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { insertAuditEvents } from '../../server/pipeline/audit/queries.js'
import { appendToAuditLog, type PendingAuditEvent } from '../../server/pipeline/audit-log/append.js'
import { openDatabase } from '../../server/platform/db/database.js'
import { didKeyOf, verificationMethodOf } from '../../src/proof/did-key.js'
import { canonicalFacts, proofDigest } from '../../src/proof/verify.js'
import { canonicalText, eventLeafHash } from '../../src/tlog/leaf.js'
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
import type { ApiCaller } from '../support/harness.js'
import {
  createServerStorage,
  type ServerProcess,
  type ServerStorage,
  startServerProcess,
} from '../support/server-process.js'

/*
 * The verifiable log from the CLI, against a real server over a real SQLite file
 * (docs/governance.md, "The verifiable log"): `rwa audit export` of an organization with thousands of events
 * verifies offline; every tamper of the bundle (an entry deleted, reordered, edited, a record without its
 * entry, a checkpoint re-signed with another key) and a rolled-back database are exit 8.
 */

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })

const PUBLIC_URL = 'https://rwa.test'
const BULK_EVENTS = 3000

let storage: ServerStorage
let server: ServerProcess
let home: CliHome
let key: string
let env: Record<string, string>
let tokenId: string
/** A credential of SG, revoked; and its status list as served before the revocation (genuine, bit clear). */
let revokedId: string
/** The proof of a recovery of the token (OWNER's units moved to RECIPIENT), and its token.recovered entry. */
let recoveryProofId: string
let recoveryLogIndex: number
let sgListBeforeRevocation: string
/** The log's signed checkpoint just before that revocation (a genuine note, as any export reads it). */
let checkpointBeforeRevocation: string
const run = (args: string[]) => home.run(args, { env, timeout: 120_000 })

/** An ApiCaller over fetch, to build the usual world through the real server. */
const over = (url: () => string, adminKey: string): ApiCaller => {
  const request = async (method: string, path: string, options: any = {}) => {
    const target = new URL(path, url())
    for (const [k, v] of Object.entries(options.query ?? {})) target.searchParams.set(k, String(v))
    const res = await fetch(target, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': options.key ?? adminKey },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    })
    const text = await res.text()
    return {
      status: res.status,
      text,
      body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined,
      headers: res.headers,
    } as any
  }
  return {
    adminKey,
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, body, options) => request('POST', path, { ...options, body }),
  }
}

const restart = async () => {
  const adminKey = server.adminKey
  await server.stop()
  server = await startServerProcess({ storage, adminKey, env: { RWA_PUBLIC_URL: PUBLIC_URL } })
  env = { ...env, RWA_URL: server.url }
}

beforeAll(async () => {
  storage = await createServerStorage('sqlite')
  server = await startServerProcess({ storage, env: { RWA_PUBLIC_URL: PUBLIC_URL } })
  home = cliHome()
  key = await newOrg(server.url, server.adminKey, 'ledger')
  env = { RWA_URL: server.url, RWA_API_KEY: key }
  const api = over(() => server.url, server.adminKey)
  const world = await buildWorld(api, key)
  tokenId = world.tokenId
  for (const amount of [100, 50]) {
    const res = await api.post('/console/rwa/transfers', transferBody(tokenId, amount), { key })
    expect(res.status, res.text).toBe(201)
  }
  const recovered = await api.post(
    `/console/rwa/tokens/${tokenId}/recover`,
    { lost_did: OWNER, new_did: RECIPIENT, reason: 'lost keys' },
    { key },
  )
  expect(recovered.status, recovered.text).toBe(200)
  recoveryProofId = recovered.body.proof_id
  recoveryLogIndex = recovered.body.log_index
  expect(recoveryLogIndex).toEqual(expect.any(Number))
  // Thousands of events, cheaply: appended to the log by the write seam's own functions, straight
  // into the stopped server's database, 100 per transaction.
  await server.stop()
  const db = await openDatabase(storage.dbPath!)
  for (let batch = 0; batch < BULK_EVENTS / 100; batch++) {
    await db.transaction().execute(async (trx) => {
      const events: PendingAuditEvent[] = Array.from({ length: 100 }, (_, i) => ({
        event_id: `aud_bulk${String(batch * 100 + i).padStart(6, '0')}`,
        org_id: 'ledger',
        at: new Date(Date.UTC(2026, 10, 1, 0, 0, batch * 100 + i)).toISOString(),
        actor: canonicalText({ system: 'trial_expiry' }),
        actor_key_id: null,
        request_id: null,
        action: 'jurisdiction.reviewed',
        target_type: 'jurisdiction',
        target_id: i % 2 ? 'US' : 'SG',
        changes: canonicalText({ before: null, after: { review: batch * 100 + i } }),
      }))
      await appendToAuditLog(trx, events)
      await insertAuditEvents(trx, events as never)
    })
  }
  await db.destroy()
  server = await startServerProcess({
    storage,
    adminKey: server.adminKey,
    env: { RWA_PUBLIC_URL: PUBLIC_URL },
  })
  env = { ...env, RWA_URL: server.url }

  // A second jurisdiction's credential, revoked: a bundle with two status lists, one bit set.
  const revoked = await api.post(
    '/console/rwa/credentials',
    { jurisdiction: 'SG', owner_did: OWNER, property_data: { ...PROPERTY, title_deed: 'SG-REVOKED-1' } },
    { key },
  )
  expect(revoked.status, revoked.text).toBe(201)
  revokedId = revoked.body.credential_id
  const listPath = new URL(revoked.body.credential_status[0].statusListCredential).pathname
  sgListBeforeRevocation = (await api.get(listPath)).text
  checkpointBeforeRevocation = (await api.get('/console/audit/log/checkpoint', { key })).body.checkpoint
  const revocation = await api.post(
    `/console/rwa/credentials/${revokedId}/revoke`,
    { reason: 'sold' },
    { key },
  )
  expect(revocation.status, revocation.text).toBe(200)
})

afterAll(async () => {
  await server?.cleanup()
  await storage?.remove()
  home?.cleanup()
})

const readJson = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'))
/** The checkpoint a bundle's signed note (`before` or `after` the records) carries. */
const checkpointOf = (dir: string, when: 'before' | 'after') =>
  parseCheckpointText(parseNote(readJson(dir, 'checkpoints.json')[when]).text)
const writeJson = (dir: string, file: string, value: unknown) =>
  writeFileSync(join(dir, file), JSON.stringify(value))

/**
 * A copy of the bundle `dir` at `out` as an earlier rwa exported it (format 1): one checkpoint, the
 * `/log/checkpoint` answer with its unsigned `org_id`, `origin`, `tree_size` and `root_hash`, and the
 * manifest's unsigned `tree_size_before_records`.
 */
function asEarlierExport(dir: string, out: string): void {
  rmSync(out, { recursive: true, force: true })
  cpSync(dir, out, { recursive: true })
  if (!existsSync(join(out, 'checkpoints.json'))) return
  const note: string = readJson(out, 'checkpoints.json').after
  const { origin, size, root } = parseCheckpointText(parseNote(note).text)
  const manifest = readJson(out, 'manifest.json')
  writeJson(out, 'manifest.json', {
    ...manifest,
    format: 'rwa-audit-bundle/1',
    tree_size_before_records: size,
  })
  writeJson(out, 'checkpoint.json', {
    org_id: manifest.org_id,
    origin,
    tree_size: size,
    root_hash: root.toString('base64'),
    checkpoint: note,
    log_key: readJson(out, 'trust-bundle.json').log_key,
  })
  rmSync(join(out, 'checkpoints.json'))
}

describe('rwa audit export and rwa audit verify', () => {
  let bundle: string
  let trust: string

  it('exports an organization with thousands of events; the bundle verifies offline, pinned or not', async () => {
    const saved = await run(['trust-bundle', '--json'])
    expect(saved.exitCode, saved.stderr).toBe(0)
    trust = join(home.dir, 'trust.json')
    writeFileSync(trust, saved.stdout)
    expect(JSON.parse(saved.stdout).log_key.vkey).toMatch(/^rwa\.test\/console\/audit\/ledger\+[0-9a-f]{8}\+/)

    bundle = join(home.dir, 'bundle')
    const exported = await run(['audit', 'export', '--out', bundle])
    expect(exported.exitCode, exported.stderr).toBe(0)
    // Piped: no progress line on stderr.
    expect(exported.stderr).not.toContain('\r')
    const entries = readJson(bundle, 'entries.json')
    expect(entries.length).toBeGreaterThan(BULK_EVENTS)
    expect(checkpointOf(bundle, 'after').size).toBe(entries.length)
    // The signed notes alone: no unsigned copy of the origin, or of a size, beside them.
    expect(Object.keys(readJson(bundle, 'checkpoints.json'))).toEqual(['before', 'after'])
    expect(readFileSync(join(bundle, 'manifest.json'), 'utf8')).not.toMatch(/origin|tree_size/)
    expect(readJson(bundle, 'transfers.json')).toHaveLength(2)
    // The transfers' proofs and the recovery's.
    expect(readJson(bundle, 'proofs.json')).toHaveLength(3)
    expect(readJson(bundle, 'proofs.json').find((p: any) => p.proof_id === recoveryProofId)).toMatchObject({
      decision: 'recovered',
      log_index: recoveryLogIndex,
    })
    expect(readJson(bundle, 'credentials.json')).toHaveLength(2)
    expect(readJson(bundle, 'attestations.json')).toHaveLength(4)
    expect(Object.keys(readJson(bundle, 'status-lists.json'))).toHaveLength(2)
    expect(readJson(bundle, 'proofs.json')[0].log_index).toEqual(expect.any(Number))

    const pinned = await run(['audit', 'verify', bundle, '--trust', trust])
    expect(pinned.exitCode, pinned.stderr).toBe(0)
    expect(pinned.stdout).toContain(`${entries.length} entries rebuild the checkpoint's root`)
    expect(pinned.stdout).toMatch(
      /2 credentials and 4 attestations: each VC-JWT signed by its jurisdiction's issuer/,
    )
    expect(pinned.stdout).toMatch(/2 status lists signed by their issuers; 1 revoked, its bit set/)
    expect(pinned.stdout).toContain('1 recovery proof, each named by its token.recovered entry')
    // Nothing was written while it exported: a snapshot.
    expect(checkpointOf(bundle, 'before').size).toBe(entries.length)
    expect(pinned.stdout).toContain(`a consistent snapshot: the log stood still at ${entries.length} entries`)
    expect(pinned.stderr).not.toContain('not a snapshot')
    expect(pinned.stderr).not.toContain('not pinned')
    const unpinned = await run(['audit', 'verify', bundle, '--json'])
    expect(unpinned.exitCode, unpinned.stderr).toBe(0)
    expect(JSON.parse(unpinned.stdout)).toMatchObject({ valid: true, tree_size: entries.length })
    expect(unpinned.stderr).toContain('log key not pinned')
  })

  const tampered = (name: string, change: (dir: string) => void) => {
    const dir = join(home.dir, `tampered-${name}`)
    rmSync(dir, { recursive: true, force: true })
    cpSync(bundle, dir, { recursive: true })
    change(dir)
    return dir
  }
  const expectRefused = async (dir: string, pattern: RegExp, args: string[] = ['--trust', trust]) => {
    const res = await run(['audit', 'verify', dir, ...args])
    expect(res.exitCode, res.stdout + res.stderr).toBe(8)
    expect(res.stderr).toMatch(pattern)
  }

  it('an entry deleted, reordered or edited is exit 8', async () => {
    await expectRefused(
      tampered('deleted', (dir) => {
        const entries = readJson(dir, 'entries.json')
        // The rejected transfer's event, say, and the positions after it renumbered.
        entries.splice(20, 1)
        writeJson(
          dir,
          'entries.json',
          entries.map((e: any, i: number) => ({ ...e, log_index: i })),
        )
      }),
      /covers \d+ entries and the bundle has \d+: entries were deleted/,
    )
    await expectRefused(
      tampered('reordered', (dir) => {
        const entries = readJson(dir, 'entries.json')
        ;[entries[5], entries[6]] = [entries[6], entries[5]]
        writeJson(
          dir,
          'entries.json',
          entries.map((e: any, i: number) => ({ ...e, log_index: i })),
        )
      }),
      /do not rebuild the checkpoint's root/,
    )
    await expectRefused(
      tampered('edited', (dir) => {
        const entries = readJson(dir, 'entries.json')
        entries[3].changes = { before: null, after: { transfer_requirements: [] } }
        writeJson(dir, 'entries.json', entries)
      }),
      /do not rebuild the checkpoint's root/,
    )
  })

  it('a record without its entry is exit 8', async () => {
    await expectRefused(
      tampered('unlogged-transfer', (dir) => {
        const transfers = readJson(dir, 'transfers.json')
        writeJson(dir, 'transfers.json', [
          ...transfers,
          { ...transfers[0], transfer_id: 'tx_01KFAKEFAKEFAKEFAKEFAKEFAK' },
        ])
      }),
      /transfer tx_01KFAKEFAKEFAKEFAKEFAKEFAK has no entry in the log/,
    )
    await expectRefused(
      tampered('unlogged-credential', (dir) => {
        const credentials = readJson(dir, 'credentials.json')
        writeJson(dir, 'credentials.json', [
          ...credentials,
          { ...credentials[0], credential_id: 'cred_01KFAKE' },
        ])
      }),
      /credential cred_01KFAKE has no entry in the log/,
    )
  })

  it('a record deleted (a transfer with its proof, a credential) while its entries stay in the log is exit 8', async () => {
    let transferId = ''
    await expectRefused(
      tampered('deleted-transfer', (dir) => {
        const [gone, ...transfers] = readJson(dir, 'transfers.json')
        transferId = gone.transfer_id
        writeJson(dir, 'transfers.json', transfers)
        writeJson(
          dir,
          'proofs.json',
          readJson(dir, 'proofs.json').filter((p: any) => p.transfer_id !== gone.transfer_id),
        )
      }),
      new RegExp(
        `transfer ${transferId}: its entry \\d+ \\(transfer\\.\\w+\\) is in the log, its record is not in the bundle`,
      ),
    )
    expect(transferId).toMatch(/^tx_/)
    await expectRefused(
      tampered('deleted-credential', (dir) => {
        writeJson(dir, 'credentials.json', readJson(dir, 'credentials.json').slice(1))
      }),
      /credential cred_\w+: its entry \d+ \(credential\.issued\) is in the log, its record is not in the bundle/,
    )
    // Nor can the window be turned round: the checkpoint before the records is the smaller.
    await expectRefused(
      tampered('window', (dir) => {
        const { after } = readJson(dir, 'checkpoints.json')
        writeJson(dir, 'checkpoints.json', { before: after, after: checkpointBeforeRevocation })
      }),
      /the checkpoint before the records covers \d+ entries, the one after \d+: not taken in that order/,
    )
  })

  it('a key twice in one object of a bundle file is exit 8, of a trust file exit 2, naming it', async () => {
    // The genuine value last (what JSON.parse keeps), another first (what other readers show).
    const twice = (value: unknown, key: string, shown: unknown) =>
      `{${JSON.stringify(key)}:${JSON.stringify(shown)},${JSON.stringify(value).slice(1)}`
    let index = -1
    await expectRefused(
      tampered('entry-key-twice', (dir) => {
        const entries = readJson(dir, 'entries.json')
        index = entries.findIndex((e: any) => e.action === 'transfer.approved')
        writeFileSync(
          join(dir, 'entries.json'),
          `[${entries.map((e: any, i: number) => (i === index ? twice(e, 'action', 'transfer.rejected') : JSON.stringify(e))).join(',')}]`,
        )
      }),
      /entries\.json: the key "action" appears twice in one object \(at \[\d+\]\.action\)/,
    )
    expect(index).toBeGreaterThan(0)
    await expectRefused(
      tampered('manifest-key-twice', (dir) => {
        writeFileSync(join(dir, 'manifest.json'), twice(readJson(dir, 'manifest.json'), 'org_id', 'other'))
      }),
      /manifest\.json: the key "org_id" appears twice/,
    )
    const trustTwice = join(home.dir, 'trust-key-twice.json')
    writeFileSync(trustTwice, twice(readJson(home.dir, 'trust.json'), 'org_id', 'other'))
    const res = await run(['audit', 'verify', bundle, '--trust', trustTwice])
    expect(res.exitCode, res.stderr).toBe(2)
    expect(res.stderr).toMatch(
      /trust-key-twice\.json: the key "org_id" appears twice in one object \(at org_id\)/,
    )
  })

  it('a checkpoint re-signed with another key is exit 8 against the pinned key', async () => {
    const dir = tampered('resigned', (dir) => {
      // Delete an entry, rebuild the tree and re-sign its checkpoint with a key of one's own, put in
      // the bundle's trust bundle too: self-consistent, but not signed by the log key.
      const entries = readJson(dir, 'entries.json')
        .filter((_: unknown, i: number) => i !== 20)
        .map((e: any, i: number) => ({ ...e, log_index: i }))
      const { root, size } = rootOfLeaves(entries.map(eventLeafHash))
      const { origin } = checkpointOf(dir, 'after')
      const { privateKey } = generateKeyPairSync('ed25519')
      const vkey = verifierKey(origin, rawPublicKey(privateKey))
      const note = signCheckpoint({ origin, size, root }, origin, privateKey)
      writeJson(dir, 'entries.json', entries)
      writeJson(dir, 'checkpoints.json', { before: note, after: note })
      const trustBundle = readJson(dir, 'trust-bundle.json')
      writeJson(dir, 'trust-bundle.json', { ...trustBundle, log_key: { ...trustBundle.log_key, vkey } })
    })
    await expectRefused(dir, /the checkpoint before the records: the note is not signed by the log key/)
    // Unpinned, the forgery is self-consistent: this is what --trust is for, and the CLI says so.
    const unpinned = await run(['audit', 'verify', dir])
    expect(unpinned.exitCode).toBe(0)
    expect(unpinned.stderr).toContain('log key not pinned')
  })

  /** A JWT's header (0) or payload (1), decoded. */
  const jwtPart = (jwt: string, i: 0 | 1) =>
    JSON.parse(Buffer.from(jwt.split('.')[i]!, 'base64url').toString('utf8'))
  const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  /** `jwt` signed again, its payload changed, by a fresh Ed25519 key of one's own named as its issuer. */
  const resigned = (jwt: string, change: (payload: any) => any = (p) => p) => {
    const { privateKey } = generateKeyPairSync('ed25519')
    const did = didKeyOf(rawPublicKey(privateKey))
    const header = encoded({ ...jwtPart(jwt, 0), kid: verificationMethodOf(did) })
    const payload = encoded(change({ ...jwtPart(jwt, 1), iss: did, issuer: did }))
    const signature = sign(null, Buffer.from(`${header}.${payload}`), privateKey).toString('base64url')
    return { did, jwt: `${header}.${payload}.${signature}` }
  }
  /** Changes the record `id` of `file` in place. */
  const editRecord = (dir: string, file: string, id: string, change: (record: any) => void) => {
    const records = readJson(dir, file)
    const record = records.find(
      (r: any) => (r.credential_id ?? r.transfer_id) === id || r.attestation_id === id,
    )
    expect(record, `${id} in ${file}`).toBeDefined()
    change(record)
    writeJson(dir, file, records)
  }
  const activeCredential = () =>
    readJson(bundle, 'credentials.json').find((c: any) => c.credential_id !== revokedId)

  it("a credential or attestation that is not what its jurisdiction's issuer signed is exit 8, naming it", async () => {
    const active = activeCredential()
    const id = active.credential_id
    await expectRefused(
      tampered('vc-resigned', (dir) =>
        editRecord(dir, 'credentials.json', id, (c) => {
          const forged = resigned(c.vc_jwt, (p) => ({
            ...p,
            credentialSubject: {
              ...p.credentialSubject,
              property: { ...p.credentialSubject.property, value_usd: 1 },
            },
          }))
          c.vc_jwt = forged.jwt
          c.issuer_did = forged.did
          c.property_data = { ...c.property_data, value_usd: 1 }
        }),
      ),
      new RegExp(`credential ${id}: signature valid, issuer not trusted: did:key:\\w+ is not an issuer`),
    )
    await expectRefused(
      tampered('vc-record-edited', (dir) =>
        editRecord(dir, 'credentials.json', id, (c) => {
          c.property_data.value_usd *= 10
        }),
      ),
      new RegExp(`credential ${id}: the record's property_data .* differs from the signed credential`),
    )
    await expectRefused(
      tampered('vc-field-deleted', (dir) =>
        editRecord(dir, 'credentials.json', id, (c) => {
          // The payload without its credentialStatus, the signature kept: a credential no list can revoke.
          const [header, payload, signature] = c.vc_jwt.split('.')
          const { credentialStatus: _dropped, ...rest } = JSON.parse(
            Buffer.from(payload, 'base64url').toString(),
          )
          c.vc_jwt = `${header}.${encoded(rest)}.${signature}`
          c.credential_status = null
        }),
      ),
      new RegExp(`credential ${id}: the signature does not verify with the key of did:key:\\w+`),
    )
    const attestation = readJson(bundle, 'attestations.json')[0]
    await expectRefused(
      tampered('attestation-edited', (dir) =>
        editRecord(dir, 'attestations.json', attestation.attestation_id, (a) => {
          a.attester = 'Nobody Checked Ltd'
        }),
      ),
      new RegExp(
        `attestation ${attestation.attestation_id}: the record's attester .* differs from the signed attestation`,
      ),
    )
    // A credential's record, untouched, listed as an attestation: what was signed decides what it is.
    await expectRefused(
      tampered('credential-as-attestation', (dir) => {
        writeJson(dir, 'attestations.json', [...readJson(dir, 'attestations.json'), active])
      }),
      /attestation undefined: its VC is signed as a credential, not as an attestation/,
    )
    const transfer = readJson(bundle, 'transfers.json')[0]
    await expectRefused(
      tampered('transfer-edited', (dir) =>
        editRecord(dir, 'transfers.json', transfer.transfer_id, (t) => {
          t.amount += 1
        }),
      ),
      new RegExp(`transfer ${transfer.transfer_id}: the transfer's amount .* differs from its signed proof`),
    )
  })

  it('a recovery proof deleted, edited, re-signed or pointing at another entry is exit 8, naming it', async () => {
    const id = recoveryProofId
    const editProof = (dir: string, change: (proof: any) => void) => {
      const proofs = readJson(dir, 'proofs.json')
      const proof = proofs.find((p: any) => p.proof_id === id)
      expect(proof, `${id} in proofs.json`).toBeDefined()
      change(proof)
      writeJson(dir, 'proofs.json', proofs)
    }
    await expectRefused(
      tampered('recovery-proof-deleted', (dir) => {
        editProof(dir, () => {})
        writeJson(
          dir,
          'proofs.json',
          readJson(dir, 'proofs.json').filter((p: any) => p.proof_id !== id),
        )
      }),
      new RegExp(
        `entry ${recoveryLogIndex} \\(token.recovered\\) names proof ${id}, which is not in the bundle`,
      ),
    )
    await expectRefused(
      tampered('recovery-proof-edited', (dir) =>
        editProof(dir, (p) => {
          p.recovery.moved[0].amount += 100
          p.recovery.new_did = 'did:web:mallory'
        }),
      ),
      new RegExp(`proof ${id}: digest does not match the evaluated facts`),
    )
    await expectRefused(
      tampered('recovery-proof-resigned', (dir) =>
        editProof(dir, (p) => {
          // Edited and signed again by a fresh Ed25519 key under the genuine key's kid: digest and
          // payload consistent, signature not by the trust bundle's key.
          p.recovery.new_did = 'did:web:mallory'
          const { privateKey } = generateKeyPairSync('ed25519')
          const header = encoded({ alg: 'EdDSA', typ: 'rwa-proof+jws', kid: p.kid })
          const payload = Buffer.from(canonicalFacts(p)).toString('base64url')
          const signature = sign(null, Buffer.from(`${header}.${payload}`), privateKey).toString('base64url')
          p.digest = proofDigest(p)
          p.jws = `${header}.${payload}.${signature}`
        }),
      ),
      new RegExp(`proof ${id}: the JWS signature does not verify with the published key`),
    )
    await expectRefused(
      tampered('recovery-proof-misplaced', (dir) =>
        editProof(dir, (p) => {
          p.log_index = recoveryLogIndex + 1
        }),
      ),
      new RegExp(
        `proof ${id} names log_index ${recoveryLogIndex + 1}, which is not a token.recovered entry naming it \\(its entry is ${recoveryLogIndex}\\)`,
      ),
    )
  })

  it('a status list not signed by its issuer, one that disagrees with a record, or one missing is exit 8', async () => {
    const active = activeCredential()
    const usList = active.credential_status[0].statusListCredential as string
    const sgList = readJson(bundle, 'credentials.json').find((c: any) => c.credential_id === revokedId)
      .credential_status[0].statusListCredential as string
    const quoted = (url: string) => url.replace(/[.?/]/g, (c) => `\\${c}`)
    // The US list signed again by a key of one's own: every bit clear, as a list can be made to say.
    await expectRefused(
      tampered('list-resigned', (dir) => {
        const lists = readJson(dir, 'status-lists.json')
        lists[usList] = resigned(lists[usList]).jwt
        writeJson(dir, 'status-lists.json', lists)
      }),
      new RegExp(
        `status list ${quoted(usList)}: signature valid, issuer not trusted: did:key:\\w+ is not an issuer`,
      ),
    )
    // The SG list as it was served before the revocation: genuine, and the revoked credential's bit clear.
    await expectRefused(
      tampered('list-bit-cleared', (dir) => {
        const lists = readJson(dir, 'status-lists.json')
        lists[sgList] = sgListBeforeRevocation
        writeJson(dir, 'status-lists.json', lists)
      }),
      new RegExp(
        `credential ${revokedId}: revoked, but bit \\d+ of its status list ${quoted(sgList)} is clear`,
      ),
    )
    // The list a credential names, absent from the bundle.
    await expectRefused(
      tampered('list-missing', (dir) => {
        const lists = readJson(dir, 'status-lists.json')
        delete lists[sgList]
        writeJson(dir, 'status-lists.json', lists)
      }),
      new RegExp(`credential ${revokedId}: its status list ${quoted(sgList)} is not in the bundle`),
    )
    // A revoked credential edited to active: its revocation is in the log.
    await expectRefused(
      tampered('revocation-hidden', (dir) =>
        editRecord(dir, 'credentials.json', revokedId, (c) => {
          c.status = 'active'
          c.revoked_at = null
          c.revocation_reason = null
        }),
      ),
      new RegExp(`credential ${revokedId}: active, but bit \\d+ of its status list ${quoted(sgList)} is set`),
    )
  })
})

/**
 * A real HTTP proxy to the server that runs `before(method, path)` before forwarding each request: the
 * CLI's reads, with writes made at a chosen point of them; `rewrite(path, body)` may change an answer
 * on its way back (a man in the middle).
 */
const proxy = async (
  before: (method: string, path: string) => Promise<void>,
  rewrite: (path: string, body: Buffer) => Buffer = (_path, body) => body,
) => {
  const hop = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'content-encoding'])
  const proxied = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      await before(req.method ?? 'GET', req.url ?? '/')
      const upstream = await fetch(new URL(req.url ?? '/', server.url), {
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
  return {
    url: `http://127.0.0.1:${(proxied.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => proxied.close(() => resolve())),
  }
}

describe('rwa audit export while the log is written', () => {
  /** Whether `path` is the attestations list: read after the credentials, before the status lists. */
  const listsAttestations = (method: string, path: string) =>
    method === 'GET' && new URL(path, 'http://x').pathname === '/console/rwa/attestations'

  it('a revocation logged while the records were read makes the export read them again: a snapshot, no note', async () => {
    const api = over(() => server.url, server.adminKey)
    const created = await api.post(
      '/console/rwa/credentials',
      { jurisdiction: 'US', owner_did: OWNER, property_data: { ...PROPERTY, title_deed: 'US-RACED-1' } },
      { key },
    )
    expect(created.status, created.text).toBe(201)
    const id = created.body.credential_id
    // Revoked once, after the credentials were read (it was active in them) and before its list was.
    let revoked = false
    const racing = await proxy(async (method, path) => {
      if (revoked || !listsAttestations(method, path)) return
      revoked = true
      const res = await api.post(`/console/rwa/credentials/${id}/revoke`, { reason: 'raced' }, { key })
      expect(res.status, res.text).toBe(200)
    })
    const dir = join(home.dir, 'raced-once')
    try {
      const exported = await home.run(['audit', 'export', '--out', dir, '--json'], {
        env: { ...env, RWA_URL: racing.url },
        timeout: 120_000,
      })
      expect(exported.exitCode, exported.stderr).toBe(0)
      expect(JSON.parse(exported.stdout).snapshot).toBe(true)
    } finally {
      await racing.close()
    }
    expect(revoked).toBe(true)
    expect(checkpointOf(dir, 'before').size).toBe(checkpointOf(dir, 'after').size)
    expect(readJson(dir, 'credentials.json').find((c: any) => c.credential_id === id).status).toBe('revoked')
    const verified = await run(['audit', 'verify', dir, '--trust', join(home.dir, 'trust.json')])
    expect(verified.exitCode, verified.stderr).toBe(0)
    expect(verified.stdout).toContain('a consistent snapshot')
    expect(verified.stdout).not.toContain('NOT A SNAPSHOT')
    expect(verified.stderr).not.toContain('not a snapshot')
  })

  it('a log that never stands still: 3 reads, then a bundle that is not a snapshot: exit 8 unless --accept-window', async () => {
    const api = over(() => server.url, server.adminKey)
    let writes = 0
    const busy = await proxy(async (method, path) => {
      if (!listsAttestations(method, path)) return
      writes++
      const res = await api.post(
        '/console/rwa/attestations',
        { jurisdiction: 'US', subject_did: RECIPIENT, type: 'aml', attester: `Busy ${writes}` },
        { key },
      )
      expect(res.status, res.text).toBe(201)
    })
    const dir = join(home.dir, 'never-still')
    try {
      const exported = await home.run(['audit', 'export', '--out', dir], {
        env: { ...env, RWA_URL: busy.url },
        timeout: 120_000,
      })
      expect(exported.exitCode, exported.stderr).toBe(0)
      expect(exported.stderr).toMatch(/not a snapshot: the log grew while the records were read, 3 times/)
    } finally {
      await busy.close()
    }
    expect(writes).toBe(3)
    const before = checkpointOf(dir, 'before').size
    expect(before).toBe(checkpointOf(dir, 'after').size - 1)
    const refused = await run(['audit', 'verify', dir, '--trust', join(home.dir, 'trust.json')])
    expect(refused.exitCode, refused.stderr).toBe(8)
    expect(refused.stderr).toMatch(/not a snapshot: the log grew from \d+ to \d+ entries .* --accept-window/)
    const verified = await run([
      'audit',
      'verify',
      dir,
      '--trust',
      join(home.dir, 'trust.json'),
      '--accept-window',
      '--json',
    ])
    expect(verified.exitCode, verified.stderr).toBe(0)
    const outcome = JSON.parse(verified.stdout)
    expect(outcome).toMatchObject({ valid: true, snapshot: false, tree_size_before_records: before })
    // The one entry logged between the checkpoints, named: the third busy attestation, in the bundle.
    expect(outcome.window).toEqual([
      expect.stringMatching(
        new RegExp(`^entry ${before} \\(attestation\\.submitted\\) on attestation att_\\w+$`),
      ),
    ])
    expect(outcome.notes.join('\n')).toContain(`NOT A SNAPSHOT: the log grew from ${before} to`)
    expect(verified.stderr).toMatch(
      /not a snapshot: the log grew from \d+ to \d+ entries while the export read the records \(both checkpoints signed\); the 1 entry between/,
    )
  })

  it('a revocation hidden behind an older genuine checkpoint: exit 8, even with --accept-window, naming it', async () => {
    const trust = join(home.dir, 'trust.json')
    const dir = join(home.dir, 'hidden-as-race')
    rmSync(dir, { recursive: true, force: true })
    expect((await run(['audit', 'export', '--out', dir])).exitCode).toBe(0)
    const credentials = readJson(dir, 'credentials.json')
    const hidden = credentials.find((c: any) => c.credential_id === revokedId)
    Object.assign(hidden, { status: 'active', revoked_at: null, revocation_reason: null })
    writeJson(dir, 'credentials.json', credentials)
    const refused = await run(['audit', 'verify', dir, '--trust', trust])
    expect(refused.exitCode, refused.stderr).toBe(8)
    // The checkpoint before the records swapped for a genuine one of before the revocation: the
    // revocation now falls between the two, where a race could have put it; and the status list
    // swapped for the genuine one of before the revocation (bit clear).
    writeJson(dir, 'checkpoints.json', {
      ...readJson(dir, 'checkpoints.json'),
      before: checkpointBeforeRevocation,
    })
    const lists = readJson(dir, 'status-lists.json')
    const sgList: string = hidden.credential_status[0].statusListCredential
    writeJson(dir, 'status-lists.json', { ...lists, [sgList]: sgListBeforeRevocation })
    // A genuine export reads the record of a revocation logged meanwhile again, after the checkpoint
    // that covers it: the window excuses no record that does not show its revocation.
    for (const more of [[], ['--accept-window']]) {
      const res = await run(['audit', 'verify', dir, '--trust', trust, ...more])
      expect(res.exitCode, res.stdout + res.stderr).toBe(8)
      expect(res.stderr).toMatch(
        new RegExp(
          `credential ${revokedId}: the log revoked it \\(entry \\d+\\), but its record says active`,
        ),
      )
    }
  })
})

describe('the window between the two checkpoints', () => {
  it('records deleted and the unsigned window stretched to the whole log: exit 8 even with --accept-window, naming them', async () => {
    const trust = join(home.dir, 'trust.json')
    const dir = join(home.dir, 'window-stretched')
    rmSync(dir, { recursive: true, force: true })
    expect((await run(['audit', 'export', '--out', dir])).exitCode).toBe(0)
    const [gone, ...kept] = readJson(dir, 'transfers.json')
    writeJson(dir, 'transfers.json', kept)
    writeJson(
      dir,
      'proofs.json',
      readJson(dir, 'proofs.json').filter((p: any) => p.proof_id !== gone.proof_id),
    )
    const credentials = readJson(dir, 'credentials.json')
    Object.assign(
      credentials.find((c: any) => c.credential_id === revokedId),
      { status: 'active', revoked_at: null, revocation_reason: null },
    )
    writeJson(dir, 'credentials.json', credentials)
    writeJson(dir, 'manifest.json', { ...readJson(dir, 'manifest.json'), tree_size_before_records: 0 })
    for (const more of [[], ['--accept-window']]) {
      const res = await run(['audit', 'verify', dir, '--trust', trust, ...more])
      expect(res.exitCode, res.stdout + res.stderr).toBe(8)
      expect(res.stderr).toContain(`transfer ${gone.transfer_id as string}: its entry`)
      expect(res.stderr).toMatch(
        new RegExp(
          `credential ${revokedId}: the log revoked it \\(entry \\d+\\), but its record says active`,
        ),
      )
      expect(res.stdout).not.toContain('every record has its entry')
    }
  })
})

describe('counts of one', () => {
  it('a log of 1 entry is said so, singular, by rwa log verify, rwa audit export and rwa audit verify', async () => {
    // A new organization's log holds one entry: its first key's key.created.
    const single = await newOrg(server.url, server.adminKey, 'single')
    const as = (args: string[]) => home.run(args, { env: { ...env, RWA_API_KEY: single }, timeout: 120_000 })

    const seen = await as(['log', 'verify'])
    expect(seen.exitCode, seen.stderr).toBe(0)
    expect(seen.stderr).toContain('log of single: 1 entry, checkpoint signed by')

    const dir = join(home.dir, 'single')
    const exported = await as(['audit', 'export', '--out', dir])
    expect(exported.exitCode, exported.stderr).toBe(0)
    expect(readJson(dir, 'entries.json')).toHaveLength(1)
    expect(exported.stderr).toContain(
      'exported 1 log entry, 0 credentials, 0 attestations, 0 transfers and 0 proofs of single',
    )

    const verified = await as(['audit', 'verify', dir])
    expect(verified.exitCode, verified.stderr).toBe(0)
    expect(verified.stdout).toContain("1 entry rebuilds the checkpoint's root")
    expect(verified.stdout).toContain('consistent with the checkpoint of 1 entry seen at')
    expect(verified.stdout).toContain('a consistent snapshot: the log stood still at 1 entry while')
    expect(verified.stdout).not.toMatch(/\b1 entries\b/)
  })
})

describe('rwa log verify', () => {
  it('keeps the checkpoint it saw, accepts a log that grew, and refuses a rolled-back database with exit 8', async () => {
    const first = await run(['log', 'verify', '--trust', join(home.dir, 'trust.json')])
    expect(first.exitCode, first.stderr).toBe(0)
    expect(first.stdout).toContain('first checkpoint seen')
    const statePath = join(home.dir, '.local', 'state', 'rwa', 'log-checkpoints.json')
    const seenBefore = JSON.parse(readFileSync(statePath, 'utf8')).logs['rwa.test/console/audit/ledger']
    expect(seenBefore.tree_size).toBeGreaterThan(BULK_EVENTS)

    // A backup of the database as it is now, then more writes.
    await server.stop()
    const backup = `${storage.dbPath}.backup`
    copyFileSync(storage.dbPath!, backup)
    await restart()
    const api = over(() => server.url, server.adminKey)
    // A write: an attestation (the recovery in beforeAll moved the owner's units away).
    const write = async () => {
      const attestation = await api.post(
        '/console/rwa/attestations',
        { jurisdiction: 'US', subject_did: RECIPIENT, type: 'kyc', attester: 'Acme KYC Ltd' },
        { key },
      )
      expect(attestation.status, attestation.text).toBe(201)
    }
    await write()
    const grown = await run(['log', 'verify', '--json'])
    expect(grown.exitCode, grown.stderr).toBe(0)
    const grew = JSON.parse(grown.stdout)
    expect(grew.previous.tree_size).toBe(seenBefore.tree_size)
    expect(grew.tree_size).toBeGreaterThan(seenBefore.tree_size)
    const stateAfterGrowth = readFileSync(statePath, 'utf8')

    // The database rolled back to the backup: a shorter log. Exit 8, and the state is kept as it was.
    await server.stop()
    copyFileSync(backup, storage.dbPath!)
    for (const suffix of ['-wal', '-shm'])
      if (existsSync(storage.dbPath + suffix)) rmSync(storage.dbPath + suffix)
    await restart()
    const rolledBack = await run(['log', 'verify'])
    expect(rolledBack.exitCode, rolledBack.stderr).toBe(8)
    expect(rolledBack.stderr).toMatch(/log rewritten: the log has \d+ entries, fewer than the \d+ seen/)
    expect(readFileSync(statePath, 'utf8')).toBe(stateAfterGrowth)

    // Writes after the rollback make the log as long again, but a fork: still exit 8.
    for (let i = 0; i < 3; i++) await write()
    const forked = await run(['log', 'verify'])
    expect(forked.exitCode, forked.stderr).toBe(8)
    expect(forked.stderr).toMatch(/log rewritten: .*(does not extend|not the one seen)/)
    expect(readFileSync(statePath, 'utf8')).toBe(stateAfterGrowth)

    // The rolled-back server's export fails offline too, against the same witness state.
    const dir = join(home.dir, 'rolled-back')
    expect((await run(['audit', 'export', '--out', dir])).exitCode).toBe(0)
    const verified = await run(['audit', 'verify', dir, '--trust', join(home.dir, 'trust.json')])
    expect(verified.exitCode, verified.stderr).toBe(8)
    expect(verified.stderr).toMatch(/log rewritten/)
  })
})

describe('the witness state is keyed by the signed origin', () => {
  /** A checkpoint answer's note signed again, by a fresh key named `origin`: the forger's own. */
  const freshlySigned = (answer: any, origin: string) => {
    const { privateKey } = generateKeyPairSync('ed25519')
    const root = Buffer.from(answer.root_hash, 'base64')
    return {
      checkpoint: signCheckpoint({ origin, size: answer.tree_size, root }, origin, privateKey),
      vkey: verifierKey(origin, rawPublicKey(privateKey)),
    }
  }
  const ELSEWHERE = 'elsewhere.test/console/audit/ledger'
  /**
   * What a man in the middle answers for the rolled-back log's checkpoint, by name, and why it is
   * refused without --trust (with it, the pinned key refuses every note it did not sign).
   */
  const forgeries: Array<[string, (answer: any) => any, RegExp]> = [
    ['the origin field rewritten', (a) => ({ ...a, origin: ELSEWHERE }), /changed on its way/],
    [
      'a fresh key under the genuine origin, the origin field rewritten',
      (a) => {
        const forged = freshlySigned(a, a.origin)
        return {
          ...a,
          origin: ELSEWHERE,
          checkpoint: forged.checkpoint,
          log_key: { ...a.log_key, vkey: forged.vkey },
        }
      },
      /changed on its way/,
    ],
    [
      'a fresh key under the genuine origin',
      (a) => {
        const forged = freshlySigned(a, a.origin)
        return { ...a, checkpoint: forged.checkpoint, log_key: { ...a.log_key, vkey: forged.vkey } }
      },
      /checkpoint not verified with the key pinned on .*: the note is not signed by the log key/,
    ],
    [
      'a fresh key under a new origin, every field matching it',
      (a) => {
        const forged = freshlySigned(a, ELSEWHERE)
        return {
          ...a,
          origin: ELSEWHERE,
          checkpoint: forged.checkpoint,
          log_key: { ...a.log_key, vkey: forged.vkey },
        }
      },
      /holds organization ledger's log as rwa\.test\/console\/audit\/ledger \(.*\); now it is signed as elsewhere\.test\/console\/audit\/ledger, with a key this machine never saw/,
    ],
  ]

  it('a proxy that rewrites origin, or re-signs with a fresh key, cannot pass off a rolled-back log: exit 8, the state kept', async () => {
    const trust = join(home.dir, 'trust-witness.json')
    writeFileSync(trust, (await run(['trust-bundle', '--json'])).stdout)
    const stateHome = join(home.dir, 'witness-by-origin')
    const statePath = join(stateHome, 'rwa', 'log-checkpoints.json')
    let forge: ((answer: any) => any) | undefined
    const mitm = await proxy(
      async () => {},
      (path, body) =>
        forge && new URL(path, 'http://x').pathname === '/console/audit/log/checkpoint'
          ? Buffer.from(JSON.stringify(forge(JSON.parse(body.toString('utf8')))))
          : body,
    )
    const as = (args: string[], direct = false) =>
      home.run(args, {
        env: { ...env, ...(direct ? {} : { RWA_URL: mitm.url }), XDG_STATE_HOME: stateHome },
        timeout: 120_000,
      })
    const api = over(() => server.url, server.adminKey)
    const write = async () => {
      const res = await api.post(
        '/console/rwa/attestations',
        { jurisdiction: 'US', subject_did: RECIPIENT, type: 'kyc', attester: 'Witness KYC Ltd' },
        { key },
      )
      expect(res.status, res.text).toBe(201)
    }
    try {
      const first = await as(['log', 'verify', '--trust', trust])
      expect(first.exitCode, first.stderr).toBe(0)
      // A backup, then two writes the witness sees.
      await server.stop()
      const backup = `${storage.dbPath}.origin-backup`
      copyFileSync(storage.dbPath!, backup)
      await restart()
      await write()
      await write()
      const grown = await as(['log', 'verify'])
      expect(grown.exitCode, grown.stderr).toBe(0)
      expect(grown.stdout).toContain('consistent with the')
      const state = readFileSync(statePath, 'utf8')

      // The backup restored: the log lost the two writes.
      await server.stop()
      copyFileSync(backup, storage.dbPath!)
      for (const suffix of ['-wal', '-shm'])
        if (existsSync(storage.dbPath + suffix)) rmSync(storage.dbPath + suffix)
      await restart()
      const plain = await as(['log', 'verify'])
      expect(plain.exitCode, plain.stderr).toBe(8)
      expect(plain.stderr).toMatch(/log rewritten/)

      for (const [name, change, why] of forgeries) {
        forge = change
        for (const args of [[], ['--trust', trust]]) {
          const res = await as(['log', 'verify', ...args])
          expect(res.exitCode, `${name} ${args.join(' ')}: ${res.stdout}${res.stderr}`).toBe(8)
          if (args.length === 0) expect(res.stderr, name).toMatch(why)
          expect(res.stdout, name).not.toContain('first checkpoint seen')
          expect(readFileSync(statePath, 'utf8'), name).toBe(state)
        }
      }
      forge = undefined

      // The rolled-back server's export fails offline against the same state, whatever its unsigned
      // fields say; an export by an earlier rwa (one checkpoint, with an unsigned copy of its origin)
      // with that copy edited too.
      const dir = join(home.dir, 'rolled-back-by-origin')
      rmSync(dir, { recursive: true, force: true })
      const exported = await as(['audit', 'export', '--out', dir], true)
      expect(exported.exitCode, exported.stderr).toBe(0)
      const verified = await as(['audit', 'verify', dir, '--trust', trust], true)
      expect(verified.exitCode, verified.stderr).toBe(8)
      expect(verified.stderr).toMatch(/log rewritten/)
      const earlier = join(home.dir, 'rolled-back-by-origin-v1')
      asEarlierExport(dir, earlier)
      writeJson(earlier, 'checkpoint.json', { ...readJson(earlier, 'checkpoint.json'), origin: ELSEWHERE })
      const edited = await as(['audit', 'verify', earlier, '--trust', trust], true)
      expect(edited.exitCode, edited.stdout + edited.stderr).toBe(8)
      expect(edited.stderr).toMatch(/log rewritten/)
    } finally {
      forge = undefined
      await mitm.close()
    }
  })
})
