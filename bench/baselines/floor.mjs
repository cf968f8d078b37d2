// Baselines transfer-floor, transfer-floor-batch, credential-floor, credential-floor-batch: the least a
// transfer (or a credential) costs as rwa defines it — its own statements as prepared better-sqlite3
// statements on rwa's schema, its Ed25519 signature and its canonical JSON, with no HTTP, no framework,
// no query builder. The statements are those the server runs for one POST (logged from a transfer POST
// on SQLite, docs/performance.md), each once: the evaluation's reads (token, both jurisdictions, the
// credential, active trust, the candidate attestations, freezes, the two holdings, the recipient's
// balance, the target's holder count, the sender's volume of the day, the active proof key), the
// decision by rwa's own pure evaluation, the proof signed and stored, the transfer, its counters and
// the token's history, the holdings moved when approved; and what every write records in the
// same transaction: the audit event, its leaf appended to the organization's verifiable log, and the
// outbox event. A credential: the jurisdiction, the title deed
// check, the owner DID (a new one counted), a status list entry at rwa's keyed permutation of its ordinal
// with its sibling suspension entry, the VC-JWT signed, the credential row, and the same audit event,
// leaf and event.
//
// `--db` is a copy of the rwa server's own database, taken once its organizations were seeded through
// its API (bench/lib/floors.mjs), so the schema, indexes and rows are rwa's own; `--org` names those
// organizations (a comma list), and the floor works for them in turn as the scenarios' requests do:
// each transaction (one operation, or a batch of them) for the next organization, each organization's
// transfers alternating between the approved and the rejected recipient, its credentials among 16
// owners (`startOver` says when the turn starts again). One organization's work, run again and again
// on the same few pages, costs less than the same work spread over a thousand (docs/performance.md,
// "Eleventh pass: the floors over the scenarios' organizations"). The process serves one control
// route, `POST /run {kind, per_transaction, seconds}`: it runs operations for `seconds` (in
// transactions of `per_transaction`) and answers how many, their CPU time (process.cpuUsage) and the
// wall time. And
// `POST /op/transfer` and `POST /op/credential`: one operation per request over bare node:http (serveOne).
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import canonicalize from 'canonicalize'
import { permute } from '../../dist/server/areas/rwa/status-lists/permutation.js'
import { rulesFromRow } from '../../dist/server/areas/rwa/tokens/from-row.js'
import { evaluateTransfer } from '../../dist/server/areas/rwa/transfers/evaluate-transfer.js'
import { STATUS_LIST_MIN_BITS } from '../../dist/src/proof/status-list.js'
import { eventLeafHash } from '../../dist/src/tlog/leaf.js'
import { appendToFrontier, rootOfFrontier } from '../../dist/src/tlog/merkle.js'
import { argument, listen, openSqlite, sendJson } from './serve.mjs'

const db = await openSqlite(argument('db'))
const ORGANIZATIONS = argument('org').split(',')

