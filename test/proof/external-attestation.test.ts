import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ExternalAttestation, Proof, TrustBundle } from '../../src/contract/rwa.js'
import { externalRelianceProblems, verifyExternalAttestation } from '../../src/proof/external-attestation.js'
import { ed25519Pair, TestIssuer } from '../support/test-issuer.js'

/*
 * A trusted issuer's attestation verified offline against the trust bundle's `external_issuers`
 * (docs/issuers.md, "In the trust bundle"): the forgeries first, each one refused with its reason, then
 * the real record. And the proof checks a bundle relies on: each names the VC's issuer DID and digest.
 */

let provider: TestIssuer
const NOW = new Date('2026-03-01T12:00:00.000Z')
const BOB = 'did:web:lion:bob'
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

beforeEach(async () => {
  provider = await TestIssuer.start({ now: () => NOW })
})
afterEach(() => provider.stop())

/** A trust bundle listing the provider as the server would: trusted for kyc in US. */
function bundleOf(
  overrides: Partial<NonNullable<TrustBundle['external_issuers']>[number]> = {},
): TrustBundle {
  return {
    org_id: 'org_1',
    generated_at: NOW.toISOString(),
    proof_keys: { keys: [] },
    issuers: [],
    external_issuers: [
      {
        issuer_id: 'acme-kyc',
        did: provider.did,
        keys: provider.keys.map((k) => ({
          kid: k.kid,
          jwk: k.publicJwk,
          first_seen_at: '2026-01-01T00:00:00.000Z',
          retired_at: null,
        })),
        requirements: { kyc: ['KYCCredential'] },
        jurisdictions: ['US'],
        status: 'active',
        valid_until: null,
        ...overrides,
      },
    ],
  }
}

/** The record the server keeps of a submitted VC-JWT. */
async function recordOf(vcJwt: string, index: number): Promise<ExternalAttestation> {
  return {
    attestation_id: 'att_0001',
    source: 'external',
    issuer_id: 'acme-kyc',
    issuer_did: provider.did,
    subject_did: BOB,
    type: 'kyc',
    vc_types: ['VerifiableCredential', 'KYCCredential'],
    vc_jwt: vcJwt,
    vc_sha256: sha256(vcJwt),
    valid_from: NOW.toISOString(),
    valid_until: new Date(NOW.getTime() + 30 * 24 * 3600 * 1000).toISOString(),
    credential_status: provider.statusEntry('revocation', index),
    status: 'active',
    submitted_at: NOW.toISOString(),
    jurisdiction: null,
  }
}

async function real() {
  const issued = await provider.issue({ subject: BOB })
  return { ...issued, record: await recordOf(issued.vc_jwt, issued.index) }
}

/** Replaces a JWS's payload, keeping its header and signature. */
function withPayload(jws: string, payload: Record<string, unknown>): string {
  const [header, , signature] = jws.split('.')
  return [header, Buffer.from(JSON.stringify(payload)).toString('base64url'), signature].join('.')
}

const verify = (vcJwt: string, record: unknown, trust = bundleOf(), asRecorded = false) =>
  verifyExternalAttestation(vcJwt, { record, trust, now: NOW, asRecorded })

