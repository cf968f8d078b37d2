import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DAY_MS } from '../../../server/platform/clock.js'
import type { OperationSpec } from '../../../src/contract/operation.js'
import { ROUTES } from '../../../src/contract/routes.js'
import { createHarness, type Harness } from '../../support/harness.js'
import {
  buildWorld,
  expectStatus,
  GOVERNANCE_LISTS,
  transferBody,
  type World,
} from '../../support/governance.js'

let h: Harness

/** An issuer by its did:key, trusted for kyc in US. */
const FOREIGN_ISSUER = {
  issuer_id: 'acme-kyc',
  name: 'Acme KYC',
  did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  requirements: { kyc: ['KYCCredential'] },
  jurisdictions: ['US'],
}
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('access to governance', () => {
  // Every operation's access is checked from the route table in test/server/http/route-table.test.ts;
  // here, what a refused organization reads.
  it('answers 403 plan_required on the free tier after the trial, saying how to get access', async () => {
    const org = await h.createOrg('lapsed', { trial: true })
    // During the trial the route is open.
    expect((await h.get('/console/rwa/tokens', { key: org.key })).status).toBe(200)
    h.clock.advance(14 * DAY_MS + 1)
    const res = await h.get('/console/rwa/tokens', { key: org.key })
    expect(res.status).toBe(403)
    expect(res.body).toMatchObject({
      code: 'plan_required',
      reason: 'plan_required',
      context: { org_id: 'lapsed', trial_ends_at: '2026-01-29T12:00:00.000Z' },
    })
    expect(res.body.detail).toBe(
      'Governance endpoints need the Pro or Enterprise tier or an active trial; organization lapsed is on the free tier. To get access, its trial ended at 2026-01-29T12:00:00.000Z; subscribe to Pro or Enterprise (see GET /console/billing/pricing)',
    )
    // Refused calls still count against the limits: the headers are there.
    expect(res.headers.get('ratelimit-limit')).toBe('60')
  })

  it('is open to Pro and Enterprise organizations and refused to a free one that never had a trial', async () => {
    const free = await h.createOrg('free-org')
    const refused = await h.get('/console/rwa/jurisdictions', { key: free.key })
    expect(refused.body.code).toBe('plan_required')
    expect(refused.body.detail).toContain(
      'To get access, start its 14-day trial (POST /console/billing/keys with start_trial: true) or subscribe to Pro or Enterprise',
    )
    const pro = await h.createOrg('pro-org', { tier: 'pro' })
    expect((await h.get('/console/rwa/jurisdictions', { key: pro.key })).status).toBe(200)
    const ent = await h.createOrg('ent-org', { tier: 'enterprise' })
    expect((await h.get('/console/rwa/jurisdictions', { key: ent.key })).status).toBe(200)
  })

  it('publishes the JWKS without a key', async () => {
    const res = await h.get('/console/rwa/.well-known/jwks.json', { key: null })
    expect(res.status).toBe(200)
    // The proof key and the log key (docs/governance.md, "The verifiable log").
    expect(res.body.keys).toHaveLength(2)
    for (const key of res.body.keys) {
      expect(key).toEqual({
        kty: 'OKP',
        crv: 'Ed25519',
        x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        kid: expect.any(String),
        alg: 'EdDSA',
        use: 'sig',
      })
      expect(key).not.toHaveProperty('d')
    }
    // The same key on every call.
    expect((await h.get('/console/rwa/.well-known/jwks.json', { key: null })).body).toEqual(res.body)
  })
})

