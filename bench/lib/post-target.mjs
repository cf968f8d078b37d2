// A seeded rwa server to POST transfers or credentials at, one after another across its
// organizations: what bench/post-profile.mjs and bench/post-compare.mjs measure alike.
import { join } from 'node:path'
import { startServer, TASKSET } from './processes.mjs'
import { call, propertyData, SOURCE, seedGovernance, seedOrganization, transferBody } from './seed.mjs'

/**
 * `bin` (an rwa build) serving a fresh database in `work`, pinned to core 0 when taskset exists, with
 * `orgs` enterprise organizations seeded (`prefix-0`, ...) and 200 POSTs of `kind` sent to warm it up.
 * `nodeArgs` go to node before the binary (a profiler's flags).
 */
export async function postTarget({ name, bin, work, kind, prefix, orgs = 4, nodeArgs = [] }) {
  const server = await startServer({
    name,
    args: [
      ...nodeArgs,
      bin,
      'server',
      'start',
      '--port',
      '0',
      '--db',
      join(work, `${name}.db`),
      '--public-rate-limit',
      'off',
    ],
    core: TASKSET ? 0 : undefined,
    env: { NODE_ENV: 'production' },
  })
  const seeded = []
  for (let i = 0; i < orgs; i++) {
    const org = await seedOrganization(server.url, server.adminKey, `${prefix}-${i}`)
    await seedGovernance(server.url, org, { supply: 1_000_000, transfers: 2 })
    seeded.push(org)
  }
  const target = { server, orgs: seeded, kind, prefix, sent: 0, batches: 0 }
  for (let i = 0; i < 200; i++) await postTo(target)
  return target
}

/** The next POST of the target's kind, from its next organization in turn. */
export function postTo(target) {
  const n = target.sent++
  const org = target.orgs[n % target.orgs.length]
  const i = Math.floor(n / target.orgs.length)
  if (target.kind === 'transfer') {
    return call(target.server.url, 'POST', '/console/rwa/transfers', {
      key: org.key,
      body: transferBody(org, i),
    })
  }
  return call(target.server.url, 'POST', '/console/rwa/credentials', {
    key: org.key,
    body: credentialBody(target, org, i, n),
  })
}

/**
 * The next `POST /console/rwa/batch` of `size` operations of the target's kind, from its next
 * organization in turn (each operation counts against that organization's minute:
 * docs/batches.md, "Roles, limits, idempotency, audit"). Throws unless every operation succeeded.
 */
export async function batchTo(target, size) {
  const b = target.batches++
  const org = target.orgs[b % target.orgs.length]
  const operations = Array.from({ length: size }, () => {
    const n = target.sent++
    const i = Math.floor(n / target.orgs.length)
    return target.kind === 'transfer'
      ? { op: 'transfers.request', body: transferBody(org, i) }
      : { op: 'credentials.issue', body: credentialBody(target, org, i, n) }
  })
  const answer = await call(target.server.url, 'POST', '/console/rwa/batch', {
    key: org.key,
    body: { operations },
  })
  const failed = answer.results.filter((r) => r.status < 200 || r.status > 299)
  if (failed.length > 0)
    throw new Error(`batch: ${failed.length} operations failed, the first ${JSON.stringify(failed[0])}`)
  return answer
}

function credentialBody(target, org, i, n) {
  return {
    jurisdiction: SOURCE,
    owner_did: `did:web:${org.orgId}:holder-${i % 16}`,
    property_data: { ...propertyData(i), title_deed: `TD-${target.prefix}-${process.pid}-${n}` },
  }
}