describe('a trusted issuer’s attestation against the trust bundle: forgeries', () => {
  it('refuses a VC signed by another key under the issuer’s kid', async () => {
    const { payload, record } = await real()
    const stranger = { ...ed25519Pair(), kid: provider.currentKey.kid }
    const forged = await provider.sign(payload, { key: stranger })
    const result = await verify(forged, { ...record, vc_jwt: forged, vc_sha256: sha256(forged) })
    expect(result).toMatchObject({ valid: false, reason: expect.stringContaining('signature_invalid') })
  })

  it('refuses an edited claim (the subject) and a deleted one (validUntil)', async () => {
    const { vc_jwt, payload, record } = await real()
    const edited = withPayload(vc_jwt, { ...payload, credentialSubject: { id: 'did:web:lion:mallory' } })
    expect(await verify(edited, { ...record, vc_jwt: edited, vc_sha256: sha256(edited) })).toMatchObject({
      valid: false,
      reason: expect.stringContaining('does not verify'),
    })
    const { validUntil: _gone, ...rest } = payload
    const deleted = withPayload(vc_jwt, rest)
    expect(await verify(deleted, { ...record, vc_jwt: deleted, vc_sha256: sha256(deleted) })).toMatchObject({
      valid: false,
      reason: expect.stringContaining('does not verify'),
    })
  })

  it('refuses a record with a field deleted, or an unknown one added', async () => {
    const { vc_jwt, record } = await real()
    const { issuer_id: _gone, ...lacking } = record
    expect(await verify(vc_jwt, lacking)).toMatchObject({
      valid: false,
      reason: expect.stringContaining('lacks issuer_id'),
    })
    expect(await verify(vc_jwt, { ...record, note: 'x' })).toMatchObject({
      valid: false,
      reason: expect.stringContaining('field note'),
    })
  })

  it('refuses an issuer absent from the bundle, and a bundle saved before trusted issuers', async () => {
    const { vc_jwt, record } = await real()
    const absent = { ...bundleOf(), external_issuers: [] }
    expect(await verify(vc_jwt, record, absent)).toMatchObject({
      valid: false,
      reason: expect.stringContaining('issuer_not_trusted'),
    })
    const { external_issuers: _none, ...older } = bundleOf()
    expect(await verify(vc_jwt, record, older)).toMatchObject({
      valid: false,
      reason: expect.stringContaining('lists no trusted issuers'),
    })
  })

  it('refuses an issuer trusted for another type', async () => {
    const { vc_jwt, record } = await real()
    const result = await verify(vc_jwt, record, bundleOf({ requirements: { aml: ['AMLCredential'] } }))
    expect(result).toMatchObject({
      valid: false,
      reason: expect.stringContaining('issuer_not_trusted_for_type'),
    })
    // Trusted for the type, but the record says it meets another requirement.
    const other = await verify(vc_jwt, { ...record, type: 'aml' })
    expect(other).toMatchObject({ valid: false, reason: expect.stringContaining("record's type") })
  })

  it('refuses a record whose subject, issuer or digest differs from the VC’s', async () => {
    const { vc_jwt, record } = await real()
    expect(await verify(vc_jwt, { ...record, subject_did: 'did:web:lion:mallory' })).toMatchObject({
      valid: false,
      reason: expect.stringContaining("record's subject_did"),
    })
    expect(await verify(vc_jwt, { ...record, issuer_did: 'did:web:evil.example' })).toMatchObject({
      valid: false,
      reason: expect.stringContaining("record's issuer_did"),
    })
    expect(await verify(vc_jwt, { ...record, issuer_id: 'other' })).toMatchObject({
      valid: false,
      reason: expect.stringContaining("record's issuer_id"),
    })
    expect(await verify(vc_jwt, { ...record, vc_sha256: 'ab'.repeat(32) })).toMatchObject({
      valid: false,
      reason: expect.stringContaining("record's vc_sha256"),
    })
  })

  it('refuses a VC whose iss is not its issuer’s DID', async () => {
    const { payload, record } = await real()
    const forged = await provider.sign({ ...payload, iss: 'did:web:evil.example' })
    expect(await verify(forged, { ...record, vc_jwt: forged, vc_sha256: sha256(forged) })).toMatchObject({
      valid: false,
    })
  })
})

