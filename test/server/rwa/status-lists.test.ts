import { Bitstring } from '@digitalbazaar/bitstring'
import { verifyCredential as verifyVcJwt } from 'did-jwt-vc'
import { Resolver } from 'did-resolver'
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose'
import { getResolver as keyDidResolver } from 'key-did-resolver'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { publicKeyOfDidKey } from '../../../src/proof/did-key.js'
import {
  checkRevocation,
  decodeStatusList,
  STATUS_LIST_MIN_BITS,
  statusBit,
} from '../../../src/proof/status-list.js'
import { expectStatus, OWNER, PROPERTY, SG, US } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

const PUBLIC_URL = 'http://rwa.test'
let h: Harness
beforeEach(async () => {
  h = await createHarness({ publicUrl: PUBLIC_URL })
  await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
  await expectStatus(h.post('/console/rwa/jurisdictions', SG), 201)
})
afterEach(() => h.close())

const issue = (jurisdiction = 'US', deed = 'SF-1') =>
  expectStatus(
    h.post('/console/rwa/credentials', {
      jurisdiction,
      owner_did: OWNER,
      property_data: { ...PROPERTY, title_deed: deed },
    }),
    201,
  )

/** Fetches a status list the way a verifier does: by its URL, with no key. */
const fetchList = async (url: string, headers: Record<string, string> = {}) => {
  expect(url.startsWith(`${PUBLIC_URL}/console/rwa/status/sl_`)).toBe(true)
  return h.get(new URL(url).pathname, { key: null, headers })
}
const listText = async (url: string) => (await fetchList(url)).text

/** The bitstring of a served list, decoded by an independent library (Digital Bazaar's, W3C bit order). */
async function bitsOf(url: string): Promise<Bitstring> {
  const subject = decodeJwt(await listText(url)).credentialSubject as { encodedList: string }
  expect(subject.encodedList.startsWith('u')).toBe(true)
  const buffer = await Bitstring.decodeBits({ encoded: subject.encodedList.slice(1) })
  return new Bitstring({ buffer })
}

describe('credentialStatus in every new credential and attestation', () => {
  it('is a BitstringStatusListEntry with a decimal index in the issuing jurisdiction’s list', async () => {
    const c = await issue()
    const vc = decodeJwt(c.vc_jwt) as { credentialStatus: Record<string, string>[] }
    expect(vc.credentialStatus).toEqual(c.credential_status)
    const { statusListCredential, statusListIndex } = vc.credentialStatus[0]!
    const suspensionList = vc.credentialStatus[1]!.statusListCredential
    // A revocation entry, then a suspension entry at the same index of another list.
    expect(vc.credentialStatus).toEqual([
      {
        id: `${statusListCredential}#${statusListIndex}`,
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
        statusListIndex: expect.stringMatching(/^(0|[1-9]\d*)$/),
        statusListCredential: expect.stringMatching(
          /^http:\/\/rwa\.test\/console\/rwa\/status\/sl_[0-9A-Z]{26}$/,
        ),
      },
      {
        id: `${suspensionList}#${statusListIndex}`,
        type: 'BitstringStatusListEntry',
        statusPurpose: 'suspension',
        statusListIndex,
        statusListCredential: expect.stringMatching(
          /^http:\/\/rwa\.test\/console\/rwa\/status\/sl_[0-9A-Z]{26}$/,
        ),
      },
    ])
    expect(suspensionList).not.toBe(statusListCredential)
    expect(Number(statusListIndex)).toBeLessThan(STATUS_LIST_MIN_BITS)

    // A second credential and an attestation of US share the list at other indexes; SG has its own list.
    const c2 = await issue('US', 'SF-2')
    const a = await expectStatus(
      h.post('/console/rwa/attestations', {
        jurisdiction: 'US',
        subject_did: OWNER,
        type: 'kyc',
        attester: 'x',
      }),
      201,
    )
    const sg = await issue('SG', 'SG-1')
    const entries = [c, c2, a].map((r) => r.credential_status[0])
    expect(new Set(entries.map((e) => e.statusListCredential)).size).toBe(1)
    expect(new Set([c, c2, a].map((r) => r.credential_status[1].statusListCredential))).toEqual(
      new Set([suspensionList]),
    )
    expect(new Set(entries.map((e) => e.statusListIndex)).size).toBe(3)
    expect(sg.credential_status[0].statusListCredential).not.toBe(statusListCredential)
    expect(decodeJwt(a.vc_jwt).credentialStatus).toEqual(a.credential_status)
  })

  it('starts a new list when the open one is full', async () => {
    const first = await issue()
    await h.ctx.db
      .updateTable('status_lists')
      .set((eb) => ({ used: eb.ref('capacity') }))
      .execute()
    const next = await issue('US', 'SF-2')
    expect(next.credential_status[0].statusListCredential).not.toBe(first.credential_status[0].statusListCredential)
  })
})

