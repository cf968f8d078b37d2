import { createHash } from 'node:crypto'
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { cliAs, cliHome, newOrg, type OrgCli, tokenThroughCli } from '../support/cli.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'
import { ed25519Pair, TestIssuer } from '../support/test-issuer.js'

/*
 * A trusted issuer's attestation verified by `rwa credentials verify` and `rwa audit verify` against the
 * trust bundle's `external_issuers` (docs/issuers.md, "In the trust bundle"), end to end: a real server,
 * a did:web provider on loopback (test/support/test-issuer.ts), a transfer approved on its credential.
 * The forgeries first, each exit 8 naming why; then the real records hold.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 })

const BOB = 'did:web:lion:bob'
const OWNER = 'did:web:lion:owner'
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

let server: ServerProcess
let home: ReturnType<typeof cliHome>
let provider: TestIssuer
let rwa: OrgCli
let record: Record<string, any>
let issued: Awaited<ReturnType<TestIssuer['issue']>>
let trust: Record<string, any>
let bundle: string

const file = (name: string) => join(home.dir, name)
const writeJson = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 2))
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'))

/** Replaces a JWS's payload, keeping its header and signature. */
function withPayload(jws: string, payload: Record<string, unknown>): string {
  const [header, , signature] = jws.split('.')
  return [header, Buffer.from(JSON.stringify(payload)).toString('base64url'), signature].join('.')
}

beforeAll(async () => {
  server = await startServerProcess({ env: { RWA_ALLOW_HTTP_ISSUERS: '1' } })
  home = cliHome()
  provider = await TestIssuer.start()
  rwa = cliAs({ server, home }, await newOrg(server.url, server.adminKey, 'external-verify'))
  // US requires kyc; nobody holds one of the organization's own: the provider's decides.
  const { tokenId } = await tokenThroughCli(rwa, { owner: OWNER, holders: [], titleDeed: 'TD-EXT-1' })
  await rwa.json([
    'issuers',
    'add',
    '--issuer-id',
    'acme-kyc',
    '--name',
    'Acme KYC',
    '--did',
    provider.did,
    '--requirement',
    'kyc=KYCCredential',
    '--jurisdiction',
    'US',
  ])
  issued = await provider.issue({ subject: BOB, status: ['revocation', 'suspension'] })
  writeFileSync(file('kyc.jwt'), issued.vc_jwt)
  record = await rwa.json(['attestations', 'submit', '--vc', file('kyc.jwt')])
  writeJson(file('attestation.json'), record)
  const transfer = await rwa.json([
    'transfers',
    'request',
    '--token-id',
    tokenId,
    '--from',
    'US',
    '--to',
    'US',
    '--recipient-did',
    BOB,
    '--amount',
    '4',
  ])
  expect(transfer.status).toBe('approved')
  trust = await rwa.json(['trust-bundle'])
  writeJson(file('trust.json'), trust)
  bundle = file('bundle')
  const exported = await rwa.run(['audit', 'export', '--out', bundle])
  expect(exported.exitCode, exported.stderr).toBe(0)
})
afterAll(async () => {
  await provider?.stop()
  await server?.cleanup()
  home?.cleanup()
})

