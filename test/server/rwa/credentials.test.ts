import { compactVerify, decodeProtectedHeader, importJWK, jwtVerify } from 'jose'
import { base58btc } from 'multiformats/bases/base58'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { attestationSchema, credentialSchema, tokenDetailSchema } from '../../../src/contract/rwa.js'
import { DAY_MS, utcDate } from '../../../server/platform/clock.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { expectStatus, OWNER, PROPERTY, RECIPIENT, SG, US } from '../../support/governance.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
  await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
  await expectStatus(h.post('/console/rwa/jurisdictions', SG), 201)
})
afterEach(() => h.close())

const issue = (extra: Record<string, unknown> = {}, key = h.adminKey) =>
  h.post(
    '/console/rwa/credentials',
    { jurisdiction: 'US', owner_did: OWNER, property_data: PROPERTY, ...extra },
    { key },
  )

/** The public key of a did:key, derived from the DID alone: base58btc, strip 0xed01, import as OKP. */
async function keyFromDid(did: string) {
  const bytes = base58btc.decode(did.slice('did:key:'.length))
  expect([bytes[0], bytes[1]]).toEqual([0xed, 0x01])
  const x = Buffer.from(bytes.slice(2)).toString('base64url')
  return importJWK({ kty: 'OKP', crv: 'Ed25519', x }, 'EdDSA')
}

