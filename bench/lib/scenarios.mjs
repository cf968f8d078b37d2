// The load scenarios: four bare baselines, the five rwa scenarios measured against them, and the
// authenticated read and the transfer POST again over PostgreSQL + Redis on one and on two instances.
// Two diagnostic steps between the bare hello and GET pricing, (a1) and (a2), split the framework's
// and the request observation's share of pricing's cost (no target: they are not rwa's answers).
import { FLOOR_SCENARIOS } from './floors.mjs'
import { SOURCE, propertyData, transferBody } from './seed.mjs'

/**
 * Each scenario names the server it loads, the autocannon request it sends (built from the seeded
 * state), and — for rwa scenarios — its baseline and target ratio. `auth` scenarios need the seeded
 * organizations, `governance` ones the /console/rwa endpoints. Targets are issue 11's; p99 is reported
 * for every scenario but carries no target. Scenarios that vary their requests do so through `setupRequest`, baselines included, so
 * the load generator pays the same per-request cost on both sides of a ratio.
 */
/** How many credential-post request streams this process made: part of each one's title deeds. */
let credentialRuns = 0

export const SCENARIOS = [
  {
    id: 'hello',
    title: '(a) bare node:http JSON hello',
    server: 'hello',
    request: () => ({ method: 'GET', path: '/' }),
  },
  {
    id: 'hono-hello',
    title: "(a1) hello through Hono and rwa's Node server",
    server: 'hono-hello',
    baseline: 'hello',
    request: () => ({ method: 'GET', path: '/' }),
  },
  {
    id: 'hono-observed',
    title: '(a2) (a1) + request id, log line, metrics',
    server: 'hono-observed',
    baseline: 'hello',
    request: () => ({ method: 'GET', path: '/' }),
  },
  {
    id: 'pricing',
    title: 'GET /console/billing/pricing',
    server: 'rwa',
    baseline: 'hello',
    target: 0.85,
    request: () => ({ method: 'GET', path: '/console/billing/pricing' }),
  },
  {
    id: 'select',
    title: '(b) bare point select by primary key',
    server: 'select',
    request: ({ rows }) => {
      let i = 0
      return { method: 'GET', setupRequest: (req) => ({ ...req, path: `/rows/${1 + (i++ % rows)}` }) }
    },
  },
  {
    id: 'jurisdiction',
    title: 'GET /console/rwa/jurisdictions/{id}',
    server: 'rwa',
    auth: true,
    governance: true,
    baseline: 'select',
    target: 0.6,
    request: ({ orgs }) => {
      let i = 0
      return {
        method: 'GET',
        path: `/console/rwa/jurisdictions/${SOURCE}`,
        setupRequest: (req) => ({ ...req, headers: { 'x-api-key': orgs[i++ % orgs.length].key } }),
      }
    },
  },
  {
    id: 'page',
    title: '(d) bare page of 50 transfer summaries (~24 KB)',
    server: 'select',
    request: ({ rows }) => {
      let i = 0
      const groups = Math.max(1, Math.floor(rows / 60))
      return { method: 'GET', setupRequest: (req) => ({ ...req, path: `/pages/${i++ % groups}` }) }
    },
  },
  {
    id: 'transfers-list',
    title: 'GET /console/rwa/transfers?limit=50',
    server: 'rwa',
    auth: true,
    governance: true,
    baseline: 'page',
    target: 0.7,
    request: ({ orgs }) => {
      let i = 0
      return {
        method: 'GET',
        path: '/console/rwa/transfers?limit=50',
        setupRequest: (req) => ({ ...req, headers: { 'x-api-key': orgs[i++ % orgs.length].key } }),
      }
    },
  },
  {
    // Not one of the issue's scenarios: auth + limits + usage + one kysely read on a billing endpoint,
    // to profile the authenticated path on its own. Runs only when named: --only subscription.
    id: 'subscription',
    title: 'GET /console/billing/subscription/{org_id}',
    server: 'rwa',
    auth: true,
    optional: true,
    baseline: 'select',
    request: ({ orgs }) => {
      let i = 0
      return {
        method: 'GET',
        setupRequest: (req) => {
          const org = orgs[i++ % orgs.length]
          return {
            ...req,
            path: `/console/billing/subscription/${org.orgId}`,
            headers: { 'x-api-key': org.key },
          }
        },
      }
    },
  },
  {
    id: 'insert',
    title: '(c) bare insert of a ~300-byte row',
    server: 'insert',
    request: () => {
      let i = 0
      return {
        method: 'POST',
        setupRequest: (req) => ({
          ...req,
          path: '/rows',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(baselineRow(i++)),
        }),
      }
    },
  },
  {
    id: 'transfer-post',
    title: 'POST /console/rwa/transfers (approved/rejected 1:1)',
    server: 'rwa',
    auth: true,
    governance: true,
    baseline: 'insert',
    target: 0.2,
    transfers: true,
    request: ({ orgs }) => {
      let i = 0
      return {
        method: 'POST',
        setupRequest: (req) => {
          const n = i++
          const org = orgs[n % orgs.length]
          return {
            ...req,
            path: '/console/rwa/transfers',
            // Alternating per org (not per request) so every org sees both outcomes.
            headers: { 'x-api-key': org.key, 'content-type': 'application/json' },
            body: JSON.stringify(transferBody(org, Math.floor(n / orgs.length))),
          }
        },
      }
    },
  },
  {
    // The same transfers, each with an Idempotency-Key of its own
    // (docs/accountability.md, "Retrying a write safely"): the claim committed before the write and the
    // answer stored in it, against the same POST without the header.
    id: 'transfer-post-idem',
    title: 'POST /console/rwa/transfers with an Idempotency-Key',
    server: 'rwa',
    auth: true,
    governance: true,
    baseline: 'transfer-post',
    transfers: true,
    request: (state) => {
      const base = SCENARIOS.find((s) => s.id === 'transfer-post').request(state)
      let i = 0
      return {
        ...base,
        setupRequest: (req) => {
          const next = base.setupRequest(req)
          return { ...next, headers: { ...next.headers, 'idempotency-key': `bench-${process.pid}-${i++}` } }
        },
      }
    },
  },
  {
    id: 'credential-post',
    title: 'POST /console/rwa/credentials',
    server: 'rwa',
    auth: true,
    governance: true,
    baseline: 'insert',
    target: 0.4,
    request: ({ orgs }) => {
      let i = 0
      // One live credential per title deed (docs/verification.md, "One property, one live credential"):
      // every request of every round (and of the seed, and of a warm-up over the same database) names a deed
      // of its own.
      const run = `${process.pid}-${Date.now().toString(36)}-${credentialRuns++}`
      return {
        method: 'POST',
        setupRequest: (req) => {
          const n = i++
          const org = orgs[n % orgs.length]
          return {
            ...req,
            path: '/console/rwa/credentials',
            headers: { 'x-api-key': org.key, 'content-type': 'application/json' },
            body: JSON.stringify({
              jurisdiction: SOURCE,
              // A few owners per organization: most credentials go to a DID the org already has.
              owner_did: `did:web:${org.orgId}:holder-${Math.floor(n / orgs.length) % 16}`,
              property_data: { ...propertyData(n), title_deed: `TD-BENCH-${run}-${n}` },
            }),
          }
        },
      }
    },
  },
]

