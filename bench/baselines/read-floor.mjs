// The floors of the reads (issue 41): the least work the contract requires of each read, written
// without the framework — plain node:http, prepared better-sqlite3 statements — on the rwa server's own
// database file, answering the same requests as the rwa scenarios with the same bytes. Each part and why
// the contract requires it: docs/performance.md, "The floors of the reads".
//
//   GET /console/billing/pricing            (pricing-floor) a public answer: the per-client bucket when
//                                           --public-rate is not off, the observation, prepared bytes
//                                           with their ETag (If-None-Match → 304)
//   GET /console/rwa/jurisdictions/{id}     (read-floor) the observation, the key (format, SHA-256, a
//                                           map), the organization's limits and the meter, the RateLimit
//                                           headers, one point select, its JSON
//   GET /console/rwa/transfers?limit=50     (list-floor) the same with the page: the total from the
//                                           counters, 51 summaries newest first, their JSON
//
// The observation is what every request of the contract gets: a request id, the request counter and
// latency histogram (prom-client, labelled by method, route template and status), and one JSON access-log
// line written asynchronously (rwa's own pino logger, to stderr as the server writes it). The limiter,
// the bucket and the meter are rwa's own in-memory classes (dist/), as the server runs them on SQLite;
// the meter is never flushed (its one write a second would be the rwa server's database's: it is left
// out, which makes this floor smaller, not larger).
//
// It opens the file the rwa server is serving (WAL: readers in another process do not block it), reads
// only, and caches each key and organization on first sight, as the server does.
import { createHash, randomUUID } from 'node:crypto'
import { Counter, Histogram, Registry } from 'prom-client'
import { API_KEY_PATTERN } from '../../dist/src/contract/billing.js'
import { PRICING } from '../../dist/src/contract/pricing.js'
import { entitlementOf } from '../../dist/server/platform/limits/entitlement.js'
import { clientBucketKey, TokenBuckets } from '../../dist/server/platform/limits/public-bucket.js'
import { RateLimiter } from '../../dist/server/platform/limits/rate-limiter.js'
import { jsonLogger } from '../../dist/server/platform/logging/logger.js'
import { UsageMeter } from '../../dist/server/platform/metering/meter.js'
import { utcDate } from '../../dist/server/platform/clock.js'
import { argument, listen, openSqlite } from './serve.mjs'

const db = await openSqlite(argument('db'))
db.pragma('query_only = 1')
/** `--public-rate N/B` as rwa's `--public-rate-limit`, or `off` (the bench's throughput servers). */
const publicRate = (() => {
  const value = argument('public-rate')
  if (value === 'off') return null
  const [perSecond, burst] = value.split('/').map(Number)
  return { perSecond, burst }
})()

// ---- observation ----------------------------------------------------------------------------------
const logger = jsonLogger({ level: process.env.RWA_LOG_LEVEL ?? 'info' })
const registry = new Registry()
const requests = new Counter({
  name: 'rwa_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'],
  registers: [registry],
})
const durations = new Histogram({
  name: 'rwa_http_request_duration_seconds',
  help: 'Time from receiving a request to its response being ready, by method and route template',
  labelNames: ['method', 'route'],
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
})
/** The counter's and histogram's children of each route and status, bound on first use. */
const bound = new Map()
const REQUEST_ID = /^[A-Za-z0-9_=-]{1,128}$/

/** The request's id: the caller's when well formed, else a new UUID. */
function requestIdOf(req) {
  const id = req.headers['x-request-id']
  return typeof id === 'string' && REQUEST_ID.test(id) ? id : randomUUID()
}

