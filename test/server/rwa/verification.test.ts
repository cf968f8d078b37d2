import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { trustBundleSchema } from '../../../src/contract/rwa.js'
import { decodeStatusList, statusBit } from '../../../src/proof/status-list.js'
import { decodeJwt } from 'jose'
import { createHarness, type Harness } from '../../support/harness.js'
import {
  buildWorld,
  expectStatus,
  historyEvents,
  OWNER,
  PROPERTY,
  RECIPIENT,
  SG,
  transferBody,
  US,
} from '../../support/governance.js'

/*
 * docs/verification.md on the server: the trust bundle, title-deed uniqueness and attestation revocation.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const issue = (titleDeed: string, extra: Record<string, unknown> = {}, key = h.adminKey) =>
  h.post(
    '/console/rwa/credentials',
    {
      jurisdiction: 'US',
      owner_did: OWNER,
      property_data: { ...PROPERTY, title_deed: titleDeed },
      ...extra,
    },
    { key },
  )

async function bitOf(url: string, index: number): Promise<boolean> {
  const res = await h.get(url.slice(url.indexOf('/console/')), { key: null })
  expect(res.status).toBe(200)
  const list = decodeJwt(res.text) as { credentialSubject: { encodedList: string } }
  return statusBit(decodeStatusList(list.credentialSubject.encodedList), index)
}

describe('GET /console/rwa/trust-bundle', () => {
  it("names the organization, its proof keys with their validity and every jurisdiction's issuer", async () => {
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    await expectStatus(h.post('/console/rwa/jurisdictions', SG), 201)
    const bundle = trustBundleSchema.parse(await expectStatus(h.get('/console/rwa/trust-bundle'), 200))
    const jwks = await expectStatus(h.get('/console/rwa/.well-known/jwks.json', { key: null }), 200)
    const us = await expectStatus(h.get('/console/rwa/jurisdictions/US'), 200)
    const sg = await expectStatus(h.get('/console/rwa/jurisdictions/SG'), 200)
    expect(bundle).toEqual({
      org_id: 'admin',
      generated_at: new Date(h.clock.now()).toISOString(),
      proof_keys: {
        // The JWKS's keys but the log key (which signs checkpoints, not proofs).
        keys: jwks.keys
          .filter((key: { kid: string }) => key.kid !== bundle.log_key?.kid)
          .map((key: object) => ({
            ...key,
            valid_from: expect.any(String),
            valid_until: null,
          })),
      },
      issuers: [
        { jurisdiction_id: 'SG', issuer_did: sg.issuer_did, valid_from: sg.created_at, valid_until: null },
        { jurisdiction_id: 'US', issuer_did: us.issuer_did, valid_from: us.created_at, valid_until: null },
      ],
      log_key: {
        kid: expect.any(String),
        vkey: expect.stringMatching(/^[^+\s]+\/console\/audit\/admin\+[0-9a-f]{8}\+A[A-Za-z0-9+/]{43}$/),
      },
      // No trusted issuer registered (test/server/rwa/issuers/trust-bundle.test.ts lists them).
      external_issuers: [],
    })
    expect(bundle.proof_keys.keys).toHaveLength(1)
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(bundle.log_key?.kid)
  })

  it("lists only the caller's organization's issuers, for any key of it (no plan needed)", async () => {
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    const other = await h.createOrg('lion', { trial: true })
    await expectStatus(h.post('/console/rwa/jurisdictions', SG, { key: other.key }), 201)
    const free = await h.createOrg('free')
    const theirs = await expectStatus(h.get('/console/rwa/trust-bundle', { key: other.key }), 200)
    expect(theirs.org_id).toBe('lion')
    expect(theirs.issuers.map((i: { jurisdiction_id: string }) => i.jurisdiction_id)).toEqual(['SG'])
    const empty = await expectStatus(h.get('/console/rwa/trust-bundle', { key: free.key }), 200)
    expect(empty).toMatchObject({ org_id: 'free', issuers: [] })
    expect((await h.get('/console/rwa/trust-bundle', { key: null })).status).toBe(401)
  })
})

describe('title-deed uniqueness', () => {
  beforeEach(async () => {
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    await expectStatus(h.post('/console/rwa/jurisdictions', SG), 201)
  })

  it('refuses a second active credential of the same deed (trimmed, any case) with 409 naming the first', async () => {
    const first = await expectStatus(issue('SF-2026-000123'), 201)
    for (const variant of ['SF-2026-000123', '  sf-2026-000123 ', 'Sf-2026-000123\t']) {
      const res = await issue(variant, { owner_did: 'did:web:acme:mallory' })
      expect(res.status, variant).toBe(409)
      expect(res.body).toMatchObject({
        code: 'conflict',
        reason: 'title_deed_in_use',
        context: { credential_id: first.credential_id, jurisdiction: 'US', title_deed: variant.trim() },
        errors: [{ path: 'property_data.title_deed' }],
      })
      expect(res.body.detail).toContain(first.credential_id)
    }
    // Nothing of the refused issues was recorded.
    const list = await expectStatus(h.get('/console/rwa/credentials'), 200)
    expect(list.total).toBe(1)
  })

  it('counts per jurisdiction and per organization; a revoked credential does not count', async () => {
    const first = await expectStatus(issue('SF-1'), 201)
    await expectStatus(issue('SF-1', { jurisdiction: 'SG' }), 201)
    const other = await h.createOrg('lion', { trial: true })
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: other.key }), 201)
    await expectStatus(issue('SF-1', {}, other.key), 201)
    await expectStatus(h.post(`/console/rwa/credentials/${first.credential_id}/revoke`), 200)
    const again = await expectStatus(issue('sf-1'), 201)
    expect((await issue('SF-1')).body.context.credential_id).toBe(again.credential_id)
  })

  it('of concurrent issues of one deed through two instances, one is 201 and the others 409', async () => {
    const other = await h.newInstance()
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? h : other).post('/console/rwa/credentials', {
          jurisdiction: 'US',
          owner_did: `did:web:acme:owner${i}`,
          property_data: { ...PROPERTY, title_deed: i % 2 === 0 ? 'SF-9' : ' sf-9' },
        }),
      ),
    )
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409])
    const created = responses.find((r) => r.status === 201)!.body
    for (const r of responses.filter((x) => x.status === 409)) {
      expect(r.body).toMatchObject({
        reason: 'title_deed_in_use',
        context: { credential_id: created.credential_id },
      })
    }
    const list = await expectStatus(h.get('/console/rwa/credentials'), 200)
    expect(list.total).toBe(1)
  })
})

describe('POST /console/rwa/attestations/{id}/revoke', () => {
  it('revokes with a reason and its status bit in one go; a second revoke is 409; 404 for an unknown id', async () => {
    const w = await buildWorld(h)
    const id = w.attestations.kyc!
    const before = await expectStatus(h.get(`/console/rwa/attestations/${id}`), 200)
    expect(before).toMatchObject({ status: 'active', revoked_at: null, revocation_reason: null })
    const { statusListCredential: url, statusListIndex } = before.credential_status[0]
    expect(await bitOf(url, Number(statusListIndex))).toBe(false)

    h.clock.advance(60_000)
    const revoked = await expectStatus(
      h.post(`/console/rwa/attestations/${id}/revoke`, { reason: 'the KYC check was forged' }),
      200,
    )
    expect(revoked).toEqual({
      ...before,
      status: 'revoked',
      revoked_at: new Date(h.clock.now()).toISOString(),
      revocation_reason: 'the KYC check was forged',
    })
    expect(await expectStatus(h.get(`/console/rwa/attestations/${id}`), 200)).toEqual(revoked)
    expect(await bitOf(url, Number(statusListIndex))).toBe(true)

    const again = await h.post(`/console/rwa/attestations/${id}/revoke`, {})
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({
      reason: 'attestation_already_revoked',
      context: { attestation_id: id, revoked_at: revoked.revoked_at },
    })
    expect((await h.post('/console/rwa/attestations/att_nope/revoke', {})).status).toBe(404)
    // The body is optional.
    const aml = await expectStatus(h.post(`/console/rwa/attestations/${w.attestations.aml}/revoke`), 200)
    expect(aml.revocation_reason).toBeNull()
  })

  it('a transfer that relied on it fails that check afterwards, saying it was revoked', async () => {
    const w = await buildWorld(h)
    const ok = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 10)), 201)
    expect(ok.status).toBe('approved')
    expect(ok.compliance_details.checks).toContainEqual(
      expect.objectContaining({ requirement: 'kyc', satisfied: true, evidence: w.attestations.kyc }),
    )
    await expectStatus(h.post(`/console/rwa/attestations/${w.attestations.kyc}/revoke`, {}), 200)
    const no = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 10)), 201)
    expect(no.status).toBe('rejected')
    const kyc = no.compliance_details.checks.find((c: { requirement: string }) => c.requirement === 'kyc')
    expect(kyc).toMatchObject({ satisfied: false, evidence: null })
    expect(kyc.reason).toContain(`${w.attestations.kyc} of recipient ${RECIPIENT} was revoked at`)
    // A new attestation meets it again.
    await expectStatus(
      h.post('/console/rwa/attestations', {
        jurisdiction: 'US',
        subject_did: RECIPIENT,
        type: 'kyc',
        attester: 'Acme KYC Ltd',
      }),
      201,
    )
    const again = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 10)), 201)
    expect(again.status).toBe('approved')
  })

  it("a revoked title verification is in its token's history, and the title check fails", async () => {
    const w = await buildWorld(h)
    await expectStatus(
      h.post(`/console/rwa/attestations/${w.attestations.title_verification}/revoke`, { reason: 'bad deed' }),
      200,
    )
    expect((await historyEvents(h, w.tokenId)).at(-1)).toBe('attestation_revoked')
    const history = await expectStatus(
      h.get(`/console/rwa/tokens/${w.tokenId}/history`, { query: { limit: 500 } }),
      200,
    )
    expect(history.governance_history.at(-1)).toMatchObject({
      event: 'attestation_revoked',
      details: {
        attestation_id: w.attestations.title_verification,
        type: 'title_verification',
        credential_id: w.credentialId,
        reason: 'bad deed',
      },
    })
    const check = await expectStatus(
      h.get(`/console/rwa/tokens/${w.tokenId}/can-transfer`, {
        query: {
          from_jurisdiction: 'US',
          to_jurisdiction: 'SG',
          recipient_did: RECIPIENT,
          amount: '1',
        },
      }),
      200,
    )
    expect(check.allowed).toBe(false)
  })
})