describe('POST /console/rwa/credentials', () => {
  it('issues a property credential, field by field', async () => {
    const res = await issue({ valid_until: '2030-01-01T00:00:00.000Z' })
    expect(res.status).toBe(201)
    const c = credentialSchema.parse(res.body)
    const us = await expectStatus(h.get('/console/rwa/jurisdictions/US'), 200)
    expect(c).toEqual({
      credential_id: expect.stringMatching(/^cred_[0-9A-Z]{26}$/),
      type: 'PropertyOwnership',
      jurisdiction: 'US',
      owner_did: OWNER,
      property_data: PROPERTY,
      status: 'active',
      issuer_did: us.issuer_did,
      issued_at: '2026-01-15T12:00:00.000Z',
      valid_until: '2030-01-01T00:00:00.000Z',
      revoked_at: null,
      revocation_reason: null,
      vc_jwt: expect.any(String),
      credential_status: [
        {
          id: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4600\/console\/rwa\/status\/sl_[0-9A-Z]{26}#\d+$/),
          type: 'BitstringStatusListEntry',
          statusPurpose: 'revocation',
          statusListIndex: expect.stringMatching(/^(0|[1-9]\d*)$/),
          statusListCredential: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4600\/console\/rwa\/status\/sl_/),
        },
        {
          id: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4600\/console\/rwa\/status\/sl_[0-9A-Z]{26}#\d+$/),
          type: 'BitstringStatusListEntry',
          statusPurpose: 'suspension',
          statusListIndex: expect.stringMatching(/^(0|[1-9]\d*)$/),
          statusListCredential: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4600\/console\/rwa\/status\/sl_/),
        },
      ],
    })
    expect(await expectStatus(h.get(`/console/rwa/credentials/${c.credential_id}`), 200)).toEqual(c)
  })

  it('stores valid_until given with an offset as UTC', async () => {
    const c = await expectStatus(issue({ valid_until: '2030-01-01T08:00:00+08:00' }), 201)
    expect(c.valid_until).toBe('2030-01-01T00:00:00.000Z')
  })

  it('carries a VC 2.0 JWT that jose verifies with a key derived from the did:key alone', async () => {
    const c = await expectStatus(issue({ valid_until: '2030-01-01T00:00:00.000Z' }), 201)
    const header = decodeProtectedHeader(c.vc_jwt)
    expect(header).toEqual({
      alg: 'EdDSA',
      typ: 'vc+jwt',
      kid: `${c.issuer_did}#${c.issuer_did.slice('did:key:'.length)}`,
    })
    const { payload } = await jwtVerify(c.vc_jwt, await keyFromDid(c.issuer_did), {
      typ: 'vc+jwt',
      algorithms: ['EdDSA'],
      currentDate: new Date('2026-01-15T12:00:00Z'),
    })
    expect(payload).toMatchObject({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential', 'PropertyOwnershipCredential'],
      id: `urn:rwa:credential:${c.credential_id}`,
      issuer: c.issuer_did,
      validFrom: '2026-01-15T12:00:00.000Z',
      validUntil: '2030-01-01T00:00:00.000Z',
      credentialSubject: { id: OWNER, jurisdiction: 'US', property: PROPERTY },
      iss: c.issuer_did,
      sub: OWNER,
    })
    // Another jurisdiction's key does not verify it.
    const sg = await expectStatus(h.get('/console/rwa/jurisdictions/SG'), 200)
    await expect(compactVerify(c.vc_jwt, await keyFromDid(sg.issuer_did))).rejects.toThrow()
    // Nor does a tampered payload.
    const [head, body, sig] = c.vc_jwt.split('.')
    const forged = Buffer.from(
      JSON.stringify({ ...payload, credentialSubject: { id: 'did:web:evil:mallory' } }),
    ).toString('base64url')
    await expect(compactVerify(`${head}.${forged}.${sig}`, await keyFromDid(c.issuer_did))).rejects.toThrow()
    // The forgery differs from the genuine token in its payload alone, and the genuine one verifies.
    expect(forged).not.toBe(body)
    await expect(
      compactVerify(`${head}.${body}.${sig}`, await keyFromDid(c.issuer_did)),
    ).resolves.toMatchObject({
      protectedHeader: { alg: 'EdDSA', typ: 'vc+jwt' },
    })
  })

  it('answers 404 for an unknown jurisdiction and 422 when it does not accept PropertyOwnership', async () => {
    const unknown = await issue({ jurisdiction: 'JP' })
    expect(unknown.status).toBe(404)
    expect(unknown.body.detail).toBe('No jurisdiction with id JP')
    await expectStatus(
      h.post('/console/rwa/jurisdictions', {
        ...SG,
        jurisdiction_id: 'KY',
        credential_types: ['RegulatoryAttestation'],
      }),
      201,
    )
    const refused = await issue({ jurisdiction: 'KY' })
    expect(refused.status).toBe(422)
    expect(refused.body.code).toBe('unprocessable')
    expect(refused.body.detail).toMatch(/^Jurisdiction KY does not accept PropertyOwnership credentials/)
    const past = await issue({ valid_until: '2020-01-01T00:00:00Z' })
    expect(past.status).toBe(422)
    expect(past.body.errors).toEqual([{ path: 'valid_until', message: 'must be in the future' }])
  })

  it('validates the owner DID shape and the property data, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ owner_did: 'did:web:alice' }, 'owner_did'],
      [{ owner_did: 'alice' }, 'owner_did'],
      [{ property_data: { ...PROPERTY, value_usd: -5 } }, 'property_data.value_usd'],
      [{ property_data: { ...PROPERTY, value_usd: '100' } }, 'property_data.value_usd'],
      [{ property_data: { ...PROPERTY, title_deed: undefined } }, 'property_data.title_deed'],
      [{ property_data: { ...PROPERTY, floors: 3 } }, 'property_data.floors'],
      [{ jurisdiction: undefined }, 'jurisdiction'],
    ]
    for (const [extra, path] of cases) {
      const res = await issue(extra)
      expect(res.status, path).toBe(400)
      expect(
        res.body.errors.map((e: any) => e.path),
        path,
      ).toEqual([path])
    }
  })

  it('counts a new owner DID as a DID created, once, in usage', async () => {
    await expectStatus(issue(), 201)
    await expectStatus(issue({ property_data: { ...PROPERTY, title_deed: 'SF-2' } }), 201)
    await expectStatus(
      issue({ owner_did: 'did:web:acme:zoe', property_data: { ...PROPERTY, title_deed: 'SF-3' } }),
      201,
    )
    const usage = await expectStatus(h.get('/console/billing/usage/admin', { query: { days: 1 } }), 200)
    expect(usage.totals.total_dids_created).toBe(2)
    expect(usage.daily_usage).toEqual([
      expect.objectContaining({ date: utcDate(h.clock.now()), dids_created: 2 }),
    ])
  })

  it('enforces max_dids with 403 quota_exceeded and counts nothing for the refused one', async () => {
    // A trial organization has Pro limits: 10,000 DIDs. Fill it up to the limit directly in the table.
    const org = await h.createOrg('acme', { trial: true })
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: org.key }), 201)
    const rows = Array.from({ length: 9_999 }, (_, i) => ({
      org_id: 'acme',
      did: `did:web:seed:${i}`,
      created_at: '2026-01-01T00:00:00.000Z',
    }))
    for (let i = 0; i < rows.length; i += 500)
      await h.ctx.db
        .insertInto('rwa_dids')
        .values(rows.slice(i, i + 500))
        .execute()
    await expectStatus(issue({}, org.key), 201) // the 10,000th
    const refused = await issue(
      { owner_did: 'did:web:acme:one-too-many', property_data: { ...PROPERTY, title_deed: 'SF-2' } },
      org.key,
    )
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('quota_exceeded')
    expect(refused.body.detail).toContain('limit of 10000 DIDs (max_dids)')
    // A known DID is not new: still fine.
    await expectStatus(issue({ property_data: { ...PROPERTY, title_deed: 'SF-3' } }, org.key), 201)
    const list = await expectStatus(h.get('/console/rwa/credentials', { key: org.key }), 200)
    expect(list.total).toBe(2)
    const usage = await expectStatus(
      h.get('/console/billing/usage/acme', { key: org.key, query: { days: 1 } }),
      200,
    )
    expect(usage.totals.total_dids_created).toBe(1)
  })
})

