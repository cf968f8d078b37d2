// An audit bundle as `rwa audit export` writes it, made without a server (bench/audit-verify.mjs): `n`
// credentials of one jurisdiction (every tenth revoked), each a VC-JWT signed by a real did:key with its
// status list entry; the status list, signed by the same key, its revoked bits set; a log entry per
// issuance and revocation, and the checkpoints over them signed by a log key; the trust bundle naming both.
import { generateKeyPairSync, sign } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Writes the bundle to `dir` and its trust bundle beside it; returns where, and how many entries. */
export async function writeAuditBundle(root, dir, n) {
  const dist = join(root, 'dist/src')
  const { didKeyOf, verificationMethodOf } = await import(join(dist, 'proof/did-key.js'))
  const { emptyBitstring, encodeStatusList, setStatusBit } = await import(join(dist, 'proof/status-list.js'))
  const { eventLeafHash } = await import(join(dist, 'tlog/leaf.js'))
  const { rootOfLeaves } = await import(join(dist, 'tlog/merkle.js'))
  const { rawPublicKey, signCheckpoint, verifierKey } = await import(join(dist, 'tlog/note.js'))

  const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const { privateKey: issuerKey } = generateKeyPairSync('ed25519')
  const did = didKeyOf(rawPublicKey(issuerKey))
  const header = b64({ alg: 'EdDSA', typ: 'vc+jwt', kid: verificationMethodOf(did) })
  const vcJwt = (payload) => {
    const input = `${header}.${b64(payload)}`
    return `${input}.${sign(null, Buffer.from(input), issuerKey).toString('base64url')}`
  }
  const url = 'https://rwa.test/console/rwa/status/sl_BENCH'
  const t0 = Date.now() - 3_600_000
  const iso = (ms) => new Date(ms).toISOString()
  const bits = emptyBitstring()
  const credentials = []
  const entries = []
  const event = (action, id, at) => ({
    event_id: `aud_${String(entries.length).padStart(8, '0')}`,
    org_id: 'bench',
    at,
    actor: { system: 'bench' },
    request_id: null,
    action,
    target: { type: 'credential', id },
    changes: { before: null, after: null },
    log_index: entries.length,
  })
  for (let i = 0; i < n; i++) {
    const id = `cred_${String(i).padStart(8, '0')}`
    const issued = iso(t0 + i)
    const property = {
      address: `${i} Market St`,
      type: 'commercial',
      value_usd: 1000 + i,
      title_deed: `SF-${i}`,
    }
    const owner = `did:web:acme:owner${i}`
    const index = i * 7
    const status = {
      id: `${url}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(index),
      statusListCredential: url,
    }
    const vc_jwt = vcJwt({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential', 'PropertyOwnershipCredential'],
      issuer: did,
      validFrom: issued,
      credentialSubject: { id: owner, jurisdiction: 'US', property },
      credentialStatus: status,
      iss: did,
      sub: owner,
      jti: `urn:rwa:credential:${id}`,
      iat: Math.floor((t0 + i) / 1000),
    })
    const revoked = i % 10 === 0
    if (revoked) setStatusBit(bits, index)
    credentials.push({
      credential_id: id,
      type: 'PropertyOwnership',
      jurisdiction: 'US',
      owner_did: owner,
      property_data: property,
      status: revoked ? 'revoked' : 'active',
      issuer_did: did,
      issued_at: issued,
      valid_until: null,
      revoked_at: revoked ? iso(t0 + n + i) : null,
      revocation_reason: revoked ? 'bench' : null,
      vc_jwt,
      credential_status: status,
    })
    entries.push(event('credential.issued', id, issued))
  }
  for (const c of credentials) {
    if (c.status === 'revoked') entries.push(event('credential.revoked', c.credential_id, c.revoked_at))
  }
  const list = vcJwt({
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    id: url,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    issuer: did,
    validFrom: iso(Date.now() - 60_000),
    credentialSubject: {
      id: `${url}#list`,
      type: 'BitstringStatusList',
      statusPurpose: 'revocation',
      encodedList: encodeStatusList(bits),
    },
    iss: did,
    sub: `${url}#list`,
  })
  const origin = 'rwa.test/console/audit/bench'
  const { privateKey: logKey } = generateKeyPairSync('ed25519')
  const log_key = { kid: 'bench', vkey: verifierKey(origin, rawPublicKey(logKey)) }
  const { root: treeRoot, size } = rootOfLeaves(entries.map(eventLeafHash))
  const trustBundle = {
    org_id: 'bench',
    generated_at: iso(Date.now()),
    proof_keys: { keys: [] },
    issuers: [{ jurisdiction_id: 'US', issuer_did: did, valid_from: iso(t0 - 1000), valid_until: null }],
    log_key,
  }
  // A snapshot: the checkpoint before the records and the one after are one.
  const note = signCheckpoint({ origin, size, root: treeRoot }, origin, logKey)
  const files = {
    'manifest.json': {
      format: 'rwa-audit-bundle/2',
      org_id: 'bench',
      server: 'https://rwa.test',
      exported_at: iso(Date.now()),
    },
    'checkpoints.json': { before: note, after: note },
    'entries.json': entries,
    'trust-bundle.json': trustBundle,
    'credentials.json': credentials,
    'attestations.json': [],
    'transfers.json': [],
    'proofs.json': [],
    'status-lists.json': { [url]: list },
  }
  mkdirSync(dir, { recursive: true })
  for (const [file, value] of Object.entries(files)) {
    writeFileSync(join(dir, file), `${JSON.stringify(value, null, 1)}\n`)
  }
  const trust = join(dir, '..', 'trust.json')
  writeFileSync(trust, JSON.stringify(trustBundle))
  return { dir, trust, entries: size }
}
