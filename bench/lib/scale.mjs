// The scale scenario (`npm run bench -- --scale`): what a request costs when one organization holds 1k,
// 100k and 1M transfers (docs/performance.md, "Cost as the data grows": the cost must not grow with the
// records an organization holds).
//
// Each size gets its own SQLite file. A server started once on it creates the organization, its key,
// jurisdictions, trust, credential, attestations and token through the API, and makes two transfers
// (one approved, one rejected) the real way; it is then stopped, and the file is filled directly with
// better-sqlite3 in one transaction: the transfers, their proofs and their history events cloned from
// those two real ones (fresh ids and times spread over the past year, each proof re-digested and
// re-signed with the server's own proof key, so that it verifies), the holdings moved by the approved
// ones, and any counter table the schema keeps. Then the three servers run side by side, and every
// round measures each scenario on each size one after another (interleaved).
//
// One organization per size, so the per-minute rate limit (Enterprise: 5,000/min) is honoured, not
// switched off: each measurement is a burst of a fixed number of requests at full speed, and before
// each burst the bench waits until the organization's requests of the last minute plus the burst stay
// under LIMIT_HEADROOM of its limit. A 429 would count as non-2xx and fail the run.
import { createHash, createPrivateKey, sign } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { startServer } from './processes.mjs'
import { call, SOURCE, seedGovernance, seedOrganization, transferBody } from './seed.mjs'
import { median } from './stats.mjs'

export const DEFAULT_SIZES = [1_000, 100_000, 1_000_000]
/** Units tokenized: enough for every seeded and benchmarked transfer of one unit. */
const SUPPLY = 50_000_000
const LIMIT_HEADROOM = 0.8
const YEAR_MS = 365 * 24 * 3600 * 1000

/** The scenarios measured at every size; `limit` is the cost ratio 1M/1k each must stay within. */
const SCALE_SCENARIOS = [
  {
    id: 'transfer-post',
    title: 'POST /console/rwa/transfers',
    limit: 1.3,
    request: (s) => {
      let i = 0
      return {
        method: 'POST',
        path: '/console/rwa/transfers',
        headers: { 'x-api-key': s.key, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(transferBody(s.org, i++)) }),
      }
    },
  },
  {
    id: 'jurisdiction',
    title: 'GET /console/rwa/jurisdictions/{id}',
    limit: 1.3,
    request: (s) => ({
      method: 'GET',
      path: `/console/rwa/jurisdictions/${SOURCE}`,
      headers: { 'x-api-key': s.key },
    }),
  },
  {
    id: 'token',
    title: 'GET /console/rwa/tokens/{id}',
    limit: 1.3,
    request: (s) => ({
      method: 'GET',
      path: `/console/rwa/tokens/${s.org.tokenId}`,
      headers: { 'x-api-key': s.key },
    }),
  },
  {
    id: 'list',
    title: 'GET /console/rwa/transfers?limit=50',
    limit: 2,
    request: (s) => ({
      method: 'GET',
      path: '/console/rwa/transfers?limit=50',
      headers: { 'x-api-key': s.key },
    }),
  },
  {
    id: 'list-deep',
    title: 'GET /console/rwa/transfers?limit=50&cursor=(middle)',
    limit: 2,
    request: (s) => ({
      method: 'GET',
      path: `/console/rwa/transfers?limit=50&cursor=${s.middleCursor}`,
      headers: { 'x-api-key': s.key },
    }),
  },
]

/**
 * Runs the scale scenario: seeds every size, starts one server per size on the servers' core, then
 * `rounds` interleaved rounds of a `burst`-request load per scenario and size (after one unmeasured
 * warm-up round of the same). Returns what goes into latest.json under `scale`.
 */