describe('GET /console/rwa/credentials', () => {
  it('filters by jurisdiction, owner_did and status, newest first', async () => {
    const a = await expectStatus(issue(), 201)
    const b = await expectStatus(issue({ jurisdiction: 'SG', owner_did: 'did:web:lion:bob' }), 201)
    const c = await expectStatus(issue({ property_data: { ...PROPERTY, title_deed: 'SF-2' } }), 201)
    await expectStatus(h.post(`/console/rwa/credentials/${c.credential_id}/revoke`), 200)
    const ids = async (query: Record<string, string>) => {
      const body = await expectStatus(h.get('/console/rwa/credentials', { query }), 200)
      return { ids: body.credentials.map((x: any) => x.credential_id), total: body.total }
    }
    expect(await ids({})).toEqual({ ids: [c.credential_id, b.credential_id, a.credential_id], total: 3 })
    expect(await ids({ jurisdiction: 'US' })).toEqual({ ids: [c.credential_id, a.credential_id], total: 2 })
    expect(await ids({ owner_did: 'did:web:lion:bob' })).toEqual({ ids: [b.credential_id], total: 1 })
    expect(await ids({ status: 'revoked' })).toEqual({ ids: [c.credential_id], total: 1 })
    expect(await ids({ status: 'active', jurisdiction: 'US' })).toEqual({ ids: [a.credential_id], total: 1 })
    expect(await ids({ jurisdiction: 'JP' })).toEqual({ ids: [], total: 0 })
    expect((await h.get('/console/rwa/credentials', { query: { status: 'lost' } })).status).toBe(400)
    expect((await h.get('/console/rwa/credentials/cred_nope')).status).toBe(404)
  })
})

describe('POST /console/rwa/credentials/{id}/revoke', () => {
  it('revokes with a reason, freezes its token, and refuses a second revoke with 409', async () => {
    const c = await expectStatus(issue(), 201)
    const token = await expectStatus(
      h.post('/console/rwa/tokenize', { credential_id: c.credential_id, total_supply: 10 }),
      201,
    )
    h.clock.advance(DAY_MS)
    const revoked = credentialSchema.parse(
      await expectStatus(
        h.post(`/console/rwa/credentials/${c.credential_id}/revoke`, { reason: 'title dispute' }),
        200,
      ),
    )
    expect(revoked).toEqual({
      ...c,
      status: 'revoked',
      revoked_at: '2026-01-16T12:00:00.000Z',
      revocation_reason: 'title dispute',
    })
    expect(await expectStatus(h.get(`/console/rwa/credentials/${c.credential_id}`), 200)).toEqual(revoked)
    const t = tokenDetailSchema.parse(await expectStatus(h.get(`/console/rwa/tokens/${token.token_id}`), 200))
    expect(t.status).toBe('frozen')
    const again = await h.post(`/console/rwa/credentials/${c.credential_id}/revoke`)
    expect(again.status).toBe(409)
    expect(again.body.detail).toBe(
      `Credential ${c.credential_id} was already revoked at 2026-01-16T12:00:00.000Z`,
    )
  })

  it('needs no body; refuses unknown fields and unknown ids', async () => {
    const c = await expectStatus(issue(), 201)
    const bad = await h.post(`/console/rwa/credentials/${c.credential_id}/revoke`, { why: 'x' })
    expect(bad.status).toBe(400)
    expect(bad.body.errors).toEqual([{ path: 'why', message: 'Unknown field' }])
    const ok = await expectStatus(h.post(`/console/rwa/credentials/${c.credential_id}/revoke`), 200)
    expect(ok.revocation_reason).toBeNull()
    expect((await h.post('/console/rwa/credentials/cred_nope/revoke')).status).toBe(404)
    // A body that is not JSON is refused cleanly, never a 500.
    const other = await expectStatus(issue(), 201)
    const text = await h.request('POST', `/console/rwa/credentials/${other.credential_id}/revoke`, {
      rawBody: 'reason=fraud',
      headers: { 'content-type': 'text/plain' },
    })
    expect(text.status).toBe(415)
    expect(h.loggedErrors).toEqual([])
    expect((await h.post('/console/rwa/credentials/tok_nope/revoke')).status).toBe(400)
  })
})