/** Counts, times and logs the answered request: what every request of the contract gets. */
function observed(req, route, status, started, requestId, key) {
  const seconds = (performance.now() - started) / 1000
  const name = `${route} ${status}`
  let children = bound.get(name)
  if (children === undefined) {
    children = {
      count: requests.labels(req.method, route, String(status)),
      duration: durations.labels(req.method, route),
    }
    bound.set(name, children)
  }
  children.count.inc()
  children.duration.observe(seconds)
  const path = req.url.indexOf('?')
  logger.info(
    {
      request_id: requestId,
      method: req.method,
      route,
      path: path === -1 ? req.url : req.url.slice(0, path),
      status,
      duration_ms: Math.round(seconds * 1e5) / 100,
      org_id: key?.orgId,
      key_id: key?.keyId,
    },
    'request',
  )
}

function answer(res, status, headers, body) {
  headers['content-length'] = body.length
  res.writeHead(status, headers)
  res.end(body)
}

function problem(res, status, code, detail, requestId, extra = {}) {
  const body = Buffer.from(JSON.stringify({ type: `about:blank#${code}`, title: code, status, code, detail }))
  answer(
    res,
    status,
    { 'content-type': 'application/problem+json', 'x-request-id': requestId, ...extra },
    body,
  )
}

// ---- the public answer ---------------------------------------------------------------------------
const pricingBytes = Buffer.from(JSON.stringify(PRICING))
const pricingEtag = `"${createHash('sha256').update(pricingBytes).digest('base64url').slice(0, 27)}"`
const buckets = new TokenBuckets()

function pricing(req, res, started, requestId) {
  const route = '/console/billing/pricing'
  if (publicRate !== null) {
    const address = req.socket.remoteAddress
    const decision = buckets.take(clientBucketKey(address ?? 'unknown'), publicRate, Date.now())
    if (!decision.allowed) {
      problem(res, 429, 'public_rate_limited', 'Too many requests', requestId, {
        'retry-after': String(decision.retryAfterSeconds),
      })
      return observed(req, route, 429, started, requestId)
    }
  }
  const headers = {
    'content-type': 'application/json',
    etag: pricingEtag,
    'cache-control': 'no-cache',
    'x-request-id': requestId,
  }
  const ifNoneMatch = req.headers['if-none-match']
  if (ifNoneMatch === pricingEtag || ifNoneMatch === '*') {
    res.writeHead(304, headers)
    res.end()
    return observed(req, route, 304, started, requestId)
  }
  answer(res, 200, headers, pricingBytes)
  observed(req, route, 200, started, requestId)
}

// ---- the key, the limits, the meter ----------------------------------------------------------------
const keyByHash = db.prepare(
  'SELECT key_id, org_id, revoked_at, expires_at, retires_at FROM api_keys WHERE key_hash = ?',
)
const planOf = db.prepare(
  `SELECT o.org_id, o.trial_ends_at, s.tier, s.status FROM organizations o
   LEFT JOIN subscriptions s ON s.org_id = o.org_id WHERE o.org_id = ?`,
)
const usageOn = db.prepare('SELECT request_count FROM usage_daily WHERE org_id = ? AND date = ?')
/** Keys by the SHA-256 of the raw key, organizations by id: read once, then from memory. */
const keys = new Map()
const orgs = new Map()
const limiter = new RateLimiter()
const meter = new UsageMeter(null)

/**
 * The key and entitlement of an authenticated request, the request counted and metered, or the
 * refusal already answered (undefined). Every refusal of the contract is a cheap branch here; the bench
 * sends none.
 */