export async function runScale({
  root,
  rwaBin,
  work,
  core,
  sizes,
  rounds,
  burst,
  connections,
  log,
  failures,
}) {
  const { IdFactory } = await import(pathToFileURL(join(root, 'dist/server/platform/ids.js')).href)
  // A transfer's proof stores no facts (migration 0006): they are rebuilt from the transfer row, the
  // way the server does it, so the seeder signs exactly what the server will show.
  const { transferProofFacts } = await import(
    pathToFileURL(join(root, 'dist/server/areas/rwa/transfers/from-row.js')).href
  )
  const { canonicalFacts } = await import(pathToFileURL(join(root, 'dist/src/proof/verify.js')).href)
  const factsOfTransfer = (row) => canonicalFacts(transferProofFacts(row))
  const stores = []
  const servers = []
  try {
    for (const size of sizes) {
      const file = join(work, `scale-${size}.db`)
      const store = await createOrganization(rwaBin, file)
      const started = Date.now()
      Object.assign(store, bulkSeed(file, store, size, IdFactory, factsOfTransfer))
      store.seed_seconds = Math.round((Date.now() - started) / 100) / 10
      store.file_mb = Math.round(fileBytes(file) / 1e5) / 10
      log(
        `scale ${size}: seeded ${store.transfers} transfers in ${store.seed_seconds} s (${store.file_mb} MB); API part ${store.api_seconds} s`,
      )
      stores.push(store)
    }
    for (const store of stores) {
      const server = await startServer({
        name: `rwa-scale-${store.size}`,
        args: [rwaBin, 'server', 'start', '--port', '0', '--db', store.file],
        core,
        env: { NODE_ENV: 'production' },
        timeoutMs: 120_000,
      })
      servers.push(server)
      store.url = server.url
      store.pid = server.pid
      store.budget = new MinuteBudget(Math.floor(LIMIT_HEADROOM * store.rpm))
      // What the server reads back: the exact total, before any benchmarked transfer.
      const page = await call(server.url, 'GET', '/console/rwa/transfers?limit=1', { key: store.key })
      if (page.total !== store.transfers) {
        throw new Error(
          `scale ${store.size}: the server lists ${page.total} transfers, ${store.transfers} seeded`,
        )
      }
      store.budget.spend(1)
    }
    if (burst * SCALE_SCENARIOS.length > LIMIT_HEADROOM * stores[0].rpm) {
      throw new Error(`--scale-burst ${burst}: a round would pass ${LIMIT_HEADROOM} of the per-minute limit`)
    }
    const runs = Object.fromEntries(
      SCALE_SCENARIOS.map((sc) => [sc.id, Object.fromEntries(stores.map((s) => [s.size, []]))]),
    )
    const requests = new Map()
    for (const sc of SCALE_SCENARIOS)
      for (const s of stores) requests.set(`${sc.id}/${s.size}`, sc.request(s))
    for (let round = 0; round <= rounds; round++) {
      const amount = burst
      for (const sc of SCALE_SCENARIOS) {
        for (const store of stores) {
          await store.budget.waitFor(amount, log)
          const run = await burstRun(store, requests.get(`${sc.id}/${store.size}`), amount, connections)
          store.budget.spend(amount)
          if (run.non2xx || run.errors || run.timeouts) {
            failures.push(
              `scale ${sc.id} at ${store.size}: ${run.non2xx} non-2xx ${JSON.stringify(run.status_codes)}, ${run.errors} errors, ${run.timeouts} timeouts`,
            )
          }
          if (round > 0) runs[sc.id][store.size].push(run)
          log(
            `scale ${round === 0 ? 'warm-up' : `round ${round}/${rounds}`} ${sc.id} at ${store.size}: ${run.rps} req/s, ${run.cpu_us_per_request} µs/req`,
          )
        }
      }
    }
    for (const store of stores) {
      const page = await call(store.url, 'GET', '/console/rwa/transfers?limit=1', { key: store.key })
      store.transfers_after = page.total
    }
    return summarizeScale(stores, runs, { rounds, burst, connections })
  } finally {
    for (const server of servers) {
      const how = await server.stop()
      if (how !== 0) failures.push(`${server.name} exited with ${how}:\n${server.stderr().slice(-2000)}`)
    }
  }
}

/** Creates the organization and its governance data through the API on a fresh file, then stops. */
async function createOrganization(rwaBin, file) {
  const started = Date.now()
  const server = await startServer({
    name: 'rwa-scale-seed',
    args: [rwaBin, 'server', 'start', '--port', '0', '--db', file],
    env: { NODE_ENV: 'production', RWA_LOG_LEVEL: 'warn' },
  })
  let seeded
  try {
    const pricing = await call(server.url, 'GET', '/console/billing/pricing')
    const org = await seedOrganization(server.url, server.adminKey, 'scale')
    // Two real transfers: the first approved, the second rejected (transferBody alternates).
    await seedGovernance(server.url, org, { supply: SUPPLY, transfers: 2 })
    seeded = {
      file,
      org,
      key: org.key,
      rpm: pricing.tiers.enterprise.limits.requests_per_minute,
      api_seconds: Math.round((Date.now() - started) / 100) / 10,
    }
  } catch (error) {
    await server.stop()
    throw error
  }
  const how = await server.stop()
  if (how !== 0) throw new Error(`the seeding server exited with ${how}:\n${server.stderr().slice(-2000)}`)
  return seeded
}