// The proof key and the issuers' keys are opened once and kept in memory, as rwa's SigningKeys does.
const { privateKey: proofKey } = generateKeyPairSync('ed25519')
const { privateKey: issuerKey } = generateKeyPairSync('ed25519')
const b64u = (data) => Buffer.from(data).toString('base64url')
const b64 = (data) => Buffer.from(data).toString('base64')
/** A compact EdDSA JWS over `payload` (rwa's signCompactEdDsa, inlined). */
const signJws = (header, payload, key) => {
  const input = `${b64u(JSON.stringify(header))}.${b64u(payload)}`
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`
}
const sha256hex = (text) => createHash('sha256').update(text, 'utf8').digest('hex')
let serial = 0
/** Time-sortable unique ids, shaped as rwa's (prefix_ + 26 characters). */
const nextId = (prefix) =>
  `${prefix}_${Date.now().toString(36).padStart(10, '0')}${(serial++).toString(36).padStart(16, '0')}`.toUpperCase()

const q = {
  begin: db.prepare('BEGIN'),
  commit: db.prepare('COMMIT'),
  token: db.prepare('SELECT * FROM tokens WHERE org_id = ? AND token_id = ?'),
  jurisdictions: db.prepare('SELECT * FROM jurisdictions WHERE org_id = ? AND jurisdiction_id IN (?, ?)'),
  jurisdiction: db.prepare('SELECT * FROM jurisdictions WHERE org_id = ? AND jurisdiction_id = ?'),
  credential: db.prepare('SELECT * FROM credentials WHERE org_id = ? AND credential_id = ?'),
  trust: db.prepare(
    `SELECT * FROM trust_relations WHERE org_id = ? AND status = 'active'
       AND (from_jurisdiction IN (?, ?) OR to_jurisdiction IN (?, ?))`,
  ),
  freezes: db.prepare('SELECT holder_did FROM holder_freezes WHERE token_id = ? AND holder_did IN (?, ?)'),
  holding: db.prepare(
    'SELECT amount, frozen_amount FROM holdings WHERE token_id = ? AND holder_did = ? AND jurisdiction = ?',
  ),
  balance: db.prepare('SELECT sum(amount) AS total FROM holdings WHERE token_id = ? AND holder_did = ?'),
  holders: db.prepare('SELECT count(*) AS n FROM holdings WHERE token_id = ? AND jurisdiction = ?'),
  volume: db.prepare(
    'SELECT volume FROM transfer_daily_volumes WHERE token_id = ? AND sender_did = ? AND day = ?',
  ),
  serviceKey: db.prepare("SELECT * FROM rwa_service_keys WHERE purpose = 'proof' AND retired_at IS NULL"),
  insertProof: db.prepare(
    `INSERT INTO proofs (proof_id, org_id, transfer_id, facts, digest, jws, kid, issuers)
     VALUES (?, ?, ?, NULL, ?, ?, ?, ?)`,
  ),
  insertTransfer: db.prepare(
    `INSERT INTO transfers (transfer_id, org_id, token_id, from_jurisdiction, to_jurisdiction, sender_did,
       recipient_did, amount, status, proof_id, created_at, reason, compliance_summary, compliance_checks)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
  ),
  countTransfer: db.prepare(
    `INSERT INTO transfer_counts (org_id, token_id, status, from_jurisdiction, to_jurisdiction, n)
     VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (org_id, token_id, status, from_jurisdiction, to_jurisdiction)
     DO UPDATE SET n = n + 1`,
  ),
  addVolume: db.prepare(
    `INSERT INTO transfer_daily_volumes (token_id, sender_did, day, volume) VALUES (?, ?, ?, ?)
     ON CONFLICT (token_id, sender_did, day) DO UPDATE SET volume = volume + excluded.volume`,
  ),
  insertTokenEvent: db.prepare(
    'INSERT INTO token_events (event_id, org_id, token_id, event, at, details) VALUES (?, ?, ?, ?, ?, ?)',
  ),
  countTokenEvent: db.prepare(
    'INSERT INTO token_event_counts (token_id, n) VALUES (?, 1) ON CONFLICT (token_id) DO UPDATE SET n = n + 1',
  ),
  adjustHolding: db.prepare(
    `INSERT INTO holdings (token_id, holder_did, jurisdiction, amount, frozen_amount) VALUES (?, ?, ?, ?, 0)
     ON CONFLICT (token_id, holder_did, jurisdiction) DO UPDATE SET amount = amount + excluded.amount
     RETURNING amount`,
  ),
  dropHolding: db.prepare('DELETE FROM holdings WHERE token_id = ? AND holder_did = ? AND jurisdiction = ?'),
  logHead: db.prepare('SELECT size, root, frontier FROM audit_logs WHERE org_id = ?'),
  insertLogNode: db.prepare('INSERT INTO audit_log_nodes (org_id, level, idx, hash) VALUES (?, ?, ?, ?)'),
  saveLogHead: db.prepare('UPDATE audit_logs SET size = ?, root = ?, frontier = ? WHERE org_id = ?'),
  insertAuditEvent: db.prepare(
    `INSERT INTO audit_events (event_id, org_id, at, actor, actor_key_id, request_id, action, target_type,
       target_id, changes, log_index) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  insertEvent: db.prepare(
    'INSERT INTO events (event_id, org_id, type, created_at, data) VALUES (?, ?, ?, ?, ?)',
  ),
  titleDeed: db.prepare(
    `SELECT credential_id, property_data FROM credentials WHERE org_id = ? AND jurisdiction = ?
       AND title_deed_key = ? AND status = 'active'`,
  ),
  knownDid: db.prepare('SELECT did FROM rwa_dids WHERE org_id = ? AND did = ?'),
  organization: db.prepare('SELECT org_id FROM organizations WHERE org_id = ?'),
  insertDid: db.prepare('INSERT INTO rwa_dids (org_id, did, created_at) VALUES (?, ?, ?)'),
  countDid: db.prepare(
    `INSERT INTO usage_daily (org_id, date, dids_created) VALUES (?, ?, 1)
     ON CONFLICT (org_id, date) DO UPDATE SET dids_created = dids_created + 1`,
  ),
  statusList: db.prepare(
    `SELECT * FROM status_lists WHERE org_id = ? AND jurisdiction_id = ? AND purpose = 'revocation'
       AND used < capacity ORDER BY list_id DESC LIMIT 1`,
  ),
  insertStatusList: db.prepare(
    `INSERT INTO status_lists (list_id, org_id, jurisdiction_id, capacity, used, perm_key, version,
       created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, 0, ?, ?)`,
  ),
  takeStatusEntry: db.prepare(
    'UPDATE status_lists SET used = used + 1 WHERE list_id = ? AND used < capacity RETURNING used, suspension_list_id',
  ),
  insertCredential: db.prepare(
    `INSERT INTO credentials (credential_id, org_id, jurisdiction, owner_did, property_data, status,
       issuer_did, issued_at, valid_until, revoked_at, revocation_reason, vc_jwt, status_list_id,
       status_list_index, title_deed_key) VALUES (?, ?, ?, ?, ?, 'active', ?, ?, NULL, NULL, NULL, ?, ?, ?, ?)`,
  ),
}
const attestationQueries = new Map()
/** The candidate attestations: the recipient's of the personal requirements, the credential's title verification. */
const attestations = (recipient, personal, credentialId) => {
  let statement = attestationQueries.get(personal.length)
  if (!statement) {
    statement = db.prepare(
      `SELECT attestation_id, jurisdiction, subject_did, type, credential_id, issued_at, valid_until, revoked_at
         FROM attestations WHERE (org_id = ? AND subject_did = ? AND type IN (${personal.map(() => '?').join(', ')}))
         OR (org_id = ? AND credential_id = ? AND type = 'title_verification')`,
    )
    attestationQueries.set(personal.length, statement)
  }
  return statement.all(orgId, recipient, ...personal, orgId, credentialId)
}

// What each seeded organization holds (bench/lib/seed.mjs): its token, its owner, the two recipients;
// and how many transfers and credentials the floor made for it in this run. Read before any run.
const tokenOf = db.prepare('SELECT * FROM tokens WHERE org_id = ?')
const organizations = ORGANIZATIONS.map((id) => {
  const tokenRow = tokenOf.get(id)
  if (!tokenRow) throw new Error(`--org ${id}: no token of that organization in --db`)
  return {
    orgId: id,
    tokenRow,
    owner: tokenRow.owner_did,
    approved: `did:web:${id}:alice`,
    rejected: `did:web:${id}:mallory`,
    transfers: 0,
    credentials: 0,
  }
})
let turn = 0
// The organization of the transaction under way, and its fields the operations read.
let org = organizations[0]
let orgId = org.orgId
let tokenRow = org.tokenRow
let owner = org.owner

/** The next organization in turn, for the next transaction. */
function nextOrganization() {
  org = organizations[turn++ % organizations.length]
  orgId = org.orgId
  tokenRow = org.tokenRow
  owner = org.owner
}

/**
 * A run of single operations starts the turn of the organizations and their counts over, as each run
 * of a single-POST scenario starts its requests over; a run of batches goes on from the organization
 * after the last batch, as the batch scenarios' one turn over all their runs does (bench/lib/floors.mjs,
 * `organizationWithRoom`). The HTTP floors' requests go on from wherever the last one left.
 */
function startOver(perTransaction) {
  if (perTransaction !== 1) return
  turn = 0
  for (const o of organizations) {
    o.transfers = 0
    o.credentials = 0
  }
}
const SOURCE = 'BENCH-SRC'
const TARGET = 'BENCH-DST'
const actor = JSON.stringify({ key_id: 'key_floor', roles: ['owner'] })

/** The audit event of a change, its leaf appended to the organization's log, and the outbox event. */
function record(action, target, after, object, now) {
  const auditEvent = {
    event_id: nextId('aud'),
    org_id: orgId,
    at: now,
    actor: JSON.parse(actor),
    request_id: nextId('req'),
    action,
    target,
    changes: { before: null, after },
  }
  const head = q.logHead.get(orgId)
  let frontier = head.frontier === '' ? [] : head.frontier.split(',').map((h) => Buffer.from(h, 'hex'))
  const step = appendToFrontier(head.size, frontier, eventLeafHash(auditEvent))
  for (const n of step.completed) q.insertLogNode.run(orgId, n.level, n.index, n.hash)
  frontier = step.frontier
  q.saveLogHead.run(
    head.size + 1,
    rootOfFrontier(frontier).toString('hex'),
    frontier.map((h) => h.toString('hex')).join(','),
    orgId,
  )
  q.insertAuditEvent.run(
    auditEvent.event_id,
    orgId,
    now,
    actor,
    'key_floor',
    auditEvent.request_id,
    action,
    target.type,
    target.id,
    JSON.stringify(auditEvent.changes),
    head.size,
  )
  q.insertEvent.run(nextId('evt'), orgId, action, now, JSON.stringify({ object }))
  // Deliveries would be queued for each subscribed endpoint; the bench's organizations have none, and
  // which endpoints an organization has is known without a query (the server caches it, 498373d).
  return head.size
}

function transfer() {
  const n = org.transfers++
  const recipient = n % 2 === 0 ? org.approved : org.rejected
  const now = new Date().toISOString()
  const transferId = nextId('tx')
  const proofId = nextId('prf')
  const token = q.token.get(orgId, tokenRow.token_id)
  const jurisdictions = q.jurisdictions.all(orgId, SOURCE, TARGET)
  const from = jurisdictions.find((j) => j.jurisdiction_id === SOURCE)
  const to = jurisdictions.find((j) => j.jurisdiction_id === TARGET)
  const fromRequirements = JSON.parse(from.transfer_requirements)
  const toRequirements = JSON.parse(to.transfer_requirements)
  const credential = q.credential.get(orgId, token.credential_id)
  const trust = q.trust.all(orgId, SOURCE, TARGET, SOURCE, TARGET)
  const personal = [...new Set([...fromRequirements, ...toRequirements])].filter(
    (r) => r !== 'title_verification',
  )
  const candidates = attestations(recipient, personal, token.credential_id)
  const frozen = new Set(q.freezes.all(token.token_id, owner, recipient).map((r) => r.holder_did))
  const recipientInTarget = q.holding.get(token.token_id, recipient, TARGET)
  const senderHolding = q.holding.get(token.token_id, owner, SOURCE)
  const balance = q.balance.get(token.token_id, recipient)
  const holders = q.holders.get(token.token_id, TARGET)
  const volume = q.volume.get(token.token_id, owner, now.slice(0, 10))
  const transferFields = {
    from_jurisdiction: SOURCE,
    to_jurisdiction: TARGET,
    sender_did: owner,
    recipient_did: recipient,
    amount: 1,
  }
  const compliance = evaluateTransfer({
    token,
    credential,
    from: { jurisdiction_id: SOURCE, transfer_requirements: fromRequirements },
    to: { jurisdiction_id: TARGET, transfer_requirements: toRequirements },
    sender_did: owner,
    recipient_did: recipient,
    amount: 1,
    ledger: {
      sender_holding: {
        amount: senderHolding?.amount ?? 0,
        frozen_amount: senderHolding?.frozen_amount ?? 0,
      },
      sender_frozen: frozen.has(owner),
      recipient_frozen: frozen.has(recipient),
      recipient_balance: Number(balance?.total ?? 0),
      target_holders: holders.n,
      recipient_holds_in_target: (recipientInTarget?.amount ?? 0) > 0,
      sender_volume_today: volume?.volume ?? 0,
    },
    rules: rulesFromRow(token.rules),
    trust: trust.map((t) => ({ ...t, mutual: Number(t.mutual) === 1 })),
    attestations: candidates,
    now,
  })
  const status = compliance.all_satisfied ? 'approved' : 'rejected'
  // The proof: its canonical facts (RFC 8785), their digest, the JWS signed with the active key.
  const key = q.serviceKey.get()
  const issuers = { [SOURCE]: from.issuer_did, [TARGET]: to.issuer_did }
  const facts = {
    version: 2,
    org_id: orgId,
    issuers,
    proof_id: proofId,
    transfer_id: transferId,
    token_id: token.token_id,
    decision: status,
    evaluated_at: now,
    transfer: transferFields,
    compliance_details: compliance,
  }
  const canonical = canonicalize(facts)
  const jws = signJws({ alg: 'EdDSA', kid: key.kid, typ: 'rwa-proof+jws' }, canonical, proofKey)
  const [header, , signature] = jws.split('.')
  const digest = sha256hex(canonical)
  q.insertProof.run(
    proofId,
    orgId,
    transferId,
    digest,
    `${header}..${signature}`,
    key.kid,
    JSON.stringify(issuers),
  )
  const { source_requirements, target_requirements, all_satisfied, checks } = compliance
  q.insertTransfer.run(
    transferId,
    orgId,
    token.token_id,
    SOURCE,
    TARGET,
    owner,
    recipient,
    1,
    status,
    proofId,
    now,
    JSON.stringify({ source_requirements, target_requirements, all_satisfied }),
    JSON.stringify(checks),
  )
  q.countTransfer.run(orgId, token.token_id, status, SOURCE, TARGET)
  if (status === 'approved') q.addVolume.run(token.token_id, owner, now.slice(0, 10), 1)
  const failed = checks.filter((c) => !c.satisfied).map((c) => c.reason)
  q.insertTokenEvent.run(
    nextId('evt'),
    orgId,
    token.token_id,
    status === 'approved' ? 'transfer_approved' : 'transfer_rejected',
    now,
    JSON.stringify({
      transfer_id: transferId,
      proof_id: proofId,
      ...transferFields,
      ...(failed.length > 0 ? { reasons: failed } : {}),
      actor_key_id: 'key_floor',
    }),
  )
  q.countTokenEvent.run(token.token_id)
  if (status === 'approved') {
    const left = q.adjustHolding.get(token.token_id, owner, SOURCE, -1)
    if (left.amount <= 0) q.dropHolding.run(token.token_id, owner, SOURCE)
    q.adjustHolding.get(token.token_id, recipient, TARGET, 1)
  }
  const record_ = {
    transfer_id: transferId,
    token_id: token.token_id,
    ...transferFields,
    status,
    proof_id: proofId,
    compliance_details: compliance,
    created_at: now,
  }
  const after = { token_id: token.token_id, ...transferFields, proof_id: proofId }
  const proof = { ...facts, digest, jws, kid: key.kid }
  const logIndex = record(
    `transfer.${status}`,
    { type: 'transfer', id: transferId },
    after,
    {
      ...record_,
      proof,
    },
    now,
  )
  return JSON.stringify({ ...record_, proof: { ...proof, log_index: logIndex } })
}

let credentials = 0
function credential() {
  const n = credentials++
  const now = new Date().toISOString()
  const credentialId = nextId('cred')
  const ownerDid = `did:web:${orgId}:floor-holder-${org.credentials++ % 16}`
  const property = {
    address: `${100 + (n % 900)} Benchmark Avenue, Suite ${n % 97}, Springfield`,
    type: n % 2 === 0 ? 'commercial' : 'residential',
    value_usd: 250_000 + (n % 1000) * 1_000,
    title_deed: `TD-FLOOR-${process.pid}-${n}`,
  }
  const jurisdiction = q.jurisdiction.get(orgId, SOURCE)
  const deedKey = property.title_deed.trim().toLowerCase()
  if (q.titleDeed.get(orgId, SOURCE, deedKey)) throw new Error('title deed in use')
  if (!q.knownDid.get(orgId, ownerDid)) {
    q.organization.get(orgId)
    q.insertDid.run(orgId, ownerDid, now)
    q.countDid.run(orgId, now.slice(0, 10))
  }
  // A full list is followed by a new one, as rwa's assignStatusEntry does (a full bench issues more
  // credentials than one list of 131,072 entries holds).
  let list = q.statusList.get(orgId, SOURCE)
  if (!list) {
    list = { list_id: nextId('sl'), perm_key: b64(randomBytes(32)), capacity: STATUS_LIST_MIN_BITS }
    q.insertStatusList.run(list.list_id, orgId, SOURCE, list.capacity, list.perm_key, now, now)
  }
  const taken = q.takeStatusEntry.get(list.list_id)
  // The entry's index is rwa's keyed permutation of its ordinal (the order of the indexes must not tell
  // the order of issuance), at the same index of the sibling suspension list (one a seeded list has).
  const index = permute(list.perm_key, taken.used - 1, Number(list.capacity))
  const statusEntry = (listId, purpose) => ({
    id: `https://rwa.example/status/${listId}#${index}`,
    type: 'BitstringStatusListEntry',
    statusPurpose: purpose,
    statusListIndex: String(index),
    statusListCredential: `https://rwa.example/status/${listId}`,
  })
  const credentialStatus = [
    statusEntry(list.list_id, 'revocation'),
    statusEntry(taken.suspension_list_id ?? list.list_id, 'suspension'),
  ]
  const vc = {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'PropertyOwnershipCredential'],
    issuer: jurisdiction.issuer_did,
    validFrom: now,
    credentialSubject: { id: ownerDid, jurisdiction: SOURCE, property },
    credentialStatus,
    id: `urn:rwa:credential:${credentialId}`,
    iss: jurisdiction.issuer_did,
    sub: ownerDid,
    jti: `urn:rwa:credential:${credentialId}`,
    iat: Math.floor(Date.now() / 1000),
  }
  const vcJwt = signJws(
    { alg: 'EdDSA', typ: 'vc+jwt', kid: `${jurisdiction.issuer_did}#key` },
    JSON.stringify(vc),
    issuerKey,
  )
  q.insertCredential.run(
    credentialId,
    orgId,
    SOURCE,
    ownerDid,
    JSON.stringify(property),
    jurisdiction.issuer_did,
    now,
    vcJwt,
    list.list_id,
    index,
    deedKey,
  )
  const answer = {
    credential_id: credentialId,
    type: 'PropertyOwnership',
    jurisdiction: SOURCE,
    owner_did: ownerDid,
    property_data: property,
    status: 'active',
    issuer_did: jurisdiction.issuer_did,
    issued_at: now,
    vc_jwt: vcJwt,
    credential_status: credentialStatus,
  }
  record(
    'credential.issued',
    { type: 'credential', id: credentialId },
    { jurisdiction: SOURCE, owner_did: ownerDid },
    answer,
    now,
  )
  return JSON.stringify(answer)
}

