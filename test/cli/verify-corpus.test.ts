import { createHmac, generateKeyPairSync, type KeyObject, sign } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { didKeyOf, verificationMethodOf } from '../../src/proof/did-key.js'
import { emptyBitstring, encodeStatusList, setStatusBit } from '../../src/proof/status-list.js'
import { apiCaller } from '../support/harness.js'
import { buildWorld, expectStatus, transferBody } from '../support/governance.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'
import { type CliRun, cliHome, newOrg } from '../support/cli.js'

/*
 * The adversarial corpus of docs/verification.md (issue 21): every forgery an auditor could be handed — of a
 * credential, an attestation, a proof and a saved transfer, and of the status list a credential names —
 * run through the real CLI. Each must exit 8 (a verification that does not hold) and the untampered
 * originals must exit 0. Forgeries are written first, each from a genuine original.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 })

const home = cliHome()
let server: ServerProcess
let lists: Server
let listBase = ''
/** Every path the list server was asked for. */
const fetched: string[] = []
const file = (name: string) => join(home.dir, name)
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const parts = (jwt: string) => jwt.split('.') as [string, string, string]
const decode = (segment: string) => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
const readJwt = (path: string) => readFileSync(path, 'utf8')
const save = (name: string, value: unknown) => {
  writeFileSync(file(name), typeof value === 'string' ? value : JSON.stringify(value))
  return file(name)
}

/** A compact JWS signed with an Ed25519 key (or any header the forger likes). */
const signJws = (header: object, payload: unknown, key: KeyObject) => {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`
}
const newIssuer = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
  return { key: privateKey, did: didKeyOf(raw) }
}

let env: Record<string, string>
const run = (args: string[], input?: string) => home.run(args, { env, input })
/** Runs every case, four at a time (the machine is shared). */
async function runAll(cases: Array<[string, string[]]>): Promise<Array<[string, CliRun]>> {
  const results: Array<[string, CliRun]> = []
  for (let i = 0; i < cases.length; i += 4) {
    const batch = cases.slice(i, i + 4)
    results.push(
      ...(await Promise.all(batch.map(async ([name, args]) => [name, await run(args)] as [string, CliRun]))),
    )
  }
  return results
}
const expectAll = (results: Array<[string, CliRun]>, exitCode: number) => {
  for (const [name, result] of results) expect(result.exitCode, `${name}: ${result.stderr}`).toBe(exitCode)
}

// Saved genuine records of organization acme, and organization lion's proof.
let trust: string
let credential: Record<string, any>
let attestation: Record<string, any>
let approvedTransfer: Record<string, any>
let rejectedTransfer: Record<string, any>
let lionProof: Record<string, any>
let lionCredential: Record<string, any>
let revokedCredential: Record<string, any>
let revokedAttestation: Record<string, any>
let sgDid: string

beforeAll(async () => {
  server = await startServerProcess()
  const acme = await newOrg(server.url, server.adminKey, 'acme')
  const lion = await newOrg(server.url, server.adminKey, 'lion')
  env = { RWA_URL: server.url, RWA_API_KEY: acme }
  const caller = apiCaller(
    (path, init) => fetch(new URL(path, server.url), init),
    () => server.adminKey,
  )

  const w = await buildWorld(caller, acme)
  credential = await expectStatus(
    caller.get(`/console/rwa/credentials/${w.credentialId}`, { key: acme }),
    200,
  )
  attestation = await expectStatus(
    caller.get(`/console/rwa/attestations/${w.attestations.kyc}`, { key: acme }),
    200,
  )
  const ok = await expectStatus(
    caller.post('/console/rwa/transfers', transferBody(w.tokenId, 10), { key: acme }),
    201,
  )
  const no = await expectStatus(
    caller.post(
      '/console/rwa/transfers',
      transferBody(w.tokenId, 10, { recipient_did: 'did:web:acme:nobody' }),
      {
        key: acme,
      },
    ),
    201,
  )
  expect([ok.status, no.status]).toEqual(['approved', 'rejected'])
  approvedTransfer = await expectStatus(
    caller.get(`/console/rwa/transfers/${ok.transfer_id}`, { key: acme }),
    200,
  )
  rejectedTransfer = await expectStatus(
    caller.get(`/console/rwa/transfers/${no.transfer_id}`, { key: acme }),
    200,
  )
  const revoked = await expectStatus(
    caller.post(
      '/console/rwa/credentials',
      {
        jurisdiction: 'US',
        owner_did: 'did:web:acme:carol',
        property_data: { address: '2 Main St', type: 'office', value_usd: 5, title_deed: 'TD-REVOKED' },
      },
      { key: acme },
    ),
    201,
  )
  await expectStatus(
    caller.post(`/console/rwa/credentials/${revoked.credential_id}/revoke`, {}, { key: acme }),
    200,
  )
  revokedCredential = await expectStatus(
    caller.get(`/console/rwa/credentials/${revoked.credential_id}`, { key: acme }),
    200,
  )
  await expectStatus(
    caller.post(`/console/rwa/attestations/${w.attestations.aml}/revoke`, {}, { key: acme }),
    200,
  )
  revokedAttestation = await expectStatus(
    caller.get(`/console/rwa/attestations/${w.attestations.aml}`, { key: acme }),
    200,
  )
  sgDid = (await expectStatus(caller.get('/console/rwa/jurisdictions/SG', { key: acme }), 200)).issuer_did

  // Organization lion: the same jurisdiction codes, its own issuers; the same service key signs proofs.
  const l = await buildWorld(caller, lion)
  lionCredential = await expectStatus(
    caller.get(`/console/rwa/credentials/${l.credentialId}`, { key: lion }),
    200,
  )
  const lionTransfer = await expectStatus(
    caller.post('/console/rwa/transfers', transferBody(l.tokenId, 10), { key: lion }),
    201,
  )
  lionProof = await expectStatus(
    caller.get(`/console/rwa/proofs/${lionTransfer.proof_id}`, { key: lion }),
    200,
  )

  const bundle = await run(['trust-bundle'])
  expect(bundle.exitCode, bundle.stderr).toBe(0)
  trust = save('trust.json', bundle.stdout)

  lists = createServer((req, res) => {
    fetched.push(req.url ?? '/')
    listRoute(req.url ?? '/', res)
  })
  await new Promise<void>((resolve) => lists.listen(0, '127.0.0.1', resolve))
  listBase = `http://127.0.0.1:${(lists.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => lists?.close(resolve))
  await server?.cleanup()
  home.cleanup()
})