function authenticated(req, res, requestId) {
  const raw = req.headers['x-api-key']
  if (typeof raw !== 'string' || !API_KEY_PATTERN.test(raw)) {
    problem(res, 401, 'key_malformed', 'Malformed API key', requestId)
    return undefined
  }
  const hash = createHash('sha256').update(raw).digest('hex')
  let key = keys.get(hash)
  if (key === undefined) {
    const row = keyByHash.get(hash)
    if (row === undefined) {
      problem(res, 401, 'key_unknown', 'Unknown API key', requestId)
      return undefined
    }
    key = {
      keyId: row.key_id,
      orgId: row.org_id,
      revoked: row.revoked_at !== null,
      expiresAt: row.expires_at === null ? null : Date.parse(row.expires_at),
      retiresAt: row.retires_at === null ? null : Date.parse(row.retires_at),
    }
    keys.set(hash, key)
  }
  const now = Date.now()
  if (
    key.revoked ||
    (key.retiresAt !== null && now >= key.retiresAt) ||
    (key.expiresAt !== null && now >= key.expiresAt)
  ) {
    problem(res, 401, 'key_revoked', 'This API key no longer works', requestId)
    return undefined
  }
  let org = orgs.get(key.orgId)
  if (org === undefined) {
    const row = planOf.get(key.orgId)
    org = {
      orgId: row.org_id,
      trialEndsAt: row.trial_ends_at === null ? null : Date.parse(row.trial_ends_at),
      subscription: row.tier && row.status ? { tier: row.tier, status: row.status } : null,
    }
    orgs.set(key.orgId, org)
  }
  const entitlement = entitlementOf(org, now)
  const today = utcDate(now)
  if (limiter.needsDaySeed(org.orgId, today)) {
    const stored = usageOn.get(org.orgId, today)?.request_count ?? 0
    limiter.seedDay(org.orgId, today, stored, entitlement.limits.requests_per_minute)
  }
  const decision = limiter.take(org.orgId, entitlement.limits, now)
  const limitHeaders = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  }
  if (!decision.allowed) {
    problem(res, 429, 'rate_limited', 'Rate limit reached', requestId, {
      ...limitHeaders,
      'retry-after': String(decision.retryAfterSeconds),
    })
    return { key, refused: true }
  }
  meter.record(org.orgId, key.keyId, now)
  if (!entitlement.governance) {
    problem(res, 403, 'plan_required', 'Governance needs a paid plan', requestId, limitHeaders)
    return { key, refused: true }
  }
  return { key, limitHeaders }
}

// ---- the reads -------------------------------------------------------------------------------------
const JURISDICTION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/
const jurisdiction = db.prepare(
  `SELECT jurisdiction_id, name, regulatory_body, frameworks, credential_types, transfer_requirements,
     external_only, issuer_did, created_at, updated_at
   FROM jurisdictions WHERE org_id = ? AND jurisdiction_id = ?`,
)

function getJurisdiction(req, res, started, requestId, id) {
  const route = '/console/rwa/jurisdictions/{id}'
  const auth = authenticated(req, res, requestId)
  if (auth === undefined || auth.refused)
    return observed(req, route, res.statusCode, started, requestId, auth?.key)
  const { key, limitHeaders } = auth
  if (!JURISDICTION_ID.test(id) || id.toLowerCase() === 'trust') {
    problem(res, 400, 'validation_failed', 'id: expected a short code', requestId, limitHeaders)
    return observed(req, route, 400, started, requestId, key)
  }
  const row = jurisdiction.get(key.orgId, id)
  if (row === undefined) {
    problem(res, 404, 'jurisdiction_not_found', `Jurisdiction ${id} not found`, requestId, limitHeaders)
    return observed(req, route, 404, started, requestId, key)
  }
  const body = Buffer.from(
    JSON.stringify({
      jurisdiction_id: row.jurisdiction_id,
      name: row.name,
      regulatory_body: row.regulatory_body,
      frameworks: JSON.parse(row.frameworks),
      credential_types: JSON.parse(row.credential_types),
      transfer_requirements: JSON.parse(row.transfer_requirements),
      external_only: JSON.parse(row.external_only),
      issuer_did: row.issuer_did,
      created_at: row.created_at,
      updated_at: row.updated_at,
    }),
  )
  answer(res, 200, { 'content-type': 'application/json', 'x-request-id': requestId, ...limitHeaders }, body)
  observed(req, route, 200, started, requestId, key)
}

