import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  checkExternalStatus,
  type FetchedList,
  type TrustedIssuer,
  verifyExternalCredential,
} from '../../src/proof/external-credential.js'
import { ed25519Pair, TestIssuer } from '../support/test-issuer.js'

/*
 * Each reason an outside issuer's credential is refused (docs/issuers.md, "Verification"), produced by a
 * crafted credential of a real did:web provider on loopback (test/support/test-issuer.ts), its status
 * lists fetched over HTTP.
 */

let provider: TestIssuer
const NOW = new Date('2026-03-01T12:00:00.000Z')
const DAY = 24 * 3600 * 1000
beforeEach(async () => {
  provider = await TestIssuer.start({ now: () => NOW })
})
afterEach(() => provider.stop())

/** The provider as the registry would hold it: trusted for kyc by KYCCredential. */
const trusted = (overrides: Partial<TrustedIssuer> = {}): TrustedIssuer => ({
  issuer_id: 'acme-kyc',
  did: provider.did,
  status: 'active',
  requirements: { kyc: ['KYCCredential'], aml: ['AMLCredential'] },
  valid_until: null,
  keys: provider.keys.map((k) => ({ kid: k.kid, jwk: k.publicJwk, retired_at: null })),
  ...overrides,
})

const fetchLive = async (url: string): Promise<FetchedList> => {
  try {
    const res = await fetch(url)
    if (res.status !== 200) return { error: `${url} answered ${res.status}` }
    return { listJwt: await res.text(), fetchedAt: NOW.toISOString() }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

const issue = (options: Partial<Parameters<TestIssuer['issue']>[0]> = {}) =>
  provider.issue({ subject: 'did:web:lion:bob', status: ['revocation', 'suspension'], ...options })

async function verdict(vcJwt: string, issuer = trusted()) {
  const verified = await verifyExternalCredential(vcJwt, [issuer], NOW)
  if (!verified.ok) return verified
  return checkExternalStatus(verified, fetchLive, { now: NOW, maxAgeMs: 3600_000 })
}

describe('an outside issuer’s credential', () => {
  it('verifies, naming the requirement its type meets, its subject and its signed status', async () => {
    const { vc_jwt, index } = await issue()
    const verified = await verifyExternalCredential(vc_jwt, [trusted()], NOW)
    expect(verified).toMatchObject({
      ok: true,
      subject: 'did:web:lion:bob',
      vcTypes: ['VerifiableCredential', 'KYCCredential'],
      requirements: ['kyc'],
      validFrom: NOW.toISOString(),
      entries: [
        { statusPurpose: 'revocation', statusListIndex: index },
        { statusPurpose: 'suspension', statusListIndex: index },
      ],
    })
    expect(await verdict(vc_jwt)).toEqual({ ok: true })
  })

  it('signature_invalid: signed by another key under the issuer’s kid, or its payload edited', async () => {
    const other = ed25519Pair()
    const forged = await issue({ key: { privateKey: other.privateKey, kid: provider.currentKey.kid } })
    expect(await verdict(forged.vc_jwt)).toMatchObject({ ok: false, reason: 'signature_invalid' })

    const { vc_jwt } = await issue()
    const [h, p, s] = vc_jwt.split('.')
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString())
    claims.credentialSubject.id = 'did:web:mallory'
    const edited = [h, Buffer.from(JSON.stringify(claims)).toString('base64url'), s].join('.')
    expect(await verdict(edited)).toMatchObject({
      ok: false,
      reason: 'signature_invalid',
      detail: `the signature does not verify with ${provider.currentKey.kid}`,
    })
    const unknownKid = await issue({ kid: `${provider.did}#key-9` })
    expect(await verdict(unknownKid.vc_jwt)).toMatchObject({ reason: 'signature_invalid' })
  })

  it('issuer_not_trusted: another iss, or an issuer claim that is not its iss, or trust that ended', async () => {
    const wrongIss = await issue({ claims: { iss: 'did:web:evil.example' } })
    expect(await verdict(wrongIss.vc_jwt)).toMatchObject({
      reason: 'issuer_not_trusted',
      detail: 'did:web:evil.example is not a trusted issuer of the organization',
    })
    const otherIssuer = await issue({ claims: { issuer: 'did:web:evil.example' } })
    expect(await verdict(otherIssuer.vc_jwt)).toMatchObject({ reason: 'issuer_not_trusted' })
    const { vc_jwt } = await issue()
    expect(await verdict(vc_jwt, trusted({ status: 'removed' }))).toMatchObject({
      reason: 'issuer_not_trusted',
    })
    expect(await verdict(vc_jwt, trusted({ valid_until: '2026-02-01T00:00:00.000Z' }))).toMatchObject({
      reason: 'issuer_not_trusted',
    })
  })

  it('issuer_not_trusted_for_type and issuer_suspended', async () => {
    const investor = await issue({ types: ['AccreditedInvestorCredential'] })
    expect(await verdict(investor.vc_jwt)).toMatchObject({
      reason: 'issuer_not_trusted_for_type',
      detail:
        'issuer acme-kyc is trusted for KYCCredential, AMLCredential, not for VerifiableCredential, AccreditedInvestorCredential',
    })
    const { vc_jwt } = await issue()
    expect(await verdict(vc_jwt, trusted({ status: 'suspended' }))).toMatchObject({
      reason: 'issuer_suspended',
    })
  })

  it('credential_not_yet_valid and credential_expired', async () => {
    const later = await issue({ validFrom: new Date(NOW.getTime() + DAY) })
    expect(await verdict(later.vc_jwt)).toMatchObject({
      reason: 'credential_not_yet_valid',
      detail: 'valid only from 2026-03-02T12:00:00.000Z',
    })
    const old = await issue({
      validFrom: new Date(NOW.getTime() - 10 * DAY),
      validUntil: new Date(NOW.getTime() - DAY),
    })
    expect(await verdict(old.vc_jwt)).toMatchObject({
      reason: 'credential_expired',
      detail: 'expired at 2026-02-28T12:00:00.000Z',
    })
  })

  it('credential_revoked and credential_suspended from the issuer’s lists; reinstated, it passes again', async () => {
    const revoked = await issue()
    provider.revoke(revoked.index)
    expect(await verdict(revoked.vc_jwt)).toMatchObject({
      reason: 'credential_revoked',
      detail: `the credential is revoked in ${provider.statusListUrl('revocation')}`,
    })
    const suspended = await issue()
    provider.suspend(suspended.index)
    expect(await verdict(suspended.vc_jwt)).toMatchObject({ reason: 'credential_suspended' })
    provider.reinstate(suspended.index)
    expect(await verdict(suspended.vc_jwt)).toEqual({ ok: true })
  })

  it('status_unavailable: a list that cannot be fetched, is too old, or is signed by another key (fail closed)', async () => {
    const { vc_jwt } = await issue()
    provider.unreachable = true
    expect(await verdict(vc_jwt)).toMatchObject({
      reason: 'status_unavailable',
      detail: `status of the credential unknown: ${provider.statusListUrl('revocation')} answered 503`,
    })
    provider.unreachable = false
    const verified = await verifyExternalCredential(vc_jwt, [trusted()], NOW)
    if (!verified.ok) throw new Error(verified.detail)
    const stale = async (url: string): Promise<FetchedList> => {
      const fetched = await fetchLive(url)
      return 'error' in fetched ? fetched : { ...fetched, fetchedAt: '2026-03-01T10:00:00.000Z' }
    }
    expect(
      await checkExternalStatus(verified, stale, { now: NOW, maxAgeMs: 3600_000, label: 'att_1' }),
    ).toMatchObject({
      reason: 'status_unavailable',
      detail: 'status of att_1 unknown since 2026-03-01T10:00:00.000Z: its revocation list is older than 1h',
    })
    // The list signed by a key the registry does not hold for the issuer.
    const registered = trusted()
    provider.rotateKey({ keepOld: true })
    expect(await verdict(vc_jwt, registered)).toMatchObject({
      reason: 'status_unavailable',
      detail: `status of the credential unknown: the status list ${provider.statusListUrl('revocation')} does not verify: kid ${provider.did}#key-2 is not a key of ${provider.did}`,
    })
  })

  it('keeps verifying a credential signed before its key was retired, and refuses one signed after', async () => {
    const before = await issue()
    const retired = trusted({
      keys: provider.keys.map((k) => ({
        kid: k.kid,
        jwk: k.publicJwk,
        retired_at: '2026-03-01T12:00:01.000Z',
      })),
    })
    const verified = await verifyExternalCredential(before.vc_jwt, [retired], NOW)
    expect(verified.ok).toBe(true)
    const after = await issue({ validFrom: new Date('2026-03-01T12:00:02.000Z') })
    const later = new Date('2026-03-01T13:00:00.000Z')
    expect(await verifyExternalCredential(after.vc_jwt, [retired], later)).toMatchObject({
      reason: 'signature_invalid',
      detail: `${provider.keys[0]!.kid} was retired at 2026-03-01T12:00:01.000Z, before this credential`,
    })
  })
})