describe('attestations', () => {
  it('submits an attestation signed by the jurisdiction, field by field', async () => {
    const c = await expectStatus(issue(), 201)
    const res = await h.post('/console/rwa/attestations', {
      jurisdiction: 'US',
      subject_did: OWNER,
      type: 'title_verification',
      attester: 'First American Title',
      credential_id: c.credential_id,
      evidence: 'deed search 2026-114',
      valid_until: '2027-01-01T00:00:00.000Z',
    })
    expect(res.status).toBe(201)
    const a = attestationSchema.parse(res.body)
    expect(a).toEqual({
      attestation_id: expect.stringMatching(/^att_/),
      source: 'self',
      jurisdiction: 'US',
      subject_did: OWNER,
      type: 'title_verification',
      attester: 'First American Title',
      credential_id: c.credential_id,
      evidence: 'deed search 2026-114',
      issuer_did: c.issuer_did,
      issued_at: '2026-01-15T12:00:00.000Z',
      valid_until: '2027-01-01T00:00:00.000Z',
      vc_jwt: expect.any(String),
      credential_status: [
        {
          id: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4600\/console\/rwa\/status\/sl_[0-9A-Z]{26}#\d+$/),
          type: 'BitstringStatusListEntry',
          statusPurpose: 'revocation',
          statusListIndex: expect.stringMatching(/^(0|[1-9]\d*)$/),
          statusListCredential: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4600\/console\/rwa\/status\/sl_/),
        },
        {
          id: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4600\/console\/rwa\/status\/sl_[0-9A-Z]{26}#\d+$/),
          type: 'BitstringStatusListEntry',
          statusPurpose: 'suspension',
          statusListIndex: expect.stringMatching(/^(0|[1-9]\d*)$/),
          statusListCredential: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4600\/console\/rwa\/status\/sl_/),
        },
      ],
      status: 'active',
      revoked_at: null,
      revocation_reason: null,
    })
    const { payload, protectedHeader } = await jwtVerify(a.vc_jwt, await keyFromDid(a.issuer_did), {
      currentDate: new Date('2026-01-15T12:00:00Z'),
    })
    expect(protectedHeader.typ).toBe('vc+jwt')
    expect(payload).toMatchObject({
      type: ['VerifiableCredential', 'RegulatoryAttestationCredential'],
      issuer: a.issuer_did,
      validUntil: '2027-01-01T00:00:00.000Z',
      credentialSubject: {
        id: OWNER,
        requirement: 'title_verification',
        attester: 'First American Title',
        credential: `urn:rwa:credential:${c.credential_id}`,
      },
    })
    expect(await expectStatus(h.get(`/console/rwa/attestations/${a.attestation_id}`), 200)).toEqual(a)
  })

  it('refuses what the rules do not allow: 400, 404, 422', async () => {
    const base = { jurisdiction: 'SG', subject_did: RECIPIENT, type: 'kyc', attester: 'MAS KYC' }
    const noCredential = await h.post('/console/rwa/attestations', { ...base, type: 'title_verification' })
    expect(noCredential.status).toBe(400)
    expect(noCredential.body.errors).toEqual([
      { path: 'credential_id', message: 'required when type is title_verification' },
    ])
    const unknownType = await h.post('/console/rwa/attestations', { ...base, type: 'horoscope' })
    expect(unknownType.status).toBe(422)
    expect(unknownType.body.errors).toEqual([{ path: 'type', message: 'unknown requirement name' }])
    // A requirement some jurisdiction lists is a valid type.
    await expectStatus(
      h.request('PUT', '/console/rwa/jurisdictions/SG', {
        body: { name: 'Singapore', regulatory_body: 'MAS', transfer_requirements: ['horoscope'] },
      }),
      200,
    )
    await expectStatus(h.post('/console/rwa/attestations', { ...base, type: 'horoscope' }), 201)
    expect((await h.post('/console/rwa/attestations', { ...base, jurisdiction: 'JP' })).status).toBe(404)
    expect((await h.post('/console/rwa/attestations', { ...base, credential_id: 'cred_nope' })).status).toBe(
      404,
    )
    await expectStatus(
      h.post('/console/rwa/jurisdictions', {
        ...SG,
        jurisdiction_id: 'KY',
        credential_types: ['PropertyOwnership'],
      }),
      201,
    )
    const refused = await h.post('/console/rwa/attestations', { ...base, jurisdiction: 'KY' })
    expect(refused.status).toBe(422)
    expect(refused.body.detail).toMatch(/^Jurisdiction KY does not accept RegulatoryAttestation credentials/)
    const past = await h.post('/console/rwa/attestations', { ...base, valid_until: '2026-01-01T00:00:00Z' })
    expect(past.status).toBe(422)
    expect((await h.post('/console/rwa/attestations', { ...base, subject_did: 'bob' })).status).toBe(400)
    expect((await h.get('/console/rwa/attestations/att_nope')).status).toBe(404)
  })

  it('lists with filters jurisdiction, credential_id, subject_did and type', async () => {
    const c = await expectStatus(issue(), 201)
    const post = async (body: Record<string, unknown>) =>
      (await expectStatus(h.post('/console/rwa/attestations', { attester: 'X', ...body }), 201))
        .attestation_id
    const a = await post({ jurisdiction: 'US', subject_did: RECIPIENT, type: 'kyc' })
    const b = await post({ jurisdiction: 'SG', subject_did: RECIPIENT, type: 'aml' })
    const t = await post({
      jurisdiction: 'US',
      subject_did: OWNER,
      type: 'title_verification',
      credential_id: c.credential_id,
    })
    const ids = async (query: Record<string, string>) =>
      (await expectStatus(h.get('/console/rwa/attestations', { query }), 200)).attestations.map(
        (x: any) => x.attestation_id,
      )
    expect(await ids({})).toEqual([t, b, a])
    expect(await ids({ jurisdiction: 'US' })).toEqual([t, a])
    expect(await ids({ credential_id: c.credential_id })).toEqual([t])
    expect(await ids({ subject_did: RECIPIENT })).toEqual([b, a])
    expect(await ids({ type: 'aml' })).toEqual([b])
    expect(await ids({ credential_id: 'cred_nope' })).toEqual([])
    const paged = await expectStatus(h.get('/console/rwa/attestations', { query: { limit: 2 } }), 200)
    expect(paged).toMatchObject({ total: 3, next_cursor: b })
  })
})

