// A seeded rwa server to POST transfers or credentials at, one after another across its
// organizations: what bench/post-profile.mjs and bench/post-compare.mjs measure alike.
import { join } from 'node:path'
import { startServer, TASKSET } from './processes.mjs'
import { call, propertyData, SOURCE, seedGovernance, seedOrganization, transferBody } from './seed.mjs'

/**
 * Every transfer rule set, each loose enough that the bench's transfers pass it (an approved transfer
 * still evaluates, reads and writes what each rule needs): `--after-rules all` of
 * bench/post-compare.mjs. The rules a build does not know are refused by it (400), so it is for a build
 * that has them all.
 */
export const ALL_RULES = {
  max_balance_per_holder: 1_000_000_000,
  max_holders: 1_000_000,
  lockup_until: '2020-01-01T00:00:00.000Z',
  max_transfer_amount: 1_000_000,
  daily_volume_per_holder: 1_000_000_000,
  min_holding: 1,
  transfer_windows: [
    { seconds: 60, max_volume: 1_000_000_000 },
    { seconds: 3600, max_volume: 1_000_000_000 },
    { seconds: 86_400, max_volume: 1_000_000_000 },
    { seconds: 2_592_000, max_volume: 1_000_000_000 },
  ],
  lockup_days_after_receipt: 30,
  max_supply: 1_000_000_000,
  // The rules that read identities (the owner and the approved recipient have one: postTarget).
  country_allow: ['US', 'SG'],
  country_deny: ['RU'],
  max_holders_per_country: { US: 1_000_000, SG: 1_000_000 },
  max_ownership_percent: 100,
  allowed_categories: ['retail', 'professional', 'accredited', 'qualified', 'institutional'],
}

/**
 * The rules a bench flag names: `none` (undefined), `all` (ALL_RULES), or a comma list of ALL_RULES'
 * names, set alone with ALL_RULES' values (`transfer_windows,min_holding`): what each rule costs.
 */
export function rulesNamed(flag, spec) {
  if (spec === 'none') return undefined
  if (spec === 'all') return ALL_RULES
  const names = spec.split(',').filter(Boolean)
  const unknown = names.filter((n) => !Object.hasOwn(ALL_RULES, n))
  if (names.length === 0 || unknown.length > 0)
    throw new Error(
      `${flag} is none, all or a comma list of ${Object.keys(ALL_RULES).join(', ')}; not ${unknown.join(', ') || spec}`,
    )
  return Object.fromEntries(names.map((n) => [n, ALL_RULES[n]]))
}

/**
 * `bin` (an rwa build) serving a fresh database in `work`, pinned to core 0 when taskset exists, with
 * `orgs` enterprise organizations seeded (`prefix-0`, ...), each token under `rules` when given, and
 * 200 POSTs of `kind` sent to warm it up. `nodeArgs` go to node before the binary (a profiler's flags).
 */
export async function postTarget({ name, bin, work, kind, prefix, orgs = 4, nodeArgs = [], rules }) {
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
    if (rules) {
      // The investors the identity rules read: the sender and the approved recipient (the rejected one
      // has none, and is refused by them as by its missing attestations).
      for (const [did, country] of [
        [org.owner, 'US'],
        [org.approvedRecipient, 'SG'],
      ]) {
        await call(server.url, 'POST', '/console/rwa/identities', {
          key: org.key,
          body: { dids: [did], country, category: 'accredited' },
        })
      }
      await call(server.url, 'PUT', `/console/rwa/tokens/${org.tokenId}/rules`, { key: org.key, body: rules })
    }
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