/** `rwa credentials verify FILE --trust TRUST [--offline]`, expecting exit 8 and `pattern` on stderr. */
async function refused(recordOrJwt: unknown, pattern: RegExp, trustFile = file('trust.json')) {
  const path = file(`forged-${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(path, typeof recordOrJwt === 'string' ? recordOrJwt : JSON.stringify(recordOrJwt))
  const res = await rwa.run(['credentials', 'verify', path, '--trust', trustFile, '--offline'])
  expect(res.exitCode, res.stdout + res.stderr).toBe(8)
  expect(res.stderr).toMatch(pattern)
}

const withJwt = (jwt: string) => ({ ...record, vc_jwt: jwt, vc_sha256: sha256(jwt) })

describe('rwa credentials verify of a trusted issuer’s attestation: forgeries', () => {
  it('another key signing the VC under the issuer’s kid is exit 8', async () => {
    const stranger = { ...ed25519Pair(), kid: provider.currentKey.kid }
    await refused(withJwt(await provider.sign(issued.payload, { key: stranger })), /signature_invalid/)
  })

  it('an edited claim, or a deleted one, is exit 8', async () => {
    const edited = withPayload(issued.vc_jwt, { ...issued.payload, credentialSubject: { id: 'did:web:x' } })
    await refused({ ...withJwt(edited), subject_did: 'did:web:x' }, /does not verify/)
    const { validUntil: _gone, ...rest } = issued.payload
    await refused(withJwt(withPayload(issued.vc_jwt, rest)), /does not verify/)
  })

  it('a record with a field deleted is exit 8', async () => {
    const { issuer_id: _gone, ...lacking } = record
    await refused(lacking, /lacks issuer_id/)
  })

  it('an issuer absent from the bundle, or trusted there for another type, is exit 8', async () => {
    writeJson(file('trust-absent.json'), { ...trust, external_issuers: [] })
    await refused(record, /issuer_not_trusted/, file('trust-absent.json'))
    const otherType = {
      ...trust,
      external_issuers: trust.external_issuers.map((i: any) => ({
        ...i,
        requirements: { kyc: ['AMLCredential'] },
      })),
    }
    writeJson(file('trust-other-type.json'), otherType)
    await refused(record, /issuer_not_trusted_for_type/, file('trust-other-type.json'))
  })

  it('a record whose subject differs from the VC’s is exit 8', async () => {
    await refused({ ...record, subject_did: 'did:web:lion:mallory' }, /record's subject_did/)
  })
})

describe('rwa credentials verify of a trusted issuer’s attestation: the real one', () => {
  it('holds from the saved record, offline and with its issuer’s lists fetched, and by id', async () => {
    const offline = await rwa.run([
      'credentials',
      'verify',
      file('attestation.json'),
      '--trust',
      file('trust.json'),
      '--offline',
      '--json',
    ])
    expect(offline.exitCode, offline.stderr).toBe(0)
    expect(JSON.parse(offline.stdout)).toMatchObject({
      id: record.attestation_id,
      issuer_id: 'acme-kyc',
      issuer_did: provider.did,
      subject_did: BOB,
      valid: true,
      status_checked: false,
    })
    const fetched = await rwa.run([
      'credentials',
      'verify',
      file('attestation.json'),
      '--trust',
      file('trust.json'),
    ])
    expect(fetched.exitCode, fetched.stderr).toBe(0)
    expect(fetched.stdout).toContain('neither revoked nor suspended')
    const byId = await rwa.run(['credentials', 'verify', record.attestation_id])
    expect(byId.exitCode, byId.stderr).toBe(0)
    // The bare VC-JWT, too.
    const bare = await rwa.run(['credentials', 'verify', file('kyc.jwt'), '--trust', file('trust.json')])
    expect(bare.exitCode, bare.stderr).toBe(0)
    // Suspended by its issuer since: no longer holds (fail-closed on the lists, fetched now).
    provider.suspend(issued.index)
    const suspended = await rwa.run([
      'credentials',
      'verify',
      file('attestation.json'),
      '--trust',
      file('trust.json'),
    ])
    expect(suspended.exitCode).toBe(8)
    expect(suspended.stderr).toContain('credential_suspended')
    provider.reinstate(issued.index)
  })
})

describe('rwa audit verify of a bundle holding a trusted issuer’s attestation', () => {
  const tampered = (name: string, change: (dir: string) => void) => {
    const dir = file(`tampered-${name}`)
    rmSync(dir, { recursive: true, force: true })
    cpSync(bundle, dir, { recursive: true })
    change(dir)
    return dir
  }
  const editAttestation = (dir: string, edit: (a: any) => void) => {
    const path = join(dir, 'attestations.json')
    const list = readJson(path)
    edit(list.find((a: any) => a.attestation_id === record.attestation_id))
    writeJson(path, list)
  }
  const expectRefused = async (dir: string, pattern: RegExp) => {
    const res = await rwa.run(['audit', 'verify', dir, '--trust', file('trust.json')])
    expect(res.exitCode, res.stdout + res.stderr).toBe(8)
    expect(res.stderr).toMatch(pattern)
  }

  it('another VC of the issuer about the same subject, in place of the one the proof signed, is exit 8', async () => {
    const other = await provider.issue({ subject: BOB, status: ['revocation', 'suspension'] })
    await expectRefused(
      tampered('swapped-vc', (dir) =>
        editAttestation(dir, (a) => {
          // A record that is itself consistent with the other VC: only the proof's digest tells.
          a.vc_jwt = other.vc_jwt
          a.vc_sha256 = sha256(other.vc_jwt)
          a.valid_from = other.payload.validFrom
          a.valid_until = other.payload.validUntil
          a.credential_status = other.payload.credentialStatus
        }),
      ),
      /vc_sha256/,
    )
  })

  it('a VC signed by another key, a record whose subject differs, or an issuer absent from the bundle is exit 8', async () => {
    const stranger = { ...ed25519Pair(), kid: provider.currentKey.kid }
    const forged = await provider.sign(issued.payload, { key: stranger })
    await expectRefused(
      tampered('other-key', (dir) =>
        editAttestation(dir, (a) => {
          a.vc_jwt = forged
          a.vc_sha256 = sha256(forged)
        }),
      ),
      new RegExp(`attestation ${record.attestation_id}: .*signature_invalid`),
    )
    await expectRefused(
      tampered('subject', (dir) =>
        editAttestation(dir, (a) => {
          a.subject_did = 'did:web:lion:mallory'
        }),
      ),
      new RegExp(`attestation ${record.attestation_id}: the record's subject_did`),
    )
    const dir = tampered('absent', (d) => {
      const path = join(d, 'trust-bundle.json')
      writeJson(path, { ...readJson(path), external_issuers: [] })
    })
    const res = await rwa.run(['audit', 'verify', dir])
    expect(res.exitCode, res.stdout + res.stderr).toBe(8)
    expect(res.stderr).toMatch(/issuer_not_trusted/)
  })

  it('the real bundle verifies, pinned, its proof’s check bound to the attestation’s digest', async () => {
    const res = await rwa.run(['audit', 'verify', bundle, '--trust', file('trust.json')])
    expect(res.exitCode, res.stdout + res.stderr).toBe(0)
    expect(res.stdout).toContain("1 trusted issuer's attestation: each VC-JWT signed by a key of its issuer")
    const proofs = readJson(join(bundle, 'proofs.json'))
    expect(proofs[0].compliance_details.checks).toContainEqual(
      expect.objectContaining({ requirement: 'kyc', issuer_did: provider.did, vc_sha256: record.vc_sha256 }),
    )
    // The proof alone, against the bundle.
    writeJson(file('proof.json'), proofs[0])
    const proof = await rwa.run(['proofs', 'verify', file('proof.json'), '--trust', file('trust.json')])
    expect(proof.exitCode, proof.stderr).toBe(0)
    expect(proof.stdout).toContain("met by trusted issuers' attestations")
    expect(proof.stdout).toContain('digests checked for form')
    // By id: the attestation it relied on is fetched too, and its digest compared.
    const byId = await rwa.run(['proofs', 'verify', proofs[0].proof_id])
    expect(byId.exitCode, byId.stderr).toBe(0)
    expect(byId.stdout).toContain('each VC-JWT at hand with that digest')
  })
})