describe('GET /console/rwa/status/{list_id}', () => {
  it('serves a signed status list credential without a key; revocation sets exactly its bit on the next fetch', async () => {
    const c = await issue()
    const other = await issue('US', 'SF-2')
    const { statusListCredential: url, statusListIndex } = c.credential_status[0]
    const index = Number(statusListIndex)

    const res = await fetchList(url)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/vc+jwt')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    const etag = res.headers.get('etag')!
    expect(decodeProtectedHeader(res.text)).toMatchObject({ alg: 'EdDSA', typ: 'vc+jwt' })
    const list = decodeJwt(res.text)
    expect(list).toMatchObject({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      id: url,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: c.issuer_did,
      iss: c.issuer_did,
      credentialSubject: { id: `${url}#list`, type: 'BitstringStatusList', statusPurpose: 'revocation' },
    })
    // Signed by the issuing jurisdiction: verifies with the key of its did:key alone.
    const resolved = publicKeyOfDidKey(c.issuer_did)
    if ('error' in resolved) throw new Error(resolved.error)
    const key = await importJWK(resolved.jwk, 'EdDSA')
    await jwtVerify(res.text, key, { typ: 'vc+jwt' })

    const before = await bitsOf(url)
    expect(before.length).toBeGreaterThanOrEqual(STATUS_LIST_MIN_BITS)
    expect(before.get(index)).toBe(false)
    // Unchanged: a conditional fetch is 304.
    expect((await fetchList(url, { 'If-None-Match': etag })).status).toBe(304)

    await expectStatus(h.post(`/console/rwa/credentials/${c.credential_id}/revoke`, { reason: 'fraud' }), 200)
    const changed = await fetchList(url, { 'If-None-Match': etag })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    const after = await bitsOf(url)
    expect(after.get(index)).toBe(true)
    expect(after.get(Number(other.credential_status[0].statusListIndex))).toBe(false)

    // The same bytes read by hand: GZIP, base64url, bit 0 the left-most bit of the first byte.
    const raw = decodeStatusList(
      (decodeJwt(changed.text).credentialSubject as { encodedList: string }).encodedList,
    )
    expect(raw.length).toBe(STATUS_LIST_MIN_BITS / 8)
    expect(raw[index >> 3]).toBe(0x80 >> (index & 7))
    expect(raw.reduce((n, byte) => n + (byte === 0 ? 0 : 1), 0)).toBe(1)
    expect(statusBit(raw, index)).toBe(true)
  })

  it('answers 404 for an unknown list and 400 for a malformed id, without a key', async () => {
    const unknown = await h.get('/console/rwa/status/sl_01ABCDEFGHJKMNPQRSTVWXYZ00', { key: null })
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('content-type')).toContain('application/problem+json')
    expect((await h.get('/console/rwa/status/nope', { key: null })).status).toBe(400)
  })
})

