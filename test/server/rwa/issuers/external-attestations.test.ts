import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { externalAttestationSchema } from '../../../../src/contract/rwa.js'
import { expectStatus, US } from '../../../support/governance.js'
import { createHarness, type Harness } from '../../../support/harness.js'
import { ed25519Pair, TestIssuer } from '../../../support/test-issuer.js'

/*
 * A trusted issuer's credential submitted as an attestation (docs/issuers.md, "Verification"): verified
 * on submission, each refusal reason produced by a crafted credential of a real did:web provider on
 * loopback, the record kept verbatim, and read, listed and evented like the organization's own.
 */

const ATTESTATIONS = '/console/rwa/attestations'
const BOB = 'did:web:lion:bob'
const DAY = 24 * 3600 * 1000
let h: Harness
let provider: TestIssuer

beforeEach(async () => {
  h = await createHarness({ allowHttpIssuers: true })
  provider = await TestIssuer.start({ now: () => new Date(h.clock.now()) })
  await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
  await expectStatus(
    h.post('/console/rwa/issuers', {
      issuer_id: 'acme-kyc',
      name: 'Acme KYC',
      did: provider.did,
      requirements: { kyc: ['KYCCredential'], aml: ['AMLCredential'] },
      jurisdictions: ['US'],
    }),
    201,
  )
})
afterEach(async () => {
  await provider.stop()
  await h.close()
})

const issue = (options: Partial<Parameters<TestIssuer['issue']>[0]> = {}) =>
  provider.issue({ subject: BOB, status: ['revocation', 'suspension'], ...options })

/** Submits a VC-JWT and expects the refusal's reason. */
async function refusal(vcJwt: string): Promise<{ reason: string; detail: string }> {
  const res = await h.post(ATTESTATIONS, { vc_jwt: vcJwt })
  expect(res.status, res.text).toBe(422)
  expect(res.body.reason).toBe('credential_refused')
  return { reason: res.body.context.reason, detail: res.body.detail }
}

