import { buildWorld, expectStatus, OWNER, RECIPIENT, SG, transferBody, US } from './governance.js'
import type { ApiCaller } from './harness.js'
import { TestIssuer } from './test-issuer.js'

/** The path of each record an event can be about, to compare `data.object` with what GET answers. */
export const RECORD_PATHS: Record<string, (id: string) => string> = {
  transfer: (id) => `/console/rwa/transfers/${id}`,
  credential: (id) => `/console/rwa/credentials/${id}`,
  attestation: (id) => `/console/rwa/attestations/${id}`,
  token: (id) => `/console/rwa/tokens/${id}`,
  jurisdiction: (id) => `/console/rwa/jurisdictions/${id}`,
  issuer: (id) => `/console/rwa/issuers/${id}`,
  identity: (id) => `/console/rwa/identities/${id}`,
}

/**
 * Makes, with `key` (an owner of a pro organization), one change of every event type a write can
 * cause: the world of buildWorld (jurisdictions, trust, a credential, attestations, a token), an
 * approved, a rejected and a forced transfer, pause and unpause, freeze and unfreeze, new rules, a
 * recovery, an update and a removal of a jurisdiction, an attestation and a credential suspended,
 * reinstated and revoked, trust revoked, a
 * key created, rerolled and revoked, (with the admin key) the subscription updated, and a trusted
 * issuer registered, updated, suspended, its keys changed and removed (the harness allows http issuers),
 * an identity created, updated and its DIDs changed, and units minted and burned.
 */
export async function exerciseEveryChange(h: ApiCaller, orgId: string, key: string): Promise<void> {
  const opts = { key }
  const world = await buildWorld(h, key)
  const tokenPath = `/console/rwa/tokens/${world.tokenId}`
  await expectStatus(h.post('/console/rwa/transfers', transferBody(world.tokenId, 10), opts), 201)
  // No attestations for this recipient: rejected, and recorded.
  await expectStatus(
    h.post(
      '/console/rwa/transfers',
      transferBody(world.tokenId, 10, { recipient_did: 'did:web:x:nobody' }),
      opts,
    ),
    201,
  )
  await expectStatus(
    h.post(
      `${tokenPath}/forced-transfer`,
      {
        from_did: OWNER,
        from_jurisdiction: 'US',
        to_did: RECIPIENT,
        to_jurisdiction: 'US',
        amount: 5,
        reason: 'court order 1',
      },
      opts,
    ),
    201,
  )
  await expectStatus(h.post(`${tokenPath}/pause`, { reason: 'audit' }, opts), 200)
  await expectStatus(h.post(`${tokenPath}/unpause`, {}, opts), 200)
  await expectStatus(h.post(`${tokenPath}/freeze`, { holder_did: RECIPIENT }, opts), 200)
  await expectStatus(h.post(`${tokenPath}/unfreeze`, { holder_did: RECIPIENT }, opts), 200)
  await expectStatus(h.request('PUT', `${tokenPath}/rules`, { key, body: { max_holders: 50 } }), 200)
  // Supply moved both ways: units minted to the owner, then some burned.
  await expectStatus(
    h.post(`${tokenPath}/mint`, { to_did: OWNER, jurisdiction: 'US', amount: 20, reason: 'round 2' }, opts),
    201,
  )
  await expectStatus(
    h.post(`${tokenPath}/burn`, { from_did: OWNER, jurisdiction: 'US', amount: 5, reason: 'redemption' }, opts),
    201,
  )
  await expectStatus(
    h.post(
      '/console/rwa/attestations',
      { jurisdiction: 'US', subject_did: 'did:web:lion:bob2', type: 'kyc', attester: 'Acme KYC Ltd' },
      opts,
    ),
    201,
  )
  await expectStatus(
    h.post(
      `${tokenPath}/recover`,
      { lost_did: RECIPIENT, new_did: 'did:web:lion:bob2', reason: 'lost wallet' },
      opts,
    ),
    200,
  )
  const { jurisdiction_id: _, ...usFields } = US
  await expectStatus(
    h.request('PUT', '/console/rwa/jurisdictions/US', {
      key,
      body: { ...usFields, name: 'United States of America' },
    }),
    200,
  )
  await expectStatus(
    h.post('/console/rwa/jurisdictions', { ...SG, jurisdiction_id: 'XX', name: 'Gone' }, opts),
    201,
  )
  await expectStatus(h.request('DELETE', '/console/rwa/jurisdictions/XX', { key }), 200)
  for (const path of [
    `/console/rwa/attestations/${world.attestations.aml}`,
    `/console/rwa/credentials/${world.credentialId}`,
  ]) {
    await expectStatus(h.post(`${path}/suspend`, { reason: 'under review' }, opts), 200)
    await expectStatus(h.post(`${path}/reinstate`, {}, opts), 200)
  }
  await expectStatus(
    h.post(`/console/rwa/attestations/${world.attestations.aml}/revoke`, { reason: 'stale' }, opts),
    200,
  )
  await expectStatus(
    h.post(`/console/rwa/credentials/${world.credentialId}/revoke`, { reason: 'sold' }, opts),
    200,
  )
  await expectStatus(
    h.request('DELETE', '/console/rwa/jurisdictions/trust', {
      key,
      body: { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
    }),
    200,
  )
  const second = await expectStatus(h.post('/console/billing/keys', { name: 'ci' }, opts), 201)
  const rerolled = await expectStatus(h.post(`/console/billing/keys/${second.key_id}/reroll`, {}, opts), 201)
  await expectStatus(h.request('DELETE', `/console/billing/keys/${rerolled.key_id}`, { key }), 200)
  await expectStatus(h.post('/console/billing/subscription', { org_id: orgId, tier: 'enterprise' }), 200)
  await exerciseIssuer(h, key)
  // An investor's identity created, changed and its DIDs changed.
  const identity = await expectStatus(
    h.post('/console/rwa/identities', { dids: ['did:web:acme:ivy'], country: 'US' }, opts),
    201,
  )
  const identityPath = `/console/rwa/identities/${identity.identity_id}`
  await expectStatus(h.request('PATCH', identityPath, { key, body: { category: 'retail' } }), 200)
  await expectStatus(h.post(`${identityPath}/dids`, { add: ['did:web:acme:ivy-cold'] }, opts), 200)
}

/**
 * A trusted issuer registered, updated, suspended, its keys changed (a did:web on loopback that
 * rotates its key: the harness runs with `allowHttpIssuers`) and removed.
 */
async function exerciseIssuer(h: ApiCaller, key: string): Promise<void> {
  const provider = await TestIssuer.start()
  try {
    const path = '/console/rwa/issuers/acme-kyc'
    const body = {
      issuer_id: 'acme-kyc',
      name: 'Acme KYC',
      did: provider.did,
      requirements: { kyc: ['KYCCredential'] },
      jurisdictions: ['US'],
    }
    await expectStatus(h.post('/console/rwa/issuers', body, { key }), 201)
    await expectStatus(h.request('PATCH', path, { key, body: { name: 'Acme' } }), 200)
    await expectStatus(h.request('PATCH', path, { key, body: { status: 'suspended' } }), 200)
    provider.rotateKey()
    await expectStatus(h.post(`${path}/refresh`, {}, { key }), 200)
    await expectStatus(h.request('DELETE', path, { key }), 200)
  } finally {
    await provider.stop()
  }
}