/**
 * Fills `file` up to `size` transfers of the organization, cloned from its two real transfers as the
 * write path stored them (every column as it is, whatever the schema holds): new ids and times, the
 * proof's canonical facts re-digested and re-signed, the history event of each, the holdings moved.
 */
function bulkSeed(file, store, size, IdFactory, factsOfTransfer) {
  const db = new Database(file)
  try {
    // The server is stopped: a rollback journal in memory for the one big transaction, WAL again after.
    db.pragma('journal_mode = MEMORY')
    db.pragma('synchronous = OFF')
    db.pragma('cache_size = -512000')
    const orgId = store.org.orgId
    const tokenId = store.org.tokenId
    const real = db.prepare('SELECT * FROM transfers WHERE org_id = ? ORDER BY transfer_id').all(orgId)
    if (real.length !== 2 || real[0].status !== 'approved' || real[1].status !== 'rejected') {
      throw new Error(
        `expected one approved and one rejected real transfer, found ${JSON.stringify(real.map((t) => t.status))}`,
      )
    }
    const templates = real.map((transfer) => {
      const proof = db.prepare('SELECT * FROM proofs WHERE proof_id = ?').get(transfer.proof_id)
      const event = db
        .prepare("SELECT * FROM token_events WHERE token_id = ? AND details LIKE '%' || ? || '%'")
        .get(tokenId, transfer.transfer_id)
      if (!proof || !event) throw new Error(`transfer ${transfer.transfer_id} has no proof or history event`)
      return { transfer, proof, event, eventTime: event.at }
    })
    const key = db
      .prepare('SELECT private_key FROM rwa_service_keys WHERE kid = ?')
      .get(templates[0].proof.kid)
    const privateKey = createPrivateKey({
      key: Buffer.from(key.private_key, 'base64'),
      format: 'der',
      type: 'pkcs8',
    })
    const signer = proofSigner(templates[0], privateKey, factsOfTransfer)
    const insert = (table, row) =>
      db.prepare(
        `INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row)
          .map(() => '?')
          .join(', ')})`,
      )
    const inserts = templates.map((t) => ({
      transfer: insert('transfers', t.transfer),
      proof: insert('proofs', t.proof),
      event: insert('token_events', t.event),
    }))
    const clones = size - real.length
    const end = Date.now() - 60_000
    const step = YEAR_MS / clones
    let clock = 0
    const ids = new IdFactory(() => clock)
    let approved = 0
    let middle
    db.transaction(() => {
      for (let i = 0; i < clones; i++) {
        const at = Math.floor(end - YEAR_MS + i * step)
        clock = at
        const template = templates[i % 2]
        const statements = inserts[i % 2]
        const iso = new Date(at).toISOString()
        const swap = new Map([
          [template.transfer.transfer_id, ids.next('tx')],
          [template.transfer.proof_id, ids.next('prf')],
          [template.event.event_id, ids.next('evt')],
          [template.transfer.created_at, iso],
          [template.eventTime, iso],
        ])
        const transfer = rewrite(template.transfer, swap)
        const proof = rewrite(template.proof, swap)
        Object.assign(proof, signer(proof, transfer))
        statements.transfer.run(Object.values(transfer))
        statements.proof.run(Object.values(proof))
        statements.event.run(Object.values(rewrite(template.event, swap)))
        if (i % 2 === 0) approved++
        if (i === Math.floor(clones / 2)) middle = transfer.transfer_id
      }
      const owner = templates[0].transfer.sender_did
      const moveHolding = db.prepare(
        'UPDATE holdings SET amount = amount + ? WHERE token_id = ? AND holder_did = ? AND jurisdiction = ?',
      )
      if (moveHolding.run(-approved, tokenId, owner, templates[0].transfer.from_jurisdiction).changes !== 1)
        throw new Error('the owner has no holding to move from')
      const recipient = templates[0].transfer.recipient_did
      if (moveHolding.run(approved, tokenId, recipient, templates[0].transfer.to_jurisdiction).changes !== 1)
        throw new Error('the approved recipient has no holding to move to')
      refreshCounters(db)
    })()
    db.pragma('journal_mode = WAL')
    const transfers = db.prepare('SELECT count(*) AS n FROM transfers WHERE org_id = ?').get(orgId).n
    return { size, transfers, approved: approved + 1, middleCursor: middle }
  } finally {
    db.close()
  }
}

/** A copy of `row` with every occurrence of each key of `swap` in its text columns replaced. */
function rewrite(row, swap) {
  const out = {}
  for (const [column, value] of Object.entries(row)) {
    if (typeof value !== 'string') {
      out[column] = value
      continue
    }
    let text = value
    for (const [from, to] of swap) if (text.includes(from)) text = text.split(from).join(to)
    out[column] = text
  }
  return out
}