describe('tenant isolation', () => {
  let a: World
  let ids: Record<string, string>
  let other: { key: string }

  beforeEach(async () => {
    a = await buildWorld(h) // the admin organization's own workspace
    const tx = await expectStatus(h.post('/console/rwa/transfers', transferBody(a.tokenId, 10)), 201)
    // A pending approval of the first organization (its policy covers forced transfers).
    await expectStatus(
      h.request('PUT', '/console/rwa/policy', { body: { require_approval: ['forced_transfer'] } }),
      200,
    )
    const approval = await expectStatus(
      h.post(`/console/rwa/tokens/${a.tokenId}/forced-transfer`, {
        from_did: 'did:web:acme:alice',
        from_jurisdiction: 'US',
        to_did: 'did:web:lion:bob',
        to_jurisdiction: 'US',
        amount: 1,
        reason: 'x',
      }),
      202,
    )
    // A trusted issuer of the first organization (a did:key: nothing to fetch).
    await expectStatus(h.post('/console/rwa/issuers', FOREIGN_ISSUER), 201)
    // An investor's identity of the first organization.
    await expectStatus(
      h.post('/console/rwa/identities', { identity_id: 'ivy', dids: ['did:web:acme:ivy'], country: 'US' }),
      201,
    )
    ids = {
      ':apr': approval.approval_id,
      ':cred': a.credentialId,
      ':att': a.attestations.kyc!,
      ':tok': a.tokenId,
      ':tx': tx.transfer_id,
      ':prf': tx.proof_id,
    }
    other = await h.createOrg('other', { trial: true })
  })

  const real = (path: string) => path.replace(/:(apr|cred|att|tok|tx|prf)/, (m) => ids[m]!)

  /** Requests of another organization that name the first one's ids or jurisdiction codes. */
  const foreign: Array<[label: string, method: string, path: string, body?: () => Record<string, unknown>]> =
    [
      ['getJurisdiction', 'GET', '/console/rwa/jurisdictions/US'],
      [
        'updateJurisdiction',
        'PUT',
        '/console/rwa/jurisdictions/US',
        () => ({ name: 'x', regulatory_body: 'y' }),
      ],
      ['removeJurisdiction', 'DELETE', '/console/rwa/jurisdictions/US'],
      [
        'establishTrust',
        'POST',
        '/console/rwa/jurisdictions/trust',
        () => ({ from_jurisdiction: 'US', to_jurisdiction: 'SG' }),
      ],
      [
        'revokeTrust',
        'DELETE',
        '/console/rwa/jurisdictions/trust',
        () => ({ from_jurisdiction: 'US', to_jurisdiction: 'SG' }),
      ],
      [
        'issueCredential',
        'POST',
        '/console/rwa/credentials',
        () => ({
          jurisdiction: 'US',
          owner_did: 'did:web:x:y',
          property_data: { address: 'a', type: 'b', value_usd: 1, title_deed: 'c' },
        }),
      ],
      ['getCredential', 'GET', '/console/rwa/credentials/:cred'],
      ['revokeCredential', 'POST', '/console/rwa/credentials/:cred/revoke'],
      ['suspendCredential', 'POST', '/console/rwa/credentials/:cred/suspend'],
      ['reinstateCredential', 'POST', '/console/rwa/credentials/:cred/reinstate'],
      [
        'submitAttestation',
        'POST',
        '/console/rwa/attestations',
        () => ({
          jurisdiction: 'US',
          subject_did: 'did:web:x:y',
          type: 'kyc',
          attester: 'x',
        }),
      ],
      ['getAttestation', 'GET', '/console/rwa/attestations/:att'],
      ['registerIssuer', 'POST', '/console/rwa/issuers', () => ({ ...FOREIGN_ISSUER, issuer_id: 'other' })],
      ['getIssuer', 'GET', '/console/rwa/issuers/acme-kyc'],
      ['updateIssuer', 'PATCH', '/console/rwa/issuers/acme-kyc', () => ({ status: 'suspended' })],
      ['removeIssuer', 'DELETE', '/console/rwa/issuers/acme-kyc'],
      ['refreshIssuer', 'POST', '/console/rwa/issuers/acme-kyc/refresh'],
      ['getIdentity', 'GET', '/console/rwa/identities/ivy'],
      ['updateIdentity', 'PATCH', '/console/rwa/identities/ivy', () => ({ country: 'FR' })],
      ['changeIdentityDids', 'POST', '/console/rwa/identities/ivy/dids', () => ({ add: ['did:web:q:r'] })],
      ['listHolders', 'GET', '/console/rwa/tokens/:tok/holders'],
      ['revokeAttestation', 'POST', '/console/rwa/attestations/:att/revoke'],
      ['suspendAttestation', 'POST', '/console/rwa/attestations/:att/suspend'],
      ['reinstateAttestation', 'POST', '/console/rwa/attestations/:att/reinstate'],
      ['tokenize', 'POST', '/console/rwa/tokenize', () => ({ credential_id: ids[':cred'], total_supply: 1 })],
      ['getToken', 'GET', '/console/rwa/tokens/:tok'],
      ['requestTransfer', 'POST', '/console/rwa/transfers', () => transferBody(ids[':tok']!, 1)],
      ['getTransfer', 'GET', '/console/rwa/transfers/:tx'],
      ['getProof', 'GET', '/console/rwa/proofs/:prf'],
      ['getTokenHistory', 'GET', '/console/rwa/tokens/:tok/history'],
      ['listHoldings', 'GET', '/console/rwa/tokens/:tok/holdings'],
      ['listFrozenHolders', 'GET', '/console/rwa/tokens/:tok/frozen-holders'],
      ['setTokenRules', 'PUT', '/console/rwa/tokens/:tok/rules', () => ({ max_transfer_amount: 1 })],
      ['pauseToken', 'POST', '/console/rwa/tokens/:tok/pause'],
      ['unpauseToken', 'POST', '/console/rwa/tokens/:tok/unpause'],
      [
        'freezeHolder',
        'POST',
        '/console/rwa/tokens/:tok/freeze',
        () => ({ holder_did: 'did:web:acme:alice' }),
      ],
      [
        'unfreezeHolder',
        'POST',
        '/console/rwa/tokens/:tok/unfreeze',
        () => ({ holder_did: 'did:web:acme:alice' }),
      ],
      [
        'forcedTransfer',
        'POST',
        '/console/rwa/tokens/:tok/forced-transfer',
        () => ({
          from_did: 'did:web:acme:alice',
          from_jurisdiction: 'US',
          to_did: 'did:web:lion:bob',
          to_jurisdiction: 'SG',
          amount: 1,
          reason: 'x',
        }),
      ],
      [
        'mintTokens',
        'POST',
        '/console/rwa/tokens/:tok/mint',
        () => ({ to_did: 'did:web:lion:bob', jurisdiction: 'SG', amount: 1, reason: 'x' }),
      ],
      [
        'burnTokens',
        'POST',
        '/console/rwa/tokens/:tok/burn',
        () => ({ from_did: 'did:web:acme:alice', jurisdiction: 'US', amount: 1, reason: 'x' }),
      ],
      [
        'recoverIdentity',
        'POST',
        '/console/rwa/tokens/:tok/recover',
        () => ({ lost_did: 'did:web:acme:alice', new_did: 'did:web:lion:bob', reason: 'x' }),
      ],
      ['getApproval', 'GET', '/console/rwa/approvals/:apr'],
      ['approveApproval', 'POST', '/console/rwa/approvals/:apr/approve'],
      ['rejectApproval', 'POST', '/console/rwa/approvals/:apr/reject', () => ({})],
      [
        'canTransfer',
        'GET',
        '/console/rwa/tokens/:tok/can-transfer?from_jurisdiction=US&to_jurisdiction=SG&recipient_did=did:web:lion:bob&amount=1',
      ],
    ]

  it('covers every governance operation that names a record of the organization', () => {
    // An operation with an `{id}` in its path, or a body naming a jurisdiction or a record, must be here.
    const named = new Set(foreign.map(([label]) => label))
    // Registering names a new jurisdiction code, a policy is the caller's, and an identity's DIDs are
    // the creating organization's own business (test/server/rwa/identities/): each organization's own.
    const expected = (Object.values(ROUTES) as OperationSpec[])
      .filter((operation) => operation.access === 'governance')
      .filter((operation) => operation.path.includes('{id}') || operation.body !== undefined)
      .map((operation) => operation.operationId)
      .filter((id) => id !== 'registerJurisdiction' && id !== 'setApprovalPolicy' && id !== 'createIdentity')
      // A batch's operations are the single ones, refused as they are (test/server/rwa/batch/).
      .filter((id) => id !== 'batch')
    expect([...named].sort()).toEqual(expected.sort())
  })

  it.each(foreign)("another organization's %s is 404", async (_label, method, path, body) => {
    const res = await h.request(method, real(path), { key: other.key, body: body?.() })
    expect(res.status).toBe(404)
    expect(res.body.reason).toMatch(
      /^(jurisdiction|credential|attestation|issuer|identity|token|transfer|proof|trust|approval)_not_found$/,
    )
    // Nothing of the owner's changed: its token is as it was (no pause, freeze, rules or move).
    const token = await expectStatus(h.get(real('/console/rwa/tokens/:tok')), 200)
    expect(token.status).toBe('active')
    expect(token.frozen_holders).toEqual([])
    expect(token.rules.max_transfer_amount).toBeNull()
    // The owner still sees it, unchanged.
    if (method === 'GET') expect((await h.get(real(path))).status).toBe(200)
  })

  it('also 404s an attestation naming another organization’s credential, even with its own jurisdiction', async () => {
    await expectStatus(
      h.post(
        '/console/rwa/jurisdictions',
        { jurisdiction_id: 'US', name: 'US', regulatory_body: 'SEC' },
        { key: other.key },
      ),
      201,
    )
    const res = await h.post(
      '/console/rwa/attestations',
      {
        jurisdiction: 'US',
        subject_did: 'did:web:x:y',
        type: 'title_verification',
        attester: 'x',
        credential_id: a.credentialId,
      },
      { key: other.key },
    )
    expect(res.status).toBe(404)
    // Same code US in both organizations, different keys.
    const mine = await expectStatus(h.get('/console/rwa/jurisdictions/US', { key: other.key }), 200)
    const theirs = await expectStatus(h.get('/console/rwa/jurisdictions/US'), 200)
    expect(mine.issuer_did).not.toBe(theirs.issuer_did)
  })

  it('never shows a private key: no stored private key appears in any governance response', async () => {
    const stored = [
      ...(await h.ctx.db.selectFrom('jurisdictions').select('private_key').execute()).map(
        (r) => r.private_key,
      ),
      ...(await h.ctx.db.selectFrom('rwa_service_keys').select('private_key').execute()).map(
        (r) => r.private_key,
      ),
    ]
    // Two jurisdictions' keys, the proof key and the log key (both made at start).
    expect(stored.length).toBe(4)
    const paths = [
      '/console/rwa/jurisdictions',
      '/console/rwa/jurisdictions/US',
      '/console/rwa/jurisdictions/trust',
      '/console/rwa/credentials',
      '/console/rwa/attestations',
      '/console/rwa/tokens',
      '/console/rwa/transfers',
      '/console/rwa/.well-known/jwks.json',
      ...['/console/rwa/credentials/:cred', '/console/rwa/attestations/:att', '/console/rwa/tokens/:tok'].map(
        real,
      ),
      ...['/console/rwa/transfers/:tx', '/console/rwa/proofs/:prf'].map(real),
    ]
    for (const path of paths) {
      const res = await h.get(path)
      expect(res.status, path).toBe(200)
      for (const secret of stored) {
        expect(res.text).not.toContain(secret)
        // The raw 32-byte seed sits at the end of the PKCS#8 DER: check its base64url form too.
        expect(res.text).not.toContain(Buffer.from(secret, 'base64').subarray(-32).toString('base64url'))
      }
    }
  })

  it.each(GOVERNANCE_LISTS)('%s lists only the caller’s own records', async (path, plural) => {
    expect(await expectStatus(h.get(path, { key: other.key }), 200)).toEqual({
      [plural]: [],
      total: 0,
      next_cursor: null,
    })
    const own = await expectStatus(h.get(path), 200)
    expect(own.total).toBeGreaterThan(0)
    expect(own[plural]).toHaveLength(own.total)
  })
})
