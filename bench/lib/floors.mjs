// Issue 26's bench rows: the floor of the work (bench/baselines/floor.mjs) and what rwa costs against
// it, one operation at a time and in batches of 1,000.
//
//   transfer-floor, credential-floor              one operation per transaction, no HTTP (baselines)
//   transfer-floor-batch, credential-floor-batch  1,000 operations per transaction, no HTTP (baselines)
//   transfer-batch, credential-batch              POST /console/rwa/batch with 1,000 operations, per
//                                                 operation, against the floor-batch (goal ≥ 0.8)
//   transfer-post-floor, credential-post-floor    the single POSTs already measured (transfer-post,
//                                                 credential-post), against their floor (goal ≥ 0.5)
//   transfer-http-floor, credential-http-floor    one operation per request over bare node:http (baselines)
//   transfer-post-http-floor, ...-http-floor      the single POSTs against those (no goal: what the
//                                                 gap is beyond HTTP itself, docs/performance.md)
//
// A scenario with `run` is measured by it instead of autocannon, and answers what loadRun answers, an
// operation counted as a request; one with `derivedFrom` measures nothing and reuses that scenario's
// rounds against its own baseline.
import { join } from 'node:path'
import { cpuSeconds, startServer } from './processes.mjs'
import { propertyData, SOURCE, transferBody } from './seed.mjs'

/** Operations per batch, in the floor-batch baselines and the batch scenarios (the API's maximum). */
export const BATCH_SIZE = 1000
/** Batches in flight at once: one running, one waiting, so the server never idles between them. */
const BATCH_CLIENTS = 2

/**
 * Starts the floor process on `core`, working for `orgs` (the seeded organizations the scenarios send
 * their requests for, in the same turn) on a copy of the rwa server's database `rwaDb` taken now, once
 * they are seeded: the same schema, rows and organizations as the server's own. SQLite's online backup
 * copies the pages as they are, while the server runs.
 *
 * The floor once seeded one organization of its own and did all its work for it: the same few pages,
 * in the processor's caches, for every operation, where the scenarios spread theirs over a thousand
 * organizations (docs/performance.md, "Eleventh pass: the floors over the scenarios' organizations").
 */
export async function startFloor({ root, rwaDb, orgs, work, core }) {
  const db = join(work, 'floor.db')
  const { default: SQLite } = await import('better-sqlite3')
  const source = new SQLite(rwaDb, { readonly: true, fileMustExist: true })
  try {
    await source.backup(db)
  } finally {
    source.close()
  }
  return startServer({
    name: 'floor',
    args: [join(root, 'bench/baselines/floor.mjs'), '--db', db, '--org', orgs.map((o) => o.orgId).join(',')],
    core,
    env: { NODE_ENV: 'production' },
  })
}

/** One measured run of the floor process: `kind` for `seconds`, `perTransaction` to a transaction. */
async function floorRun(server, kind, perTransaction, seconds) {
  const response = await fetch(`${server.url}/run`, {
    method: 'POST',
    body: JSON.stringify({ kind, per_transaction: perTransaction, seconds }),
  })
  const result = await response.json()
  if (!response.ok) throw new Error(`the floor process failed: ${result.error}`)
  const sorted = [...result.transaction_ms].sort((a, b) => a - b)
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
  return {
    seconds: round(result.wall_s, 2),
    requests: result.ops,
    rps: Math.round(result.ops / result.wall_s),
    // Per transaction: one operation, or a batch of them.
    p50_ms: round(at(50), 3),
    p99_ms: round(at(99), 3),
    max_ms: round(at(100), 3),
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    status_codes: {},
    server_cpu: round(result.cpu_us / 1e6 / result.wall_s, 2),
    generator_cpu: 0,
  }
}

/**
 * Batches of BATCH_SIZE operations through `POST /console/rwa/batch`, BATCH_CLIENTS at a time, for
 * `seconds` (batches started by then are awaited): the server's CPU from the first request to the
 * last answer, per operation. Organizations take turns, each batch counting BATCH_SIZE requests of its
 * organization's minute (docs/batches.md, "Roles, limits, idempotency, audit"), as the seeding sized them. A
 * batch answered non-200, or with an operation whose status is not 2xx, counts as non-2xx.
 */