const KINDS = { transfer, credential }

/** Runs `kind` for `seconds`, `perTransaction` operations to a transaction. */
function run(kind, perTransaction, seconds) {
  const operation = KINDS[kind]
  const cpu0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  const until = t0 + BigInt(Math.round(seconds * 1e9))
  const latencies = []
  let ops = 0
  let now = t0
  startOver(perTransaction)
  while (now < until) {
    nextOrganization()
    q.begin.run()
    try {
      for (let i = 0; i < perTransaction; i++) operation()
      q.commit.run()
    } catch (error) {
      db.exec('ROLLBACK')
      throw error
    }
    ops += perTransaction
    const end = process.hrtime.bigint()
    latencies.push(Number(end - now) / 1e6)
    now = end
  }
  const cpu = process.cpuUsage(cpu0)
  return {
    ops,
    transactions: latencies.length,
    cpu_us: cpu.user + cpu.system,
    wall_s: Number(process.hrtime.bigint() - t0) / 1e9,
    transaction_ms: latencies,
  }
}

/**
 * One operation of `kind` served over bare node:http, in a transaction of its own: the body read and
 * parsed, the operation, its JSON answered with 201. The floor of a single POST with the HTTP the
 * contract cannot do without (bench/lib/floors.mjs, `transfer-http-floor`, `credential-http-floor`).
 */
function serveOne(kind, body, res) {
  JSON.parse(body)
  nextOrganization()
  q.begin.run()
  let answer
  try {
    answer = KINDS[kind]()
    q.commit.run()
  } catch (error) {
    db.exec('ROLLBACK')
    throw error
  }
  res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) })
  res.end(answer)
}

listen(
  (req, res) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      try {
        const op = req.url.startsWith('/op/') ? req.url.slice(4) : undefined
        if (op !== undefined) {
          if (!KINDS[op])
            return sendJson(res, 404, { error: `/op/transfer or /op/credential, not ${req.url}` })
          return serveOne(op, Buffer.concat(chunks).toString('utf8'), res)
        }
        const { kind, per_transaction, seconds } = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        if (!KINDS[kind]) return sendJson(res, 400, { error: `kind transfer|credential, not ${kind}` })
        sendJson(res, 200, run(kind, per_transaction, seconds))
      } catch (error) {
        sendJson(res, 500, { error: String(error?.stack ?? error) })
      }
    })
  },
  () => db.close(),
)