/** The row baseline (c) inserts: the shape of a credential request padded to about 300 bytes. */
export function baselineRow(i) {
  return {
    name: `row ${i}`,
    jurisdiction: SOURCE,
    owner_did: `did:web:bench-${i % 1000}:holder-${i % 16}`,
    property_data: propertyData(i),
    note: 'bare baseline row, padded to about three hundred bytes',
  }
}

/**
 * The same request over PostgreSQL + Redis (`--database-url`, `--redis-url`): on one instance, or with
 * the connections split over two instances of the same deployment, as behind a load balancer. Each is
 * compared with its SQLite scenario in the same run, so the cost of the shared store and the gain of a
 * second instance are ratios. They use organizations seeded in the PostgreSQL database.
 */
function onPostgres(id, instances) {
  const base = SCENARIOS.find((s) => s.id === id)
  return {
    id: `${id}-pg${instances}`,
    title: `${base.title}, PostgreSQL+Redis, ${instances === 1 ? '1 instance' : `${instances} instances`}`,
    server: instances === 1 ? 'rwa-pg' : 'rwa-pg2',
    auth: true,
    governance: true,
    postgres: true,
    transfers: base.id === 'transfer-post',
    baseline: id,
    request: (state) => base.request({ ...state, orgs: state.pgOrgs }),
  }
}

// Issue 26: the floors of a transfer and a credential, the batches, and the single POSTs against them.
SCENARIOS.push(...FLOOR_SCENARIOS)

/**
 * Issue 41: the floors of the reads (bench/baselines/read-floor.mjs, on the rwa server's own database),
 * each measured right after the rwa scenario it is the floor of, with the same requests; and that
 * scenario's rounds again against it (a derived row: the goal is read against the floor).
 */
const READ_FLOORS = [
  ['pricing', 'pricing-floor', '(a3) floor of GET pricing: observation, prepared bytes, no framework', 0.6],
  [
    'jurisdiction',
    'read-floor',
    '(b1) floor of the authenticated read: observation, key, limits, meter, one select',
    0.5,
  ],
  [
    'transfers-list',
    'list-floor',
    '(d1) floor of the list page of 50: the same, the total and the page',
    0.8,
  ],
]
for (const [of, id, title, target] of READ_FLOORS) {
  const scenario = SCENARIOS.find((s) => s.id === of)
  const floor = {
    id,
    title,
    server: 'read-floor',
    auth: scenario.auth,
    governance: scenario.governance,
    request: (state) => scenario.request(state),
  }
  const against = {
    id: `${of}-at-floor`,
    title: `${scenario.title} against its floor`,
    server: 'rwa',
    auth: scenario.auth,
    governance: scenario.governance,
    derivedFrom: of,
    baseline: id,
    target,
  }
  SCENARIOS.splice(SCENARIOS.indexOf(scenario) + 1, 0, floor, against)
}

SCENARIOS.push(
  onPostgres('jurisdiction', 1),
  onPostgres('jurisdiction', 2),
  onPostgres('transfer-post', 1),
  onPostgres('transfer-post', 2),
)