/**
 * Signs a cloned proof the way the real proof was signed: the same protected header, Ed25519 over
 * `header.payload` with the canonical facts as the payload. A transfer's proof stores no facts and its
 * JWS detached (`header..signature`, migration 0006): its facts are rebuilt from the transfer row. A
 * proof that stores its facts keeps them and its whole JWS. Checked first against the real proof, so
 * that a change in how proofs are stored stops the seeding instead of writing proofs that do not verify.
 */
function proofSigner(template, privateKey, factsOfTransfer) {
  const real = template.proof
  const [header, payload, signature] = real.jws.split('.')
  const detached = real.facts === null
  const factsOf = (proof, transfer) => (detached ? factsOfTransfer(transfer) : proof.facts)
  const digest = (facts) => createHash('sha256').update(facts, 'utf8').digest('hex')
  const realFacts = factsOf(real, template.transfer)
  const realPayload = Buffer.from(realFacts).toString('base64url')
  if (real.digest !== digest(realFacts) || payload !== (detached ? '' : realPayload)) {
    throw new Error(
      'the stored proof is not a JWS of its facts with their digest: update bench/lib/scale.mjs',
    )
  }
  const sig = (input) => sign(null, Buffer.from(input), privateKey).toString('base64url')
  if (sig(`${header}.${realPayload}`) !== signature)
    throw new Error('the proof key does not reproduce the stored signature')
  return (proof, transfer) => {
    const facts = factsOf(proof, transfer)
    const encoded = Buffer.from(facts).toString('base64url')
    const signed = sig(`${header}.${encoded}`)
    return {
      digest: digest(facts),
      jws: detached ? `${header}..${signed}` : `${header}.${encoded}.${signed}`,
    }
  }
}

/**
 * Counter tables the schema may keep beside the rows (migration 0007): recomputed from the rows, as
 * that migration's backfill does, so that they say what the write path would have kept.
 */
function refreshCounters(db) {
  const has = (table) =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)
  if (has('transfer_counts')) {
    db.exec(`DELETE FROM transfer_counts;
      INSERT INTO transfer_counts (org_id, token_id, status, from_jurisdiction, to_jurisdiction, n)
      SELECT org_id, token_id, status, from_jurisdiction, to_jurisdiction, count(*) FROM transfers
      GROUP BY org_id, token_id, status, from_jurisdiction, to_jurisdiction`)
  }
  if (has('token_event_counts')) {
    db.exec(`DELETE FROM token_event_counts;
      INSERT INTO token_event_counts (token_id, n) SELECT token_id, count(*) FROM token_events GROUP BY token_id`)
  }
  if (has('transfer_daily_volumes')) {
    db.exec(`DELETE FROM transfer_daily_volumes;
      INSERT INTO transfer_daily_volumes (token_id, sender_did, day, volume)
      SELECT token_id, sender_did, substr(created_at, 1, 10), sum(amount) FROM transfers
      WHERE status = 'approved' GROUP BY token_id, sender_did, substr(created_at, 1, 10)`)
  }
}

