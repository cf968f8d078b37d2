// Seeding the rwa server through its own API, the way a client would: organizations on the enterprise
// tier, each with its governance data (jurisdictions, trust, a credential, attestations, a token and a
// page of transfers).

/** How long one seeding call may take before the run is abandoned (a hung server must not hang the bench). */
const CALL_TIMEOUT_MS = 15_000

/** Calls the API; throws with the problem details unless the status is 2xx. */
export async function call(url, method, path, { key, body } = {}) {
  let response
  try {
    response = await fetch(url + path, {
      method,
      headers: {
        ...(key ? { 'x-api-key': key } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    })
  } catch (error) {
    throw new Error(`${method} ${path} failed: ${error.cause?.message ?? error.message}`)
  }
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  return text ? JSON.parse(text) : undefined
}

/** Runs `task(item)` for every item, at most `width` at a time. */
export async function eachLimited(items, width, task) {
  let next = 0
  const worker = async () => {
    while (next < items.length) await task(items[next++])
  }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker))
}

/** The two jurisdictions of every benchmark organization and what a transfer between them needs. */
export const SOURCE = 'BENCH-SRC'
export const TARGET = 'BENCH-DST'

/**
 * Creates organization `orgId` on the enterprise tier with one key (both calls made with the admin
 * key, as an operator would) and returns `{ orgId, key }`.
 */
export async function seedOrganization(url, adminKey, orgId) {
  const created = await call(url, 'POST', '/console/billing/keys', {
    key: adminKey,
    body: { org_id: orgId, name: 'bench' },
  })
  await call(url, 'POST', '/console/billing/subscription', {
    key: adminKey,
    body: { org_id: orgId, tier: 'enterprise' },
  })
  return { orgId, key: created.api_key }
}

/**
 * Gives `org` its governance data: a source jurisdiction requiring kyc and title verification, a target
 * requiring kyc and aml, trust from source to target, a credential in the source tokenized with
 * `supply` units, the attestations that let `approvedRecipient` receive (none for `rejectedRecipient`),
 * and `transfers` transfers alternating between the two recipients. Adds the ids to `org`.
 */
export async function seedGovernance(url, org, { supply, transfers }) {
  const as = (method, path, body) => call(url, method, path, { key: org.key, body })
  await as('POST', '/console/rwa/jurisdictions', {
    jurisdiction_id: SOURCE,
    name: 'Bench source',
    regulatory_body: 'Bench Authority',
    frameworks: ['MiCA'],
    transfer_requirements: ['kyc', 'title_verification'],
  })
  await as('POST', '/console/rwa/jurisdictions', {
    jurisdiction_id: TARGET,
    name: 'Bench target',
    regulatory_body: 'Bench Regulator',
    frameworks: ['SFA'],
    transfer_requirements: ['kyc', 'aml'],
  })
  await as('POST', '/console/rwa/jurisdictions/trust', { from_jurisdiction: SOURCE, to_jurisdiction: TARGET })
  const owner = `did:web:${org.orgId}:owner`
  const credential = await as('POST', '/console/rwa/credentials', {
    jurisdiction: SOURCE,
    owner_did: owner,
    property_data: propertyData(0),
  })
  const token = await as('POST', '/console/rwa/tokenize', {
    credential_id: credential.credential_id,
    total_supply: supply,
    symbol: 'BENCH',
  })
  org.tokenId = token.token_id
  org.owner = owner
  org.approvedRecipient = `did:web:${org.orgId}:alice`
  org.rejectedRecipient = `did:web:${org.orgId}:mallory`
  const attest = (type, subject, credentialId) =>
    as('POST', '/console/rwa/attestations', {
      jurisdiction: SOURCE,
      subject_did: subject,
      type,
      attester: 'Bench Checks Ltd',
      ...(credentialId ? { credential_id: credentialId } : {}),
    })
  await attest('title_verification', owner, credential.credential_id)
  await attest('kyc', org.approvedRecipient)
  await attest('aml', org.approvedRecipient)
  for (let i = 0; i < transfers; i++) await as('POST', '/console/rwa/transfers', transferBody(org, i))
}

/** The body of transfer number `i` of `org`: one unit, approved for even `i`, rejected for odd. */
export function transferBody(org, i) {
  return {
    token_id: org.tokenId,
    from_jurisdiction: SOURCE,
    to_jurisdiction: TARGET,
    recipient_did: i % 2 === 0 ? org.approvedRecipient : org.rejectedRecipient,
    amount: 1,
  }
}

/** Property data of about 150 bytes of JSON, varied by `i`. */
export function propertyData(i) {
  return {
    address: `${100 + (i % 900)} Benchmark Avenue, Suite ${i % 97}, Springfield`,
    type: i % 2 === 0 ? 'commercial' : 'residential',
    value_usd: 250_000 + (i % 1000) * 1_000,
    title_deed: `TD-BENCH-${String(i).padStart(8, '0')}`,
  }
}