async function batchRun({ server, orgs, seconds, operation }) {
  let batches = 0
  let non2xx = 0
  let errors = 0
  const statusCodes = {}
  const latencies = []
  const cpu0 = cpuSeconds(server.pid)
  const t0 = process.hrtime.bigint()
  const until = t0 + BigInt(Math.round(seconds * 1e9))
  const perMinute = await minuteLimit(server)
  const client = async () => {
    while (process.hrtime.bigint() < until) {
      const org = await organizationWithRoom(orgs, perMinute)
      const n = batchesSent++
      const operations = Array.from({ length: BATCH_SIZE }, (_, i) => operation(org, n * BATCH_SIZE + i))
      const started = process.hrtime.bigint()
      try {
        const response = await fetch(`${server.url}/console/rwa/batch`, {
          method: 'POST',
          headers: { 'x-api-key': org.key, 'content-type': 'application/json' },
          body: JSON.stringify({ operations }),
          signal: AbortSignal.timeout(120_000),
        })
        const text = await response.text()
        statusCodes[response.status] = (statusCodes[response.status] ?? 0) + 1
        if (response.status !== 200) non2xx += 1
        else {
          const failed = JSON.parse(text).results.filter((r) => r.status < 200 || r.status > 299)
          if (failed.length > 0) {
            non2xx += 1
            statusCodes[`operation ${failed[0].status}`] = failed.length
          } else batches += 1
        }
      } catch (error) {
        errors += 1
        statusCodes[`error: ${error.message}`] = (statusCodes[`error: ${error.message}`] ?? 0) + 1
      }
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6)
    }
  }
  await Promise.all(Array.from({ length: BATCH_CLIENTS }, client))
  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  const sorted = latencies.sort((a, b) => a - b)
  const at = (p) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
  const requests = batches * BATCH_SIZE
  return {
    seconds: round(wall, 2),
    requests,
    rps: Math.round(requests / wall),
    // Per batch.
    p50_ms: round(at(50), 3),
    p99_ms: round(at(99), 3),
    max_ms: round(at(100), 3),
    non2xx,
    errors,
    timeouts: 0,
    status_codes: statusCodes,
    server_cpu: round((cpuSeconds(server.pid) - cpu0) / wall, 2),
    generator_cpu: 0,
  }
}

/**
 * Batches sent by this process, over every run and scenario: the organizations take turns across them
 * all, so none is sent more than its share (a count restarting each run would load the first ones).
 */
let batchesSent = 0

/** When each organization was last sent batches (ms), over every run: its requests of the minute. */
const batchesOf = new Map()
let turn = 0

/**
 * The next organization (in turn) whose batches of the last minute, with one more, stay under
 * LIMIT_HEADROOM of its per-minute limit: a batch over what is left of the minute is refused whole
 * (429, docs/batches.md, "Roles, limits, idempotency, audit"), and the bench measures answers, not refusals.
 * Waits when none has room.
 */