describe('a trusted issuer’s attestation against the trust bundle: the real one', () => {
  it('holds, its record equal to the signed VC', async () => {
    const { vc_jwt, record } = await real()
    const result = await verify(vc_jwt, record)
    expect(result).toMatchObject({ valid: true, issuer: { issuer_id: 'acme-kyc' } })
  })

  it('as recorded, holds after its issuer was removed and its key retired, signed before', async () => {
    const { vc_jwt, record } = await real()
    const retiredAt = new Date(NOW.getTime() + 1000).toISOString()
    const removed = bundleOf({
      status: 'removed',
      keys: bundleOf().external_issuers![0]!.keys.map((k) => ({ ...k, retired_at: retiredAt })),
    })
    const later = new Date(NOW.getTime() + 90 * 24 * 3600 * 1000)
    expect(
      await verifyExternalAttestation(vc_jwt, { record, trust: removed, now: later, asRecorded: true }),
    ).toMatchObject({ valid: true })
    // Relied on now, it does not hold: its issuer is removed.
    expect(await verify(vc_jwt, record, removed)).toMatchObject({ valid: false })
    // A key retired before the VC was signed does not verify it.
    const early = bundleOf({
      keys: bundleOf().external_issuers![0]!.keys.map((k) => ({
        ...k,
        retired_at: '2026-02-01T00:00:00.000Z',
      })),
    })
    expect(await verify(vc_jwt, record, early, true)).toMatchObject({
      valid: false,
      reason: expect.stringContaining('retired'),
    })
  })
})

describe('a proof’s checks relying on trusted issuers’ attestations', () => {
  const proofWith = (checks: Array<Record<string, unknown>>) =>
    ({
      proof_id: 'prf_1',
      compliance_details: {
        source_requirements: [],
        target_requirements: ['kyc'],
        all_satisfied: true,
        checks: checks.map((c) => ({
          requirement: 'kyc',
          jurisdiction: 'US',
          satisfied: true,
          evidence: 'att_0001',
          reason: 'r',
          ...c,
        })),
      },
    }) as unknown as Proof

  it('names each: its digest and issuer the attestation’s, trusted for it there', async () => {
    const { record } = await real()
    const ok = proofWith([{ issuer_did: provider.did, vc_sha256: record.vc_sha256 }])
    expect(externalRelianceProblems(ok, bundleOf(), new Map([['att_0001', record]]))).toEqual([])
  })

  it('refuses a vc_jwt whose digest is not the proof’s vc_sha256', async () => {
    const { record } = await real()
    const other = await provider.issue({ subject: BOB })
    const swapped = { ...record, vc_jwt: other.vc_jwt, vc_sha256: sha256(other.vc_jwt) }
    const proof = proofWith([{ issuer_did: provider.did, vc_sha256: record.vc_sha256 }])
    expect(externalRelianceProblems(proof, bundleOf(), new Map([['att_0001', swapped]]))).toEqual([
      expect.stringContaining('vc_sha256'),
    ])
  })

  it('refuses a malformed digest, a digest without an issuer, and an issuer the bundle lacks or does not trust there', async () => {
    const { record } = await real()
    const at = new Map([['att_0001', record]])
    const bad = proofWith([{ issuer_did: provider.did, vc_sha256: 'XYZ' }])
    expect(externalRelianceProblems(bad, bundleOf(), at)[0]).toContain('not a hex SHA-256')
    const lone = proofWith([{ vc_sha256: record.vc_sha256 }])
    expect(externalRelianceProblems(lone, bundleOf(), at)[0]).toContain('issuer_did')
    const stranger = proofWith([{ issuer_did: 'did:web:evil.example', vc_sha256: record.vc_sha256 }])
    expect(externalRelianceProblems(stranger, bundleOf(), at)[0]).toContain('not a trusted issuer')
    const elsewhere = proofWith([
      { issuer_did: provider.did, vc_sha256: record.vc_sha256, jurisdiction: 'SG' },
    ])
    expect(externalRelianceProblems(elsewhere, bundleOf(), at)[0]).toContain('SG')
  })

  it('without the attestation at hand, checks the digest’s form and the issuer only', async () => {
    const { record } = await real()
    const proof = proofWith([{ issuer_did: provider.did, vc_sha256: record.vc_sha256 }])
    expect(externalRelianceProblems(proof, bundleOf())).toEqual([])
    // A proof made before checks named them: nothing to check.
    expect(externalRelianceProblems(proofWith([{}]), bundleOf())).toEqual([])
  })
})