describe('POST /console/rwa/attestations { vc_jwt }', () => {
  it('records a trusted issuer’s credential verbatim, read, listed and evented like any attestation', async () => {
    const own = await expectStatus(
      h.post(ATTESTATIONS, { jurisdiction: 'US', subject_did: BOB, type: 'aml', attester: 'Acme' }),
      201,
    )
    expect(own.source).toBe('self')
    const { vc_jwt, index } = await issue()
    const attestation = await expectStatus(h.post(ATTESTATIONS, { vc_jwt }), 201)
    expect(externalAttestationSchema.parse(attestation)).toEqual({
      attestation_id: expect.stringMatching(/^att_/),
      source: 'external',
      issuer_id: 'acme-kyc',
      issuer_did: provider.did,
      subject_did: BOB,
      type: 'kyc',
      vc_types: ['VerifiableCredential', 'KYCCredential'],
      vc_jwt,
      vc_sha256: createHash('sha256').update(vc_jwt).digest('hex'),
      valid_from: '2026-01-15T12:00:00.000Z',
      valid_until: '2026-02-14T12:00:00.000Z',
      credential_status: [
        provider.statusEntry('revocation', index),
        provider.statusEntry('suspension', index),
      ],
      status: 'active',
      submitted_at: '2026-01-15T12:00:00.000Z',
      jurisdiction: null,
    })
    expect(provider.count('/status/revocation')).toBe(1)
    expect(provider.count('/status/suspension')).toBe(1)
    expect(await expectStatus(h.get(`${ATTESTATIONS}/${attestation.attestation_id}`), 200)).toEqual(
      attestation,
    )
    const list = await expectStatus(h.get(ATTESTATIONS), 200)
    expect(list.attestations.map((a: any) => a.attestation_id)).toEqual([
      attestation.attestation_id,
      own.attestation_id,
    ])
    expect(list.total).toBe(2)
    const bySubject = await expectStatus(
      h.get(ATTESTATIONS, { query: { subject_did: BOB, type: 'kyc' } }),
      200,
    )
    expect(bySubject.attestations).toEqual([attestation])
    const inUs = await expectStatus(h.get(ATTESTATIONS, { query: { jurisdiction: 'US' } }), 200)
    expect(inUs.attestations.map((a: any) => a.attestation_id)).toEqual([own.attestation_id])
    const events = await expectStatus(
      h.get('/console/events', { query: { type: 'attestation.submitted' } }),
      200,
    )
    expect(events.events[0].data.object).toEqual(attestation)
    const audit = await expectStatus(
      h.get('/console/audit', { query: { target_id: attestation.attestation_id } }),
      200,
    )
    expect(audit.events[0]).toMatchObject({
      action: 'attestation.submitted',
      changes: { after: { source: 'external', issuer_id: 'acme-kyc', type: 'kyc' } },
    })
  })

  it('pages the two kinds together, newest first', async () => {
    const ids: string[] = []
    for (let i = 0; i < 3; i++) {
      ids.push(
        (
          await expectStatus(
            h.post(ATTESTATIONS, { jurisdiction: 'US', subject_did: BOB, type: 'aml', attester: 'A' }),
            201,
          )
        ).attestation_id,
      )
      ids.push(
        (await expectStatus(h.post(ATTESTATIONS, { vc_jwt: (await issue()).vc_jwt }), 201)).attestation_id,
      )
    }
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await expectStatus(
        h.get(ATTESTATIONS, { query: { limit: 4, ...(cursor ? { cursor } : {}) } }),
        200,
      )
      expect(page.total).toBe(6)
      seen.push(...page.attestations.map((a: any) => a.attestation_id))
      cursor = page.next_cursor ?? undefined
    } while (cursor)
    expect(seen).toEqual([...ids].reverse())
  })

  it('refuses each way a credential can fail, naming the reason', async () => {
    const other = ed25519Pair()
    const forged = await issue({ key: { privateKey: other.privateKey, kid: provider.currentKey.kid } })
    expect((await refusal(forged.vc_jwt)).reason).toBe('signature_invalid')

    const { vc_jwt } = await issue()
    const [head, payload, signature] = vc_jwt.split('.')
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
    claims.credentialSubject.id = 'did:web:mallory'
    const edited = [head, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.')
    expect((await refusal(edited)).reason).toBe('signature_invalid')

    expect((await refusal((await issue({ claims: { iss: 'did:web:evil.example' } })).vc_jwt)).reason).toBe(
      'issuer_not_trusted',
    )
    expect((await refusal((await issue({ types: ['AccreditedInvestor'] })).vc_jwt)).reason).toBe(
      'issuer_not_trusted_for_type',
    )
    const later = await issue({ validFrom: new Date(h.clock.now() + DAY) })
    expect(await refusal(later.vc_jwt)).toEqual({
      reason: 'credential_not_yet_valid',
      detail:
        'The credential is refused (credential_not_yet_valid): valid only from 2026-01-16T12:00:00.000Z',
    })
    const expired = await issue({
      validFrom: new Date(h.clock.now() - 10 * DAY),
      validUntil: new Date(h.clock.now() - DAY),
    })
    expect((await refusal(expired.vc_jwt)).reason).toBe('credential_expired')

    const revoked = await issue()
    provider.revoke(revoked.index)
    expect((await refusal(revoked.vc_jwt)).reason).toBe('credential_revoked')
    const suspended = await issue()
    provider.suspend(suspended.index)
    expect((await refusal(suspended.vc_jwt)).reason).toBe('credential_suspended')

    provider.unreachable = true
    const unknown = await refusal(vc_jwt)
    expect(unknown.reason).toBe('status_unavailable')
    expect(unknown.detail).toContain('unknown')
    provider.unreachable = false

    await expectStatus(
      h.request('PATCH', '/console/rwa/issuers/acme-kyc', { body: { status: 'suspended' } }),
      200,
    )
    expect((await refusal(vc_jwt)).reason).toBe('issuer_suspended')
    await expectStatus(h.request('DELETE', '/console/rwa/issuers/acme-kyc'), 200)
    expect((await refusal(vc_jwt)).reason).toBe('issuer_not_trusted')
    // Nothing was recorded.
    expect((await expectStatus(h.get(ATTESTATIONS), 200)).total).toBe(0)
  })

  it('accepts a rotated key once refreshed, and still the credentials of the retired one', async () => {
    const before = await issue()
    h.clock.advance(60_000)
    const rotated = provider.rotateKey()
    const signedByNew = await issue()
    expect((await refusal(signedByNew.vc_jwt)).reason).toBe('signature_invalid')
    await expectStatus(h.post('/console/rwa/issuers/acme-kyc/refresh'), 200)
    expect((await expectStatus(h.post(ATTESTATIONS, { vc_jwt: signedByNew.vc_jwt }), 201)).issuer_id).toBe(
      'acme-kyc',
    )
    // Signed before key-1 was retired: still verifies; its status lists are signed by key-2 now.
    expect(rotated.kid).toBe(`${provider.did}#key-2`)
    await expectStatus(h.post(ATTESTATIONS, { vc_jwt: before.vc_jwt }), 201)
  })

  it('is batched: an issuer registered and its credential submitted in one atomic batch', async () => {
    const other = await TestIssuer.start({ now: () => new Date(h.clock.now()) })
    try {
      const { vc_jwt } = await other.issue({ subject: BOB, types: ['AMLCredential'] })
      const batch = await expectStatus(
        h.post('/console/rwa/batch', {
          operations: [
            {
              op: 'issuers.register',
              ref: 'aml',
              body: {
                issuer_id: 'lion-aml',
                name: 'Lion AML',
                did: other.did,
                requirements: { aml: ['AMLCredential'] },
                jurisdictions: ['US'],
              },
            },
            { op: 'attestations.submit', body: { vc_jwt } },
          ],
        }),
        200,
      )
      expect(batch.results.map((r: any) => r.status)).toEqual([201, 201])
      expect(batch.results[1].body).toMatchObject({ source: 'external', issuer_id: 'lion-aml', type: 'aml' })
      // All or nothing: a refused credential leaves no issuer behind.
      const refused = await h.post('/console/rwa/batch', {
        operations: [
          {
            op: 'issuers.register',
            body: {
              issuer_id: 'lion-2',
              name: 'L',
              did: other.did,
              requirements: { kyc: ['KYCCredential'] },
              jurisdictions: ['US'],
            },
          },
          {
            op: 'attestations.submit',
            body: { vc_jwt: (await other.issue({ subject: BOB, types: ['Other'] })).vc_jwt },
          },
        ],
      })
      expect(refused.status).toBe(422)
      expect(refused.body.operation_problem).toMatchObject({
        reason: 'credential_refused',
        context: { reason: 'issuer_not_trusted_for_type' },
      })
      expect((await h.get('/console/rwa/issuers/lion-2')).status).toBe(404)
    } finally {
      await other.stop()
    }
  })

  it('refuses a second submission of the same credential, its revocation here, and malformed bodies by field', async () => {
    const { vc_jwt } = await issue()
    const made = await expectStatus(h.post(ATTESTATIONS, { vc_jwt }), 201)
    const again = await h.post(ATTESTATIONS, { vc_jwt })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({
      reason: 'attestation_exists',
      context: { attestation_id: made.attestation_id },
    })
    const revoke = await h.post(`${ATTESTATIONS}/${made.attestation_id}/revoke`, {})
    expect(revoke.status).toBe(409)
    expect(revoke.body.reason).toBe('attestation_external')

    const notJws = await h.post(ATTESTATIONS, { vc_jwt: 'not a jws' })
    expect(notJws.status).toBe(400)
    expect(notJws.body.errors.map((e: any) => e.path)).toEqual(['vc_jwt'])
    const ownWithoutAttester = await h.post(ATTESTATIONS, {
      jurisdiction: 'US',
      subject_did: BOB,
      type: 'kyc',
    })
    expect(ownWithoutAttester.status).toBe(400)
    expect(ownWithoutAttester.body.errors.map((e: any) => e.path)).toEqual(['attester'])
    const both = await h.post(ATTESTATIONS, {
      jurisdiction: 'US',
      subject_did: BOB,
      type: 'kyc',
      attester: 'A',
      vc_jwt,
    })
    expect(both.status).toBe(400)
    expect(both.body.errors).toEqual([{ path: 'vc_jwt', message: 'Unknown field' }])
  })
})