async function organizationWithRoom(orgs, perMinute) {
  for (;;) {
    const now = Date.now()
    for (let tried = 0; tried < orgs.length; tried++) {
      const org = orgs[turn++ % orgs.length]
      const recent = (batchesOf.get(org.orgId) ?? []).filter((at) => at > now - 61_000)
      if ((recent.length + 1) * BATCH_SIZE <= LIMIT_HEADROOM * perMinute) {
        batchesOf.set(org.orgId, [...recent, now])
        return org
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
const LIMIT_HEADROOM = 0.8

/** The enterprise tier's requests per minute, as the server's pricing says (the seeded organizations' tier). */
async function minuteLimit(server) {
  const response = await fetch(`${server.url}/console/billing/pricing`)
  return (await response.json()).tiers.enterprise.limits.requests_per_minute
}

/** How many credential-batch runs this process made: part of each credential's title deed. */
let credentialBatchRuns = 0

export const FLOOR_SCENARIOS = [
  {
    id: 'transfer-floor',
    title: "(e) a transfer's statements, proof and log, no HTTP, 1 per transaction",
    server: 'floor',
    governance: true,
    run: ({ server, seconds }) => floorRun(server, 'transfer', 1, seconds),
  },
  {
    id: 'transfer-floor-batch',
    title: `(e') the same, ${BATCH_SIZE.toLocaleString('en')} per transaction`,
    server: 'floor',
    governance: true,
    run: ({ server, seconds }) => floorRun(server, 'transfer', BATCH_SIZE, seconds),
  },
  {
    id: 'transfer-batch',
    title: `POST /console/rwa/batch, ${BATCH_SIZE.toLocaleString('en')} transfers (per transfer)`,
    server: 'rwa',
    auth: true,
    governance: true,
    transfers: true,
    baseline: 'transfer-floor-batch',
    target: 0.8,
    run: ({ server, state, seconds }) =>
      batchRun({
        server,
        orgs: state.orgs,
        seconds,
        operation: (org, i) => ({ op: 'transfers.request', body: transferBody(org, i) }),
      }),
  },
  {
    id: 'transfer-post-floor',
    title: 'POST /console/rwa/transfers against its floor',
    server: 'rwa',
    auth: true,
    governance: true,
    derivedFrom: 'transfer-post',
    baseline: 'transfer-floor',
    target: 0.5,
  },
  {
    id: 'transfer-http-floor',
    title: '(e2) the same as (e), one per request over bare node:http',
    server: 'floor',
    governance: true,
    request: ({ orgs }) =>
      httpFloorRequest('transfer', (i) => transferBody(orgs[i % orgs.length], Math.floor(i / orgs.length))),
  },
  {
    id: 'transfer-post-http-floor',
    title: 'POST /console/rwa/transfers against its floor over HTTP',
    server: 'rwa',
    auth: true,
    governance: true,
    derivedFrom: 'transfer-post',
    baseline: 'transfer-http-floor',
  },
  {
    id: 'credential-floor',
    title: "(f) a credential's statements, VC-JWT and log, no HTTP, 1 per transaction",
    server: 'floor',
    governance: true,
    run: ({ server, seconds }) => floorRun(server, 'credential', 1, seconds),
  },
  {
    id: 'credential-floor-batch',
    title: `(f') the same, ${BATCH_SIZE.toLocaleString('en')} per transaction`,
    server: 'floor',
    governance: true,
    run: ({ server, seconds }) => floorRun(server, 'credential', BATCH_SIZE, seconds),
  },
  {
    id: 'credential-batch',
    title: `POST /console/rwa/batch, ${BATCH_SIZE.toLocaleString('en')} credentials (per credential)`,
    server: 'rwa',
    auth: true,
    governance: true,
    baseline: 'credential-floor-batch',
    target: 0.8,
    run: ({ server, state, seconds }) => {
      const run = `${process.pid}-${Date.now().toString(36)}-${credentialBatchRuns++}`
      return batchRun({
        server,
        orgs: state.orgs,
        seconds,
        operation: (org, i) => ({
          op: 'credentials.issue',
          body: {
            jurisdiction: SOURCE,
            owner_did: `did:web:${org.orgId}:holder-${i % 16}`,
            property_data: { ...propertyData(i), title_deed: `TD-BATCH-${run}-${i}` },
          },
        }),
      })
    },
  },
  {
    id: 'credential-post-floor',
    title: 'POST /console/rwa/credentials against its floor',
    server: 'rwa',
    auth: true,
    governance: true,
    derivedFrom: 'credential-post',
    baseline: 'credential-floor',
    target: 0.5,
  },
  {
    id: 'credential-http-floor',
    title: '(f2) the same as (f), one per request over bare node:http',
    server: 'floor',
    governance: true,
    request: ({ orgs }) =>
      httpFloorRequest('credential', (i) => ({
        jurisdiction: SOURCE,
        owner_did: `did:web:${orgs[i % orgs.length].orgId}:holder-${Math.floor(i / orgs.length) % 16}`,
        property_data: propertyData(i),
      })),
  },
  {
    id: 'credential-post-http-floor',
    title: 'POST /console/rwa/credentials against its floor over HTTP',
    server: 'rwa',
    auth: true,
    governance: true,
    derivedFrom: 'credential-post',
    baseline: 'credential-http-floor',
  },
]

/**
 * Autocannon's request for an HTTP floor: `POST /op/{kind}` with a body shaped as the API's (which the
 * floor reads and parses, as the server does), one operation per request (bench/baselines/floor.mjs).
 */
function httpFloorRequest(kind, bodyOf) {
  let i = 0
  return {
    method: 'POST',
    setupRequest: (req) => ({
      ...req,
      path: `/op/${kind}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(bodyOf(i++)),
    }),
  }
}

function round(value, digits) {
  const f = 10 ** digits
  return Math.round(value * f) / f
}
