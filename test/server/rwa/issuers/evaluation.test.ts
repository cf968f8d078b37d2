import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { trustBundleSchema } from '../../../../src/contract/rwa.js'
import { verifyProofTrusted } from '../../../../src/proof/verify.js'
import {
  buildWorld,
  expectStatus,
  OWNER,
  RECIPIENT,
  transferBody,
  US,
  type World,
} from '../../../support/governance.js'
import { type ApiCaller, createHarness, type Harness } from '../../../support/harness.js'
import { TestIssuer } from '../../../support/test-issuer.js'

/*
 * Transfers decided on trusted issuers' attestations (docs/issuers.md, "Evaluation"): recognised per
 * jurisdiction and requirement, the issuer's status lists as last fetched at most
 * --issuer-status-max-age old (1 h here), fetched again past it and failing closed when they cannot be,
 * one fetch shared by every instance, and `external_only` requirements.
 */

const CAROL = 'did:web:lion:carol'
const HOUR = 3_600_000
let h: Harness
let provider: TestIssuer
let world: World
let kyc: { id: string; index: number; vcJwt: string }
let aml: { id: string; index: number; vcJwt: string }

beforeEach(async () => {
  h = await createHarness({ allowHttpIssuers: true })
  provider = await TestIssuer.start({ now: () => new Date(h.clock.now()) })
  // US requires kyc, aml and title_verification; SG kyc, aml and investor_qualification (buildWorld).
  world = await buildWorld(h)
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
  const submit = async (type: string) => {
    const issued = await provider.issue({
      subject: CAROL,
      types: [type],
      status: ['revocation', 'suspension'],
      validUntil: new Date(h.clock.now() + 365 * 24 * HOUR),
    })
    const made = await expectStatus(h.post('/console/rwa/attestations', { vc_jwt: issued.vc_jwt }), 201)
    return { id: made.attestation_id as string, index: issued.index, vcJwt: issued.vc_jwt }
  }
  kyc = await submit('KYCCredential')
  aml = await submit('AMLCredential')
})
afterEach(async () => {
  await provider.stop()
  await h.close()
})

/** can-transfer of 10 units to carol, within US unless told otherwise. */
async function decide(to = 'US', caller: ApiCaller = h) {
  const query = { from_jurisdiction: 'US', to_jurisdiction: to, recipient_did: CAROL, amount: 10 }
  const answer = await expectStatus(
    caller.get(`/console/rwa/tokens/${world.tokenId}/can-transfer`, { query }),
    200,
  )
  const checks = answer.compliance_details.checks as any[]
  return {
    allowed: answer.allowed as boolean,
    check: (req: string, j = to) => checks.find((c) => c.requirement === req && c.jurisdiction === j),
  }
}