describe('tokens', () => {
  it('tokenizes an active credential once: the whole supply with the owner in its jurisdiction', async () => {
    const c = await expectStatus(issue(), 201)
    const res = await h.post('/console/rwa/tokenize', {
      credential_id: c.credential_id,
      total_supply: 1000,
      symbol: 'SF1',
    })
    expect(res.status).toBe(201)
    const t = tokenDetailSchema.parse(res.body)
    expect(t).toEqual({
      token_id: expect.stringMatching(/^tok_/),
      credential_id: c.credential_id,
      jurisdiction: 'US',
      owner_did: OWNER,
      symbol: 'SF1',
      total_supply: 1000,
      supply: 1000,
      status: 'active',
      rules: {
        max_balance_per_holder: null,
        max_holders: null,
        lockup_until: null,
        max_transfer_amount: null,
        daily_volume_per_holder: null,
        min_holding: null,
        transfer_windows: null,
        lockup_days_after_receipt: null,
        max_supply: null,
        country_allow: null,
        country_deny: null,
        max_holders_per_country: null,
        max_ownership_percent: null,
        allowed_categories: null,
      },
      holdings: [{ holder_did: OWNER, jurisdiction: 'US', amount: 1000, frozen_amount: 0, frozen: false }],
      holdings_total: 1,
      created_at: '2026-01-15T12:00:00.000Z',
      governance_history_total: 1,
      frozen_holders: [],
      frozen_holders_total: 0,
      governance_history: [
        {
          event: 'tokenized',
          at: '2026-01-15T12:00:00.000Z',
          details: {
            credential_id: c.credential_id,
            total_supply: 1000,
            holder_did: OWNER,
            jurisdiction: 'US',
            actor_key_id: expect.stringMatching(/^key_/),
          },
        },
      ],
    })
    expect(await expectStatus(h.get(`/console/rwa/tokens/${t.token_id}`), 200)).toEqual(t)
    const twice = await h.post('/console/rwa/tokenize', { credential_id: c.credential_id, total_supply: 5 })
    expect(twice.status).toBe(409)
    expect(twice.body.detail).toBe(`Credential ${c.credential_id} is already tokenized as ${t.token_id}`)
  })

  it('refuses a revoked credential (409), an unknown one (404) and bad input (400)', async () => {
    const c = await expectStatus(issue(), 201)
    await expectStatus(h.post(`/console/rwa/credentials/${c.credential_id}/revoke`), 200)
    const revoked = await h.post('/console/rwa/tokenize', { credential_id: c.credential_id, total_supply: 5 })
    expect(revoked.status).toBe(409)
    expect(revoked.body.detail).toBe(`Credential ${c.credential_id} is revoked and cannot be tokenized`)
    expect(
      (await h.post('/console/rwa/tokenize', { credential_id: 'cred_nope', total_supply: 5 })).status,
    ).toBe(404)
    for (const [body, path] of [
      [{ credential_id: c.credential_id, total_supply: 0 }, 'total_supply'],
      [{ credential_id: c.credential_id, total_supply: 2.5 }, 'total_supply'],
      [{ credential_id: c.credential_id, total_supply: 5, symbol: 'sf' }, 'symbol'],
      [{ total_supply: 5 }, 'credential_id'],
    ] as const) {
      const res = await h.post('/console/rwa/tokenize', body)
      expect(res.status, path).toBe(400)
      expect(res.body.errors.map((e: any) => e.path)).toEqual([path])
    }
  })

  it('lists tokens with holdings, filtered by jurisdiction, owner_did and status', async () => {
    const a = await expectStatus(issue(), 201)
    const b = await expectStatus(issue({ jurisdiction: 'SG', owner_did: 'did:web:lion:bob' }), 201)
    const ta = await expectStatus(
      h.post('/console/rwa/tokenize', { credential_id: a.credential_id, total_supply: 7 }),
      201,
    )
    const tb = await expectStatus(
      h.post('/console/rwa/tokenize', { credential_id: b.credential_id, total_supply: 9 }),
      201,
    )
    await expectStatus(h.post(`/console/rwa/credentials/${a.credential_id}/revoke`), 200)
    const list = await expectStatus(h.get('/console/rwa/tokens'), 200)
    expect(list.tokens.map((t: any) => [t.token_id, t.holdings])).toEqual([
      [
        tb.token_id,
        [{ holder_did: 'did:web:lion:bob', jurisdiction: 'SG', amount: 9, frozen_amount: 0, frozen: false }],
      ],
      [ta.token_id, [{ holder_did: OWNER, jurisdiction: 'US', amount: 7, frozen_amount: 0, frozen: false }]],
    ])
    expect(list).toMatchObject({ total: 2, next_cursor: null })
    const ids = async (query: Record<string, string>) =>
      (await expectStatus(h.get('/console/rwa/tokens', { query }), 200)).tokens.map((t: any) => t.token_id)
    expect(await ids({ jurisdiction: 'SG' })).toEqual([tb.token_id])
    expect(await ids({ owner_did: OWNER })).toEqual([ta.token_id])
    expect(await ids({ status: 'frozen' })).toEqual([ta.token_id])
    expect(await ids({ status: 'active' })).toEqual([tb.token_id])
    expect((await h.get('/console/rwa/tokens/tok_nope')).status).toBe(404)
  })
})
