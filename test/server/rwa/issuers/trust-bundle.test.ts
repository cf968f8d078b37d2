import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { trustBundleSchema } from '../../../../src/contract/rwa.js'
import { verifyExternalAttestation } from '../../../../src/proof/external-attestation.js'
import { expectStatus, US } from '../../../support/governance.js'
import { createHarness, type Harness } from '../../../support/harness.js'
import { TestIssuer } from '../../../support/test-issuer.js'

/*
 * The trust bundle's trusted issuers (docs/issuers.md, "In the trust bundle"): every issuer of the
 * organization with its keys as the issuers API gives them, retired and removed ones included, so a
 * provider's attestation verifies offline against the bundle, even after its issuer was removed.
 */

const BOB = 'did:web:lion:bob'
const HOUR = 3_600_000
let h: Harness
let acme: TestIssuer
let beta: TestIssuer

beforeEach(async () => {
  h = await createHarness({ allowHttpIssuers: true })
  acme = await TestIssuer.start({ now: () => new Date(h.clock.now()) })
  beta = await TestIssuer.start({ now: () => new Date(h.clock.now()), keyForm: 'multikey' })
  await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
  for (const [issuer_id, provider] of [
    ['acme-kyc', acme],
    ['beta-aml', beta],
  ] as const) {
    await expectStatus(
      h.post('/console/rwa/issuers', {
        issuer_id,
        name: issuer_id,
        did: provider.did,
        requirements: issuer_id === 'acme-kyc' ? { kyc: ['KYCCredential'] } : { aml: ['AMLCredential'] },
        jurisdictions: ['US'],
      }),
      201,
    )
  }
})
afterEach(async () => {
  await acme.stop()
  await beta.stop()
  await h.close()
})

const bundle = async (key?: string) =>
  trustBundleSchema.parse(
    await expectStatus(h.get('/console/rwa/trust-bundle', key ? { key } : undefined), 200),
  )

describe('GET /console/rwa/trust-bundle: external_issuers', () => {
  it('lists every trusted issuer with its keys as the issuers API gives them, retired and removed ones included', async () => {
    const issued = await acme.issue({ subject: BOB, validUntil: new Date(h.clock.now() + 400 * 24 * HOUR) })
    const attestation = await expectStatus(
      h.post('/console/rwa/attestations', { vc_jwt: issued.vc_jwt }),
      201,
    )
    h.clock.advance(HOUR)
    acme.rotateKey()
    await expectStatus(h.post('/console/rwa/issuers/acme-kyc/refresh', {}), 200)
    await expectStatus(
      h.request('PATCH', '/console/rwa/issuers/beta-aml', { body: { status: 'suspended' } }),
      200,
    )
    h.clock.advance(HOUR)
    await expectStatus(h.request('DELETE', '/console/rwa/issuers/acme-kyc'), 200)

    const found = await bundle()
    const api = await Promise.all(
      ['acme-kyc', 'beta-aml'].map((id) => expectStatus(h.get(`/console/rwa/issuers/${id}`), 200)),
    )
    expect(found.external_issuers).toEqual(
      api.map((i: any) => ({
        issuer_id: i.issuer_id,
        did: i.did,
        keys: i.keys,
        requirements: i.requirements,
        jurisdictions: i.jurisdictions,
        status: i.status,
        valid_until: i.valid_until,
      })),
    )
    const [acmeEntry, betaEntry] = found.external_issuers!
    expect(acmeEntry).toMatchObject({ issuer_id: 'acme-kyc', status: 'removed' })
    expect(acmeEntry!.keys.map((k) => [k.kid, k.retired_at === null])).toEqual([
      [`${acme.did}#key-1`, false],
      [`${acme.did}#key-2`, true],
    ])
    expect(betaEntry).toMatchObject({ issuer_id: 'beta-aml', status: 'suspended' })

    // The attestation of the removed issuer, signed by its retired key, still verifies as recorded.
    const record = await expectStatus(h.get(`/console/rwa/attestations/${attestation.attestation_id}`), 200)
    const now = new Date(h.clock.now())
    expect(
      await verifyExternalAttestation(issued.vc_jwt, { record, trust: found, now, asRecorded: true }),
    ).toMatchObject({ valid: true })
    // Relied on now, it does not: its issuer is removed.
    expect(await verifyExternalAttestation(issued.vc_jwt, { record, trust: found, now })).toMatchObject({
      valid: false,
      reason: expect.stringContaining('issuer_not_trusted'),
    })
  })

  it('lists only the organization’s own issuers: another organization’s bundle has none', async () => {
    expect((await bundle()).external_issuers?.map((i) => i.issuer_id)).toEqual(['acme-kyc', 'beta-aml'])
    const other = await h.createOrg('bundle-other')
    expect((await bundle(other.key)).external_issuers).toEqual([])
  })
})