describe('transfers decided on trusted issuers’ attestations', () => {
  it('approves on them where the issuer is trusted, its proof signing the issuer DID and the VC digest', async () => {
    const tx = await expectStatus(
      h.post(
        '/console/rwa/transfers',
        transferBody(world.tokenId, 10, { to_jurisdiction: 'US', recipient_did: CAROL }),
      ),
      201,
    )
    expect(tx.status).toBe('approved')
    const detail = await expectStatus(h.get(`/console/rwa/transfers/${tx.transfer_id}`), 200)
    const kycCheck = detail.compliance_details.checks.find((c: any) => c.requirement === 'kyc')
    expect(kycCheck).toEqual({
      requirement: 'kyc',
      jurisdiction: 'US',
      satisfied: true,
      evidence: kyc.id,
      reason: `kyc of recipient ${CAROL} attested by trusted issuer acme-kyc (${provider.did}) in ${kyc.id}`,
      issuer_did: provider.did,
      vc_sha256: createHash('sha256').update(kyc.vcJwt).digest('hex'),
    })
    // Signed: the proof's facts carry them, and the proof verifies against the trust bundle.
    const signed = detail.proof.compliance_details.checks.filter((c: any) => c.vc_sha256 !== undefined)
    expect(signed.map((c: any) => [c.requirement, c.issuer_did, c.vc_sha256])).toEqual([
      ['kyc', provider.did, createHash('sha256').update(kyc.vcJwt).digest('hex')],
      ['aml', provider.did, createHash('sha256').update(aml.vcJwt).digest('hex')],
    ])
    const bundle = trustBundleSchema.parse(await expectStatus(h.get('/console/rwa/trust-bundle'), 200))
    expect(await verifyProofTrusted(detail.proof, bundle)).toMatchObject({ valid: true })
    // The signed digest is the proof's: an edited one, or an issuer DID the bundle lacks, does not hold.
    const edited = structuredClone(detail.proof)
    edited.compliance_details.checks.find((c: any) => c.requirement === 'kyc').vc_sha256 = 'cd'.repeat(32)
    expect(await verifyProofTrusted(edited, bundle)).toMatchObject({ valid: false })
  })

  it('does not count them in a jurisdiction the issuer is not trusted in', async () => {
    // buildWorld's trust US -> SG carries the transfer; SG lists kyc too.
    const sg = await decide('SG')
    expect(sg.allowed).toBe(false)
    expect(sg.check('kyc', 'US')?.satisfied).toBe(true)
    expect(sg.check('kyc', 'SG')).toMatchObject({
      satisfied: false,
      reason: `kyc attestation ${kyc.id} of recipient ${CAROL} is by trusted issuer acme-kyc (${provider.did}), which SG does not trust (it is trusted in US)`,
    })
    await expectStatus(
      h.request('PATCH', '/console/rwa/issuers/acme-kyc', { body: { jurisdictions: ['US', 'SG'] } }),
      200,
    )
    expect((await decide('SG')).check('kyc', 'SG')?.satisfied).toBe(true)
  })

  it('sees a revocation or a suspension once the list is older than the max age, and a reinstatement', async () => {
    const fetches = () => provider.count('/status/revocation')
    const before = fetches()
    provider.revoke(kyc.index)
    provider.suspend(aml.index)
    // The lists fetched when the credentials were submitted are young enough: relied on as they are.
    expect((await decide()).allowed).toBe(true)
    expect(fetches()).toBe(before)
    h.clock.advance(HOUR + 1)
    const after = await decide()
    expect(after.allowed).toBe(false)
    expect(after.check('kyc')?.reason).toContain(
      `${kyc.id} is revoked in ${provider.statusListUrl('revocation')}`,
    )
    expect(after.check('aml')?.reason).toContain(
      `${aml.id} is suspended in ${provider.statusListUrl('suspension')}`,
    )
    expect(fetches()).toBe(before + 1)
    provider.reinstate(aml.index)
    h.clock.advance(HOUR + 1)
    const reinstated = await decide()
    expect(reinstated.check('aml')?.satisfied).toBe(true)
    expect(reinstated.check('kyc')?.satisfied).toBe(false)
  })

  it('fails closed on a list that cannot be fetched past the max age, saying since when the status is unknown', async () => {
    provider.unreachable = true
    h.clock.advance(HOUR - 1000)
    expect((await decide()).allowed).toBe(true)
    h.clock.advance(2000)
    const unknown = await decide()
    expect(unknown.allowed).toBe(false)
    expect(unknown.check('kyc')?.reason).toBe(
      `kyc attestation ${kyc.id} of recipient ${CAROL} by trusted issuer acme-kyc (${provider.did}) is not relied on: status of ${kyc.id} unknown since 2026-01-15T12:00:00.000Z: its revocation list is older than 1h`,
    )
    const tx = await expectStatus(
      h.post(
        '/console/rwa/transfers',
        transferBody(world.tokenId, 10, { to_jurisdiction: 'US', recipient_did: CAROL }),
      ),
      201,
    )
    expect(tx.status).toBe('rejected')
    provider.unreachable = false
    expect((await decide()).allowed).toBe(true)
  })

  it('relies on nothing of a suspended or removed issuer', async () => {
    await expectStatus(
      h.request('PATCH', '/console/rwa/issuers/acme-kyc', { body: { status: 'suspended' } }),
      200,
    )
    const suspended = await decide()
    expect(suspended.allowed).toBe(false)
    expect(suspended.check('kyc')?.reason).toContain('is suspended (issuer_suspended)')
    await expectStatus(
      h.request('PATCH', '/console/rwa/issuers/acme-kyc', { body: { status: 'active' } }),
      200,
    )
    expect((await decide()).allowed).toBe(true)
    await expectStatus(h.request('DELETE', '/console/rwa/issuers/acme-kyc'), 200)
    expect((await decide()).check('kyc')?.satisfied).toBe(false)
  })

  it('external_only: a requirement a jurisdiction takes only from trusted issuers ignores the organization’s own', async () => {
    const { jurisdiction_id: _, ...us } = US
    const bad = await h.request('PUT', '/console/rwa/jurisdictions/US', {
      body: { ...us, external_only: ['accredited'] },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.errors).toEqual([
      { path: 'external_only', message: 'accredited is not in transfer_requirements' },
    ])
    const updated = await expectStatus(
      h.request('PUT', '/console/rwa/jurisdictions/US', { body: { ...us, external_only: ['kyc'] } }),
      200,
    )
    expect(updated.external_only).toEqual(['kyc'])
    expect((await expectStatus(h.get('/console/rwa/jurisdictions/US'), 200)).external_only).toEqual(['kyc'])
    expect((await decide()).allowed).toBe(true)
    // Bob holds the organization's own kyc attestation in US (buildWorld): no longer enough there.
    const query = { from_jurisdiction: 'US', to_jurisdiction: 'US', recipient_did: RECIPIENT, amount: 10 }
    const bob = await expectStatus(h.get(`/console/rwa/tokens/${world.tokenId}/can-transfer`, { query }), 200)
    expect(bob.allowed).toBe(false)
    expect(bob.compliance_details.checks.find((c: any) => c.requirement === 'kyc')).toMatchObject({
      satisfied: false,
      reason: `no kyc attestation of recipient ${RECIPIENT} by a trusted issuer of US (US accepts kyc only from trusted issuers)`,
    })
    expect(bob.compliance_details.checks.find((c: any) => c.requirement === 'aml').satisfied).toBe(true)
  })

  it('counts them for the identity check of a forced transfer', async () => {
    const body = {
      from_did: OWNER,
      from_jurisdiction: 'US',
      to_did: CAROL,
      to_jurisdiction: 'US',
      amount: 5,
      reason: 'court order',
    }
    const forced = await expectStatus(
      h.post(`/console/rwa/tokens/${world.tokenId}/forced-transfer`, body),
      201,
    )
    expect(forced.status).toBe('forced')
    await expectStatus(
      h.request('PATCH', '/console/rwa/issuers/acme-kyc', { body: { status: 'suspended' } }),
      200,
    )
    const refused = await h.post(`/console/rwa/tokens/${world.tokenId}/forced-transfer`, body)
    expect(refused.status).toBe(422)
    expect(refused.body.reason).toBe('recipient_not_kyc')
  })

  it('shares one fetch between instances: the second reads the list the first fetched', async () => {
    const other = await h.newInstance({ allowHttpIssuers: true })
    h.clock.advance(HOUR + 1)
    const before = provider.count('/status/revocation')
    provider.revoke(kyc.index)
    expect((await decide('US', other)).allowed).toBe(false)
    expect(provider.count('/status/revocation')).toBe(before + 1)
    expect((await decide('US', h)).check('kyc')?.reason).toContain('is revoked')
    expect(provider.count('/status/revocation')).toBe(before + 1)
  })
})