describe('a status list is signed once per change and per 12 hours (docs/verification.md, "Status lists")', () => {
  it('serves the same signed bytes until it changes; validFrom is the change or the last 00:00/12:00 UTC, never older than 12 h', async () => {
    const c = await issue()
    const url = c.credential_status[0].statusListCredential
    const issuedAt = h.clock.now()
    const first = await fetchList(url)
    const again = await fetchList(url)
    expect(again.text).toBe(first.text)
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'))
    expect(decodeJwt(first.text).validFrom).toBe(new Date(issuedAt).toISOString())

    // 30 hours later with no change: re-signed at the start of the current 12-hour period.
    h.clock.advance(30 * 3600_000)
    const later = await fetchList(url, { 'If-None-Match': first.headers.get('etag')! })
    expect(later.status).toBe(200)
    expect(later.headers.get('etag')).not.toBe(first.headers.get('etag'))
    const validFrom = Date.parse(decodeJwt(later.text).validFrom as string)
    expect(validFrom % (12 * 3600_000)).toBe(0)
    expect(h.clock.now() - validFrom).toBeLessThan(12 * 3600_000)
    expect(h.clock.now() - validFrom).toBeGreaterThanOrEqual(0)

    // A revocation is served at once, signed at its own time.
    h.clock.advance(60_000)
    await expectStatus(h.post(`/console/rwa/credentials/${c.credential_id}/revoke`, { reason: 'fraud' }), 200)
    const revoked = await fetchList(url)
    expect(decodeJwt(revoked.text).validFrom).toBe(new Date(h.clock.now()).toISOString())
    expect((await bitsOf(url)).get(Number(c.credential_status[0].statusListIndex))).toBe(true)
  })

  it('signs each list once and serves it from memory while it is unchanged, other lists served in between', async () => {
    const us = await issue('US', 'SF-1')
    const sg = await issue('SG', 'SG-1')
    const usUrl = us.credential_status[0].statusListCredential
    const sgUrl = sg.credential_status[0].statusListCredential
    expect(usUrl).not.toBe(sgUrl)
    const signs = vi.spyOn(h.ctx.signingKeys, 'signCredential')
    try {
      const first = await listText(usUrl)
      await listText(sgUrl)
      expect(await listText(usUrl)).toBe(first)
      await listText(sgUrl)
      expect(signs).toHaveBeenCalledTimes(2)
      // A change is signed and served at once; the other list stays as it was signed.
      await expectStatus(h.post(`/console/rwa/credentials/${us.credential_id}/revoke`, { reason: 'fraud' }), 200)
      expect(await listText(usUrl)).not.toBe(first)
      await listText(sgUrl)
      expect(signs).toHaveBeenCalledTimes(3)
    } finally {
      signs.mockRestore()
    }
  })

  it('two instances serve the same bytes and ETag for the same list', async () => {
    const c = await issue()
    const url = c.credential_status[0].statusListCredential
    const other = await h.newInstance()
    const mine = await fetchList(url)
    const theirs = await other.get(new URL(url).pathname, { key: null })
    expect(theirs.text).toBe(mine.text)
    expect(theirs.headers.get('etag')).toBe(mine.headers.get('etag'))
  })
})