describe('credentials and attestations', () => {
  it('the genuine records pass; every forgery of them exits 8', async () => {
    const withTrust = (path: string, ...more: string[]) => [
      'credentials',
      'verify',
      path,
      '--trust',
      trust,
      ...more,
    ]
    expectAll(
      await runAll([
        ['credential record', withTrust(save('credential.json', credential))],
        ['bare credential VC', withTrust(save('credential.jwt', credential.vc_jwt))],
        ['attestation record', withTrust(save('attestation.json', attestation))],
        ['credential by id (server trust bundle)', ['credentials', 'verify', credential.credential_id]],
      ]),
      0,
    )

    const [h, p, s] = parts(credential.vc_jwt)
    const header = decode(h)
    const payload = decode(p)
    const forger = newIssuer()
    // Their own fresh Ed25519 key, reusing the real credential_id and jurisdiction.
    const selfSigned = signJws(
      { ...header, kid: verificationMethodOf(forger.did) },
      { ...payload, iss: forger.did, issuer: forger.did },
      forger.key,
    )
    const hs256Input = `${b64({ ...header, alg: 'HS256' })}.${p}`
    const hs256 = `${hs256Input}.${createHmac('sha256', Buffer.from(credential.issuer_did)).update(hs256Input).digest('base64url')}`
    const { credential_id: _id, ...withoutId } = credential
    const { attester: _attester, ...attestationWithoutAttester } = attestation
    const forgeries: Array<[string, unknown]> = [
      ['self-signed bare VC', selfSigned],
      ['self-signed record', { ...credential, vc_jwt: selfSigned, issuer_did: forger.did }],
      ['alg none', `${b64({ ...header, alg: 'none' })}.${p}.`],
      ['alg HS256', hs256],
      ['swapped kid', `${b64({ ...header, kid: verificationMethodOf(sgDid) })}.${p}.${s}`],
      [
        'payload edit',
        `${h}.${b64({ ...payload, credentialSubject: { ...payload.credentialSubject, property: { ...payload.credentialSubject.property, value_usd: 1e12 } } })}.${s}`,
      ],
      [
        'record field edit',
        { ...credential, property_data: { ...credential.property_data, value_usd: 1e12 } },
      ],
      [
        'credential_id deleted, owner, value and jurisdiction edited',
        {
          ...withoutId,
          owner_did: 'did:web:evil:mallory',
          jurisdiction: 'SG',
          property_data: { ...credential.property_data, value_usd: 1 },
        },
      ],
      [
        'record status deleted and active edited in',
        { ...revokedCredential, status: 'active', revoked_at: null, revocation_reason: null },
      ],
      ['unknown wrapper', { credential }],
      ['unknown field', { ...credential, approved_by_regulator: true }],
      ['attestation fields around a credential VC', { ...attestation, vc_jwt: credential.vc_jwt }],
      ['attestation type edited', { ...attestation, type: 'investor_qualification' }],
      ['attestation field deleted', attestationWithoutAttester],
      ["another organization's credential", lionCredential],
      ['revoked credential', revokedCredential],
      ['revoked attestation', revokedAttestation],
      [
        'revoked credential, record edited to active',
        { ...revokedCredential, status: 'active', revoked_at: null, revocation_reason: null },
      ],
    ]
    const results = await runAll(
      forgeries.map(([name, value], i) => [name, withTrust(save(`forged-${i}.json`, value))]),
    )
    expectAll(results, 8)
    const stderr = Object.fromEntries(results.map(([name, r]) => [name, r.stderr]))
    expect(stderr['self-signed bare VC']).toMatch(/signature valid, issuer not trusted/)
    expect(stderr["another organization's credential"]).toMatch(/issuer not trusted/)
    expect(stderr['credential_id deleted, owner, value and jurisdiction edited']).toMatch(
      /lacks credential_id/,
    )
    expect(stderr['revoked credential, record edited to active']).toMatch(
      /revoked: bit \d+ of its status list/,
    )
    expect(stderr['revoked attestation']).toMatch(/revoked/)
  })
})