/** The organization's requests of the last minute, so that a burst never passes the limit. */
class MinuteBudget {
  spent = []
  constructor(perMinute) {
    this.perMinute = perMinute
  }
  spend(count) {
    this.spent.push({ at: Date.now(), count })
  }
  async waitFor(count, log) {
    for (;;) {
      const now = Date.now()
      this.spent = this.spent.filter((s) => s.at > now - 60_000)
      const used = this.spent.reduce((n, s) => n + s.count, 0)
      if (used + count <= this.perMinute) return
      // Wait until the oldest burst leaves the minute (plus a margin for the clocks' granularity).
      const wait = this.spent[0].at + 60_000 - now + 250
      log(`scale: waiting ${(wait / 1000).toFixed(1)} s for the per-minute limit`)
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }
}

/** CPU time (ns) of every thread of `pid` so far, from /proc/<pid>/task/<tid>/schedstat. */
function cpuNanos(pid) {
  const dir = `/proc/${pid}/task`
  if (!existsSync(dir)) return Number.NaN
  let total = 0
  for (const tid of readdirSync(dir)) {
    try {
      total += Number(readFileSync(`${dir}/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return total
}

/**
 * `amount` requests at full speed over `connections` connections; req/s and the server's CPU per
 * request, both over the span from the start to the last response (autocannon itself ends a run on
 * its next one-second tick, which would round every short burst up to whole seconds).
 */
async function burstRun(store, request, amount, connections) {
  const cpu0 = cpuNanos(store.pid)
  const started = process.hrtime.bigint()
  let last = started
  let cpuAtLast = cpu0
  const instance = autocannon({ url: store.url, connections, amount, timeout: 10, requests: [request] })
  let seen = 0
  instance.on('response', () => {
    last = process.hrtime.bigint()
    if (++seen === amount) cpuAtLast = cpuNanos(store.pid)
  })
  const result = await instance
  if (seen !== amount) cpuAtLast = cpuNanos(store.pid)
  const wall = Number(last - started) / 1e9
  const cpu = (cpuAtLast - cpu0) / 1e9
  const statusCodes = {}
  for (const [code, s] of Object.entries(result.statusCodeStats)) statusCodes[code] = s.count
  const requests = result.requests.total
  return {
    requests,
    seconds: Math.round(wall * 1000) / 1000,
    rps: Math.round(requests / wall),
    cpu_us_per_request: Math.round((cpu * 1e6) / requests),
    server_cpu: Math.round((cpu / wall) * 100) / 100,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    status_codes: statusCodes,
  }
}

/** Medians per size, and the cost ratios of the largest size to the smallest (median of per-round ratios). */
function summarizeScale(stores, runs, plan) {
  const small = stores[0].size
  const large = stores.at(-1).size
  return {
    plan: { ...plan, sizes: stores.map((s) => s.size), limit_headroom: LIMIT_HEADROOM },
    stores: stores.map((s) => ({
      size: s.size,
      transfers_seeded: s.transfers,
      transfers_after: s.transfers_after,
      approved_seeded: s.approved,
      seed_seconds: s.seed_seconds,
      api_seconds: s.api_seconds,
      file_mb: s.file_mb,
    })),
    scenarios: SCALE_SCENARIOS.map((sc) => {
      const bySize = runs[sc.id]
      const sizes = Object.fromEntries(
        stores.map((s) => [
          s.size,
          {
            cpu_us_per_request: median(bySize[s.size].map((r) => r.cpu_us_per_request)),
            rps: median(bySize[s.size].map((r) => r.rps)),
            p50_ms: median(bySize[s.size].map((r) => r.p50_ms)),
            rounds: bySize[s.size],
          },
        ]),
      )
      const perRound = (pick) => bySize[large].map((r, i) => pick(r, bySize[small][i]))
      const cpuRatio = median(perRound((big, little) => big.cpu_us_per_request / little.cpu_us_per_request))
      const rpsRatio = median(perRound((big, little) => little.rps / big.rps))
      return {
        id: sc.id,
        title: sc.title,
        limit: sc.limit,
        sizes,
        cpu_ratio: round2(cpuRatio),
        rps_ratio: round2(rpsRatio),
        within_limit: cpuRatio <= sc.limit && rpsRatio <= sc.limit,
      }
    }),
  }
}

/** The scale table for stdout. */
export function printScale(scale) {
  const out = (line = '') => process.stdout.write(`${line}\n`)
  const sizes = scale.plan.sizes
  const label = (n) => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n))
  const small = label(sizes[0])
  const large = label(sizes.at(-1))
  out()
  out(
    `scale: one organization at ${sizes.map(label).join(' / ')} transfers; median of ${scale.plan.rounds} interleaved round(s) of ${scale.plan.burst} requests per scenario and size, ${scale.plan.connections} connections`,
  )
  for (const s of scale.stores) {
    out(
      `  ${label(s.size)}: ${s.transfers_seeded} transfers seeded in ${s.seed_seconds} s (+ ${s.api_seconds} s through the API), ${s.file_mb} MB; ${s.transfers_after} at the end`,
    )
  }
  const header = [
    'scenario',
    ...sizes.map((n) => `µs/req ${label(n)}`),
    ...sizes.map((n) => `req/s ${label(n)}`),
    `cpu ${large}/${small}`,
    `req/s ${small}/${large}`,
    'limit',
    'met',
  ]
  const rows = scale.scenarios.map((sc) => [
    sc.title,
    ...sizes.map((n) => String(sc.sizes[n].cpu_us_per_request)),
    ...sizes.map((n) => String(sc.sizes[n].rps)),
    sc.cpu_ratio.toFixed(2),
    sc.rps_ratio.toFixed(2),
    `≤ ${sc.limit}`,
    sc.within_limit ? 'yes' : 'NO',
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  out(line(header))
  out(line(widths.map((w) => '-'.repeat(w))))
  for (const row of rows) out(line(row))
}

function fileBytes(file) {
  return ['', '-wal'].reduce(
    (n, suffix) => n + (existsSync(file + suffix) ? statSync(file + suffix).size : 0),
    0,
  )
}

function round2(value) {
  return Math.round(value * 100) / 100
}