describe('verifying with the library any verifier can use', () => {
  it('checkRevocation reads active, then revoked, for a credential and for an attestation', async () => {
    const c = await issue()
    const fetchVia = async (url: string) => listText(url)
    const now = { now: new Date(h.clock.now()) }
    expect(await checkRevocation(c.vc_jwt, fetchVia, now)).toEqual({
      status: 'active',
      statusListCredential: c.credential_status[0].statusListCredential,
      statusListIndex: Number(c.credential_status[0].statusListIndex),
      validFrom: new Date(h.clock.now()).toISOString(),
    })
    await expectStatus(h.post(`/console/rwa/credentials/${c.credential_id}/revoke`), 200)
    expect((await checkRevocation(c.vc_jwt, fetchVia, now)).status).toBe('revoked')
    // A list that does not verify (tampered) is not trusted.
    const tampered = async (url: string) => `${(await listText(url)).slice(0, -4)}AAAA`
    expect(await checkRevocation(c.vc_jwt, tampered, now)).toMatchObject({ status: 'unknown' })
    // A genuine list older than the age accepted is stale: an old list cannot be replayed.
    const old = await listText(c.credential_status[0].statusListCredential)
    h.clock.advance(25 * 3_600_000)
    expect(await checkRevocation(c.vc_jwt, async () => old, { now: new Date(h.clock.now()) })).toMatchObject({
      status: 'unknown',
      reason: expect.stringMatching(/the status list is stale/),
    })
  })

  it('an independent VC library (did-jwt-vc with key-did-resolver) verifies a VC-JWT carrying credentialStatus', async () => {
    const c = await issue()
    const resolver = new Resolver(keyDidResolver())
    // did-jwt-vc knows the VC 1.1 JWT encoding only: its format policy is off for this VC 2.0 payload.
    const verified = await verifyVcJwt(c.vc_jwt, resolver, { policies: { format: false } })
    expect(verified.issuer).toBe(c.issuer_did)
    expect(verified.payload.credentialStatus).toEqual(c.credential_status)
    expect(verified.signer.controller).toBe(c.issuer_did)
    // So does the status list credential itself.
    const list = await verifyVcJwt(await listText(c.credential_status[0].statusListCredential), resolver, {
      policies: { format: false },
    })
    expect(list.issuer).toBe(c.issuer_did)
    // And a tampered credential fails.
    const [head, body, sig] = c.vc_jwt.split('.')
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(c.vc_jwt), sub: 'did:web:x:mallory' })).toString(
      'base64url',
    )
    await expect(
      verifyVcJwt(`${head}.${forged}.${sig}`, resolver, { policies: { format: false } }),
    ).rejects.toThrow()
    // The forgery differs from the genuine credential in its payload alone, and the genuine one verifies.
    expect(forged).not.toBe(body)
    const genuine = await verifyVcJwt(`${head}.${body}.${sig}`, resolver, { policies: { format: false } })
    expect(genuine.issuer).toBe(c.issuer_did)
  })
})

describe('credentials issued before status lists', () => {
  it('keep verifying by signature, show credential_status null, and revoke as before (record only)', async () => {
    const us = await h.ctx.db
      .selectFrom('jurisdictions')
      .selectAll()
      .where('jurisdiction_id', '=', 'US')
      .executeTakeFirstOrThrow()
    // A credential as migration 0002 left it: a VC without credentialStatus, no list entry.
    const vc_jwt = await h.ctx.signingKeys.signCredential(us, {
      id: 'urn:rwa:credential:cred_OLD',
      subject: OWNER,
      issuedAt: h.clock.now(),
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential', 'PropertyOwnershipCredential'],
      issuer: us.issuer_did,
      validFrom: '2026-01-15T12:00:00.000Z',
      credentialSubject: { id: OWNER, jurisdiction: 'US', property: PROPERTY },
    })
    await h.ctx.db
      .insertInto('credentials')
      .values({
        credential_id: 'cred_OLD',
        org_id: 'admin',
        jurisdiction: 'US',
        owner_did: OWNER,
        property_data: JSON.stringify(PROPERTY),
        status: 'active',
        issuer_did: us.issuer_did,
        issued_at: '2026-01-15T12:00:00.000Z',
        valid_until: null,
        revoked_at: null,
        revocation_reason: null,
        vc_jwt,
        status_list_id: null,
        status_list_index: null,
      })
      .execute()
    const old = await expectStatus(h.get('/console/rwa/credentials/cred_OLD'), 200)
    expect(old.credential_status).toBeNull()
    const resolver = new Resolver(keyDidResolver())
    expect((await verifyVcJwt(vc_jwt, resolver, { policies: { format: false } })).issuer).toBe(us.issuer_did)
    const revoked = await expectStatus(h.post('/console/rwa/credentials/cred_OLD/revoke'), 200)
    expect(revoked.status).toBe('revoked')
    expect(await checkRevocation(vc_jwt, listText)).toEqual({
      status: 'unknown',
      reason: 'the credential carries no credentialStatus (issued before status lists)',
    })
    expect(await h.ctx.db.selectFrom('status_list_revocations').selectAll().execute()).toEqual([])
  })
})