describe('proofs and saved transfers', () => {
  it('the genuine ones pass; every forgery exits 8', async () => {
    const withTrust = (path: string) => ['proofs', 'verify', path, '--trust', trust]
    const proof = approvedTransfer.proof
    expectAll(
      await runAll([
        ['proof', withTrust(save('proof.json', proof))],
        ['approved transfer', withTrust(save('approved.json', approvedTransfer))],
        ['rejected transfer', withTrust(save('rejected.json', rejectedTransfer))],
        ['proof by id', ['proofs', 'verify', proof.proof_id]],
      ]),
      0,
    )

    const [h, p, s] = parts(proof.jws)
    const header = decode(h)
    const { issuers: _issuers, ...withoutIssuers } = proof
    const { amount: _amount, ...transferWithoutAmount } = approvedTransfer
    const hsInput = `${b64({ ...header, alg: 'HS256' })}.${p}`
    const forgeries: Array<[string, unknown]> = [
      ['amount edited', { ...proof, transfer: { ...proof.transfer, amount: 9999 } }],
      ['field deleted', withoutIssuers],
      ['alg none', { ...proof, jws: `${b64({ ...header, alg: 'none' })}.${p}.` }],
      [
        'alg HS256',
        { ...proof, jws: `${hsInput}.${createHmac('sha256', 'secret').update(hsInput).digest('base64url')}` },
      ],
      [
        'swapped kid',
        { ...proof, kid: 'another-kid', jws: `${b64({ ...header, kid: 'another-kid' })}.${p}.${s}` },
      ],
      ["another organization's proof", lionProof],
      ['transfer amount edited', { ...approvedTransfer, amount: 9999 }],
      ['transfer recipient edited', { ...approvedTransfer, recipient_did: 'did:web:evil:mallory' }],
      ['rejected transfer edited to approved', { ...rejectedTransfer, status: 'approved' }],
      ['transfer field deleted', transferWithoutAmount],
      ['unknown wrapper', { data: proof }],
      ['unknown field around a transfer', { ...approvedTransfer, note: 'approved by the regulator' }],
      ['transfer record around another proof', { ...approvedTransfer, proof: rejectedTransfer.proof }],
    ]
    const results = await runAll(
      forgeries.map(([name, value], i) => [name, withTrust(save(`forged-proof-${i}.json`, value))]),
    )
    expectAll(results, 8)
    const stderr = Object.fromEntries(results.map(([name, r]) => [name, r.stderr]))
    expect(stderr["another organization's proof"]).toMatch(/made for organization lion, not acme/)
    expect(stderr['rejected transfer edited to approved']).toMatch(
      /the transfer's status \("approved"\) differs/,
    )
    expect(stderr['transfer amount edited']).toMatch(/the transfer's amount/)
  })
})

// ── Status lists: an issuer of our own (trusted by a bundle of our own) and a list server we control ──
const issuer = newIssuer()
const other = newIssuer()
const listUrl = (route: string) => `${listBase}/list/${route}`
const INDEX = 77

function statusList(
  route: string,
  options: {
    signer?: typeof issuer
    id?: string
    validFrom?: string
    revoked?: boolean
    encodedList?: string
  } = {},
) {
  const signer = options.signer ?? issuer
  const bits = emptyBitstring()
  if (options.revoked) setStatusBit(bits, INDEX)
  const url = listUrl(route)
  return signJws(
    { alg: 'EdDSA', typ: 'vc+jwt', kid: verificationMethodOf(signer.did) },
    {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      id: options.id ?? url,
      issuer: signer.did,
      validFrom: options.validFrom ?? new Date().toISOString(),
      credentialSubject: {
        id: `${url}#list`,
        type: 'BitstringStatusList',
        statusPurpose: 'revocation',
        encodedList: options.encodedList ?? encodeStatusList(bits),
      },
      iss: signer.did,
    },
    signer.key,
  )
}

function listRoute(path: string, res: import('node:http').ServerResponse) {
  const route = path.replace('/list/', '')
  const send = (body: string | Buffer) =>
    res.writeHead(200, { 'content-type': 'application/vc+jwt' }).end(body)
  switch (route) {
    case 'good':
      return send(statusList('good'))
    case 'revoked':
      return send(statusList('revoked', { revoked: true }))
    case 're-signed':
      return send(statusList('re-signed', { signer: other }))
    case 'other-id':
      return send(statusList('other-id', { id: listUrl('good') }))
    case 'stale':
      return send(statusList('stale', { validFrom: new Date(Date.now() - 25 * 3_600_000).toISOString() }))
    case 'watched-unsigned':
    case 'watched-untrusted':
      // Lists any verifier would accept, of the forger's issuers: so only a fetch could be seen.
      return send(statusList(route, { signer: route === 'watched-untrusted' ? other : issuer }))
    case 'minute-old':
      return send(statusList('minute-old', { validFrom: new Date(Date.now() - 60_000).toISOString() }))
    case 'loop':
      return res.writeHead(302, { location: '/list/loop' }).end()
    case 'big':
      return send(Buffer.alloc(20 * 1024 * 1024, 0x41))
    case 'gzip-bomb':
      return send(
        statusList('gzip-bomb', {
          encodedList: `u${gzipSync(Buffer.alloc(20 * 1024 * 1024)).toString('base64url')}`,
        }),
      )
    default:
      return res.writeHead(404).end()
  }
}

/**
 * A credential of our own issuer (jurisdiction XX) whose status list is `statusListCredential`; its
 * claims alone with `unsigned`, signed by `signer` (another issuer) if given.
 */
function ourCredential(statusListCredential: string, signer = issuer) {
  const now = new Date().toISOString()
  return signJws(
    { alg: 'EdDSA', typ: 'vc+jwt', kid: verificationMethodOf(signer.did) },
    vcClaims(statusListCredential, signer.did, now),
    signer.key,
  )
}

function vcClaims(statusListCredential: string, did: string, now = new Date().toISOString()) {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'PropertyOwnershipCredential'],
    id: 'urn:rwa:credential:cred_OURS',
    issuer: did,
    validFrom: now,
    credentialSubject: { id: 'did:web:acme:alice', jurisdiction: 'XX', property: { title_deed: 'X-1' } },
    credentialStatus: {
      id: `${statusListCredential}#${INDEX}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(INDEX),
      statusListCredential,
    },
    iss: did,
    sub: 'did:web:acme:alice',
    jti: 'urn:rwa:credential:cred_OURS',
    iat: Math.floor(Date.now() / 1000),
  }
}

/** The trust bundle of acme, our own issuer added as jurisdiction XX's. */
async function ourTrustBundle(): Promise<string> {
  const bundle = JSON.parse((await run(['trust-bundle'])).stdout)
  bundle.issuers.push({
    jurisdiction_id: 'XX',
    issuer_did: issuer.did,
    valid_from: '2020-01-01T00:00:00.000Z',
    valid_until: null,
  })
  return save('our-trust.json', bundle)
}

describe('status lists fail closed', () => {
  it('a good list passes; re-signed, other id, stale, unreachable, redirect loop, 20 MiB, gzip bomb and file: exit 8', async () => {
    const ourTrust = await ourTrustBundle()
    const verify = (statusUrl: string, ...more: string[]) => [
      'credentials',
      'verify',
      save(`ours-${encodeURIComponent(statusUrl)}.jwt`, ourCredential(statusUrl)),
      '--trust',
      ourTrust,
      ...more,
    ]
    const good = await runAll([
      ['good list', verify(listUrl('good'))],
      ['minute-old list within 24h', verify(listUrl('minute-old'))],
      ['unreachable list, --offline', verify('http://127.0.0.1:9/list', '--offline')],
    ])
    expectAll(good, 0)
    expect(good[2]![1].stdout).toMatch(/status not checked/)

    const results = await runAll([
      ['revoked', verify(listUrl('revoked'))],
      ['re-signed list', verify(listUrl('re-signed'))],
      ['list of another URL', verify(listUrl('other-id'))],
      ['stale list', verify(listUrl('stale'))],
      ['minute-old list, --max-status-age 10s', verify(listUrl('minute-old'), '--max-status-age', '10s')],
      ['unreachable list', verify('http://127.0.0.1:9/list')],
      ['redirect loop', verify(listUrl('loop'))],
      ['20 MiB list', verify(listUrl('big'))],
      ['gzip bomb', verify(listUrl('gzip-bomb'))],
      ['file: URL', verify('file:///etc/passwd')],
      [
        'status of a revoked one',
        [
          'credentials',
          'status',
          save('status-revoked.jwt', ourCredential(listUrl('revoked'))),
          '--trust',
          ourTrust,
        ],
      ],
      [
        'status of a stale one',
        [
          'credentials',
          'status',
          save('status-stale.jwt', ourCredential(listUrl('stale'))),
          '--trust',
          ourTrust,
        ],
      ],
    ])
    expectAll(results, 8)
    const stderr = Object.fromEntries(results.map(([name, r]) => [name, r.stderr]))
    expect(stderr['re-signed list']).toMatch(/not by the credential's issuer/)
    expect(stderr['list of another URL']).toMatch(/is not the URL the credential names/)
    expect(stderr['stale list']).toMatch(/stale/)
    expect(stderr['redirect loop']).toMatch(/more than 3 redirects/)
    expect(stderr['20 MiB list']).toMatch(/over 2097152 bytes/)
    expect(stderr['gzip bomb']).toMatch(/gunzips to more than 16777216 bytes/)
    expect(stderr['file: URL']).toMatch(/only http\(s\) URLs/)
    expect(stderr['status of a revoked one']).toMatch(/the credential is revoked/)
    expect(stderr['status of a stale one']).toMatch(/stale/)
    const badAge = await run(verify(listUrl('good'), '--max-status-age', 'soon'))
    expect(badAge.exitCode).toBe(2)
    expect(badAge.stderr).toMatch(/--max-status-age must be a duration such as 24h, 30m or 10s, got "soon"/)
  })
})

describe('credentials status verifies the credential before it fetches anything it names', () => {
  it('an unsigned or untrusted credential is exit 8 and its status list is never asked for', async () => {
    const ourTrust = await ourTrustBundle()
    const unsigned = save(
      'status-unsigned.jwt',
      `${b64({ alg: 'none', typ: 'vc+jwt' })}.${b64(vcClaims(listUrl('watched-unsigned'), issuer.did))}.`,
    )
    const untrusted = save('status-untrusted.jwt', ourCredential(listUrl('watched-untrusted'), other))
    const results = await runAll([
      ['unsigned, --trust', ['credentials', 'status', unsigned, '--trust', ourTrust]],
      ["unsigned, the server's trust bundle", ['credentials', 'status', unsigned]],
      ['signed by a key outside the bundle', ['credentials', 'status', untrusted, '--trust', ourTrust]],
      [
        'unsigned, as a record',
        ['credentials', 'status', save('status-unsigned.json', { vc_jwt: readJwt(unsigned) })],
      ],
    ])
    expectAll(results, 8)
    const stderr = Object.fromEntries(results.map(([name, r]) => [name, r.stderr]))
    expect(stderr['unsigned, --trust']).toMatch(/unexpected alg none/)
    expect(stderr['signed by a key outside the bundle']).toMatch(/signature valid, issuer not trusted/)
    for (const [name, result] of results) expect(result.stdout, name).not.toContain('active')
    expect(fetched.filter((path) => path.includes('watched'))).toEqual([])

    // A credential the bundle trusts: its list is fetched and read.
    const trusted = await run([
      'credentials',
      'status',
      save('status-good.jwt', ourCredential(listUrl('good'))),
      '--trust',
      ourTrust,
    ])
    expect(trusted.exitCode, trusted.stderr).toBe(0)
    expect(trusted.stdout).toMatch(/^active: bit 77 of /m)
  })
})

describe('a key twice in one object', () => {
  it('of a saved proof, transfer or credential is exit 8, naming it; of a request body exit 2', async () => {
    // The genuine value last (what JSON.parse keeps), another first (what other readers show).
    const twice = (value: Record<string, unknown>, key: string, shown: unknown) =>
      `{${JSON.stringify(key)}:${JSON.stringify(shown)},${JSON.stringify(value).slice(1)}`
    const proof = approvedTransfer.proof
    const results = await runAll([
      [
        'proof amount',
        [
          'proofs',
          'verify',
          save(
            'twice-proof.json',
            `{"transfer":${twice(proof.transfer, 'amount', 9999)},${JSON.stringify({ ...proof, transfer: undefined }).slice(1)}`,
          ),
          '--trust',
          trust,
        ],
      ],
      [
        'transfer status',
        [
          'proofs',
          'verify',
          save('twice-transfer.json', twice(rejectedTransfer, 'status', 'approved')),
          '--trust',
          trust,
        ],
      ],
      [
        'credential owner',
        [
          'credentials',
          'verify',
          save('twice-credential.json', twice(credential, 'owner_did', 'did:web:evil:mallory')),
          '--trust',
          trust,
        ],
      ],
    ])
    expectAll(results, 8)
    const stderr = Object.fromEntries(results.map(([name, r]) => [name, r.stderr]))
    expect(stderr['proof amount']).toMatch(
      /the key "amount" appears twice in one object \(at transfer\.amount\)/,
    )
    expect(stderr['transfer status']).toMatch(/the key "status" appears twice in one object \(at status\)/)
    expect(stderr['credential owner']).toMatch(/the key "owner_did" appears twice/)

    const body = await run([
      'jurisdictions',
      'register',
      '--file',
      save('twice-body.json', '{"jurisdiction_id":"ZZ","jurisdiction_id":"ZY","name":"Zed"}'),
    ])
    expect(body.exitCode, body.stderr).toBe(2)
    expect(body.stderr).toMatch(/the key "jurisdiction_id" appears twice/)
  })
})

describe('after a proof-key rotation', () => {
  it('a trust bundle saved before it is named as the likely cause, not tampering', async () => {
    const rotated = await home.run(['server', 'rotate-signing-key', '--reason', 'yearly'], {
      env: { RWA_URL: server.url, RWA_API_KEY: server.adminKey },
    })
    expect(rotated.exitCode, rotated.stderr).toBe(0)
    const caller = apiCaller(
      (path, init) => fetch(new URL(path, server.url), init),
      () => server.adminKey,
    )
    const transfer = await expectStatus(
      caller.post('/console/rwa/transfers', transferBody(approvedTransfer.token_id, 1), {
        key: env.RWA_API_KEY,
      }),
      201,
    )
    const saved = save(
      'after-rotation.json',
      await expectStatus(
        caller.get(`/console/rwa/transfers/${transfer.transfer_id}`, { key: env.RWA_API_KEY }),
        200,
      ),
    )
    const stale = await run(['proofs', 'verify', saved, '--trust', trust])
    expect(stale.exitCode, stale.stderr).toBe(8)
    expect(stale.stderr).toMatch(/is not a proof key of organization acme's trust bundle/)
    expect(stale.stderr).toMatch(/hint: .*trust bundle .* predates/)
    expect(stale.stderr).not.toMatch(/altered/)
    // A fresh trust bundle knows the new key.
    const fresh = save('trust-after-rotation.json', (await run(['trust-bundle'])).stdout)
    const holds = await run(['proofs', 'verify', saved, '--trust', fresh])
    expect(holds.exitCode, holds.stderr).toBe(0)
  })
})