const TX_CURSOR = /^tx_[0-9A-HJKMNP-TV-Z]{26}$/
const transferTotal = db.prepare('SELECT sum(n) AS n FROM transfer_counts WHERE org_id = ?')
const summaries = `transfer_id, status, proof_id, compliance_summary, token_id, from_jurisdiction,
  to_jurisdiction, sender_did, recipient_did, amount, created_at`
const firstPage = db.prepare(
  `SELECT ${summaries} FROM transfers WHERE org_id = ? ORDER BY transfer_id DESC LIMIT ?`,
)
const laterPage = db.prepare(
  `SELECT ${summaries} FROM transfers WHERE org_id = ? AND transfer_id < ? ORDER BY transfer_id DESC LIMIT ?`,
)

function listTransfers(req, res, started, requestId, query) {
  const route = '/console/rwa/transfers'
  const auth = authenticated(req, res, requestId)
  if (auth === undefined || auth.refused)
    return observed(req, route, res.statusCode, started, requestId, auth?.key)
  const { key, limitHeaders } = auth
  // The query as the contract's strict schema reads it; the filters are not part of this floor.
  let limit = 50
  let cursor
  let invalid
  for (const [name, value] of new URLSearchParams(query)) {
    if (name === 'limit') {
      limit = Number(value)
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) invalid = 'limit: expected 1 to 500'
    } else if (name === 'cursor') {
      cursor = value
      if (!TX_CURSOR.test(value)) invalid = 'cursor: expected a next_cursor'
    } else invalid = `${name}: not a parameter of this floor`
  }
  if (invalid !== undefined) {
    problem(res, 400, 'validation_failed', invalid, requestId, limitHeaders)
    return observed(req, route, 400, started, requestId, key)
  }
  const total = Number(transferTotal.get(key.orgId).n ?? 0)
  const found =
    cursor === undefined ? firstPage.all(key.orgId, limit + 1) : laterPage.all(key.orgId, cursor, limit + 1)
  const more = found.length > limit
  const rows = more ? found.slice(0, limit) : found
  const transfers = rows.map((row) => {
    const { source_requirements, target_requirements, all_satisfied } = JSON.parse(row.compliance_summary)
    return {
      transfer_id: row.transfer_id,
      status: row.status,
      proof_id: row.proof_id,
      compliance_details: { source_requirements, target_requirements, all_satisfied },
      token_id: row.token_id,
      from_jurisdiction: row.from_jurisdiction,
      to_jurisdiction: row.to_jurisdiction,
      sender_did: row.sender_did,
      recipient_did: row.recipient_did,
      amount: Number(row.amount),
      created_at: row.created_at,
    }
  })
  const body = Buffer.from(
    JSON.stringify({ transfers, total, next_cursor: more ? rows.at(-1).transfer_id : null }),
  )
  answer(res, 200, { 'content-type': 'application/json', 'x-request-id': requestId, ...limitHeaders }, body)
  observed(req, route, 200, started, requestId, key)
}

// ---- routing ---------------------------------------------------------------------------------------
const JURISDICTIONS = '/console/rwa/jurisdictions/'

listen(
  (req, res) => {
    const started = performance.now()
    const requestId = requestIdOf(req)
    const url = req.url
    const at = url.indexOf('?')
    const path = at === -1 ? url : url.slice(0, at)
    if (req.method === 'GET' && path === '/console/billing/pricing')
      return pricing(req, res, started, requestId)
    if (
      req.method === 'GET' &&
      path.startsWith(JURISDICTIONS) &&
      path.indexOf('/', JURISDICTIONS.length) === -1
    ) {
      return getJurisdiction(
        req,
        res,
        started,
        requestId,
        decodeURIComponent(path.slice(JURISDICTIONS.length)),
      )
    }
    if (req.method === 'GET' && path === '/console/rwa/transfers') {
      return listTransfers(req, res, started, requestId, at === -1 ? '' : url.slice(at + 1))
    }
    problem(res, 404, 'not_found', 'No route', requestId)
    observed(req, 'unmatched', 404, started, requestId)
  },
  () => {
    db.close()
    logger.flush()
  },
)
