import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  jurisdictionSchema,
  listTrustResponseSchema,
  type Proof,
  proofSchema,
  type TrustBundle,
  trustBundleSchema,
  trustRelationSchema,
} from '../../../src/contract/rwa.js'
import { verifyProofTrusted } from '../../../src/proof/verify.js'
import { MINUTE_MS } from '../../../server/platform/clock.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { buildWorld, expectStatus, OWNER, PROPERTY, SG, transferBody, US } from '../../support/governance.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const DID_KEY = /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}$/

describe('POST /console/rwa/jurisdictions', () => {
  it('registers a jurisdiction with a generated did:key, field by field', async () => {
    const res = await h.post('/console/rwa/jurisdictions', US)
    expect(res.status).toBe(201)
    const j = jurisdictionSchema.parse(res.body)
    expect(j).toEqual({
      ...US,
      external_only: [],
      issuer_did: expect.stringMatching(DID_KEY),
      created_at: '2026-01-15T12:00:00.000Z',
      updated_at: '2026-01-15T12:00:00.000Z',
    })
    const other = await expectStatus(h.post('/console/rwa/jurisdictions', SG), 201)
    expect(other.issuer_did).not.toBe(j.issuer_did)
    expect(await expectStatus(h.get('/console/rwa/jurisdictions/US'), 200)).toEqual(j)
  })

  it('defaults frameworks and requirements to none and accepts both credential types', async () => {
    const j = await expectStatus(
      h.post('/console/rwa/jurisdictions', {
        jurisdiction_id: 'HK',
        name: 'Hong Kong',
        regulatory_body: 'SFC',
      }),
      201,
    )
    expect(j).toMatchObject({
      frameworks: [],
      credential_types: ['PropertyOwnership', 'RegulatoryAttestation'],
      transfer_requirements: [],
    })
  })

  it('refuses a duplicate id with 409 and invalid fields with 400 naming them', async () => {
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    const dup = await h.post('/console/rwa/jurisdictions', US)
    expect(dup.status).toBe(409)
    expect(dup.body).toMatchObject({ code: 'conflict', detail: 'Jurisdiction US is already registered' })
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...SG, jurisdiction_id: 'S G' }, 'jurisdiction_id'],
      [{ ...SG, jurisdiction_id: 'trust' }, 'jurisdiction_id'],
      [{ ...SG, name: '' }, 'name'],
      [{ ...SG, transfer_requirements: ['KYC'] }, 'transfer_requirements.0'],
      [{ ...SG, transfer_requirements: ['kyc', 'kyc'] }, 'transfer_requirements'],
      [{ ...SG, frameworks: 'SFA' }, 'frameworks'],
      [{ ...SG, colour: 'red' }, 'colour'],
    ]
    for (const [body, path] of cases) {
      const res = await h.post('/console/rwa/jurisdictions', body)
      expect(res.status, path).toBe(400)
      expect(
        res.body.errors.map((e: any) => e.path),
        path,
      ).toEqual([path])
    }
    const { regulatory_body: _, ...missing } = SG
    const res = await h.post('/console/rwa/jurisdictions', missing)
    expect(res.body.errors.map((e: any) => e.path)).toEqual(['regulatory_body'])
  })

  it('never puts a private key in a response: the database holds it, the API does not', async () => {
    const j = await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    const row = await h.ctx.db
      .selectFrom('jurisdictions')
      .select('private_key')
      .where('jurisdiction_id', '=', 'US')
      .executeTakeFirstOrThrow()
    expect(row.private_key.length).toBeGreaterThan(40)
    const texts = [
      JSON.stringify(j),
      (await h.get('/console/rwa/jurisdictions/US')).text,
      (await h.get('/console/rwa/jurisdictions')).text,
      (
        await h.request('PUT', '/console/rwa/jurisdictions/US', {
          body: { name: 'USA', regulatory_body: 'SEC' },
        })
      ).text,
    ]
    for (const text of texts) {
      expect(text).not.toContain(row.private_key)
      expect(text).not.toMatch(/private|"d":/)
    }
  })
})

describe('GET /console/rwa/jurisdictions', () => {
  it('lists newest first with total and cursor paging', async () => {
    for (const id of ['AA', 'BB', 'CC']) {
      await expectStatus(h.post('/console/rwa/jurisdictions', { ...US, jurisdiction_id: id }), 201)
      h.clock.advance(MINUTE_MS)
    }
    const all = await expectStatus(h.get('/console/rwa/jurisdictions'), 200)
    expect(all.jurisdictions.map((j: any) => j.jurisdiction_id)).toEqual(['CC', 'BB', 'AA'])
    expect(all).toMatchObject({ total: 3, next_cursor: null })
    const first = await expectStatus(h.get('/console/rwa/jurisdictions', { query: { limit: 1 } }), 200)
    expect(first.jurisdictions.map((j: any) => j.jurisdiction_id)).toEqual(['CC'])
    expect(first.total).toBe(3)
    const second = await expectStatus(
      h.get('/console/rwa/jurisdictions', { query: { limit: 2, cursor: first.next_cursor } }),
      200,
    )
    expect(second.jurisdictions.map((j: any) => j.jurisdiction_id)).toEqual(['BB', 'AA'])
    expect(second.next_cursor).toBeNull()
    expect((await h.get('/console/rwa/jurisdictions', { query: { limit: 'x' } })).status).toBe(400)
  })
})

describe('PUT /console/rwa/jurisdictions/{id}', () => {
  it('replaces the mutable fields and keeps id, key and created_at', async () => {
    const before = await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    h.clock.advance(MINUTE_MS)
    const body = { name: 'USA', regulatory_body: 'SEC and FINRA', transfer_requirements: ['kyc'] }
    const after = await expectStatus(h.request('PUT', '/console/rwa/jurisdictions/US', { body }), 200)
    expect(after).toEqual({
      ...before,
      ...body,
      frameworks: [],
      credential_types: ['PropertyOwnership', 'RegulatoryAttestation'],
      updated_at: '2026-01-15T12:01:00.000Z',
    })
    expect(await expectStatus(h.get('/console/rwa/jurisdictions/US'), 200)).toEqual(after)
  })

  it('answers 404 for an unknown id and 400 for an id in the body', async () => {
    const missing = await h.request('PUT', '/console/rwa/jurisdictions/JP', {
      body: { name: 'Japan', regulatory_body: 'FSA' },
    })
    expect(missing.status).toBe(404)
    expect(missing.body.detail).toBe('No jurisdiction with id JP')
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    const withId = await h.request('PUT', '/console/rwa/jurisdictions/US', {
      body: { jurisdiction_id: 'US', name: 'USA', regulatory_body: 'SEC' },
    })
    expect(withId.status).toBe(400)
    expect(withId.body.errors).toEqual([{ path: 'jurisdiction_id', message: 'Unknown field' }])
  })
})

describe('DELETE /console/rwa/jurisdictions/{id}', () => {
  it('removes an unused jurisdiction', async () => {
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    expect(await expectStatus(h.request('DELETE', '/console/rwa/jurisdictions/US'), 200)).toEqual({
      status: 'removed',
      jurisdiction_id: 'US',
    })
    expect((await h.get('/console/rwa/jurisdictions/US')).status).toBe(404)
    expect((await h.request('DELETE', '/console/rwa/jurisdictions/US')).status).toBe(404)
  })

  it('refuses with 409 naming what still uses it', async () => {
    await buildWorld(h)
    const us = await h.request('DELETE', '/console/rwa/jurisdictions/US')
    expect(us.status).toBe(409)
    expect(us.body.detail).toBe(
      'Jurisdiction US is still in use by 1 credential, 4 attestations, 1 token, 1 token holding, 1 active trust relation; credentials, attestations and tokens keep a jurisdiction for good (they are its audit trail), so it cannot be removed',
    )
    const sg = await h.request('DELETE', '/console/rwa/jurisdictions/SG')
    expect(sg.status).toBe(409)
    expect(sg.body.detail).toBe(
      'Jurisdiction SG is still in use by 1 active trust relation; revoke its trust relations first',
    )
    await expectStatus(
      h.request('DELETE', '/console/rwa/jurisdictions/trust', {
        body: { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
      }),
      200,
    )
    expect((await h.request('DELETE', '/console/rwa/jurisdictions/SG')).status).toBe(200)
  })
})

describe('a jurisdiction keeps its issuer key for life', () => {
  const HK = { jurisdiction_id: 'HK', name: 'Hong Kong', regulatory_body: 'SFC' }
  const bundle = async (): Promise<TrustBundle> =>
    trustBundleSchema.parse(await expectStatus(h.get('/console/rwa/trust-bundle'), 200))
  /** A transfer from US to HK (no trust between them: rejected, nothing moves) and its signed proof. */
  const proofIntoHk = async (tokenId: string): Promise<Proof> => {
    const transfer = await expectStatus(
      h.post('/console/rwa/transfers', transferBody(tokenId, 10, { to_jurisdiction: 'HK' })),
      201,
    )
    expect(transfer.status).toBe('rejected')
    return proofSchema.parse(await expectStatus(h.get(`/console/rwa/proofs/${transfer.proof_id}`), 200))
  }
  const holds = async (proof: Proof, trust: TrustBundle) => {
    const verdict = await verifyProofTrusted(proof, trust)
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ valid: true })
  }

  it('removed, its key stays in the trust bundle; registered again, the id gets the same key back, and its proofs verify offline throughout', async () => {
    const w = await buildWorld(h)
    const registered = await expectStatus(h.post('/console/rwa/jurisdictions', HK), 201)
    h.clock.advance(MINUTE_MS)
    const proof = await proofIntoHk(w.tokenId)
    expect(proof.issuers).toMatchObject({ HK: registered.issuer_did })
    await holds(proof, await bundle())

    h.clock.advance(MINUTE_MS)
    const removedAt = new Date(h.clock.now()).toISOString()
    await expectStatus(h.request('DELETE', '/console/rwa/jurisdictions/HK'), 200)
    expect((await h.get('/console/rwa/jurisdictions/HK')).status).toBe(404)
    const afterRemoval = await bundle()
    expect(afterRemoval.issuers.find((i) => i.jurisdiction_id === 'HK')).toEqual({
      jurisdiction_id: 'HK',
      issuer_did: registered.issuer_did,
      valid_from: registered.created_at,
      valid_until: removedAt,
      removed_at: removedAt,
    })
    await holds(proof, afterRemoval)

    h.clock.advance(MINUTE_MS)
    const again = await expectStatus(
      h.post('/console/rwa/jurisdictions', { ...HK, name: 'Hong Kong SAR' }),
      201,
    )
    expect(again).toMatchObject({
      name: 'Hong Kong SAR',
      issuer_did: registered.issuer_did,
      created_at: new Date(h.clock.now()).toISOString(),
    })
    const restored = await bundle()
    // Valid from its first registration, so what it was named in before keeps verifying.
    expect(restored.issuers.find((i) => i.jurisdiction_id === 'HK')).toEqual({
      jurisdiction_id: 'HK',
      issuer_did: registered.issuer_did,
      valid_from: registered.created_at,
      valid_until: null,
    })
    expect(restored.issuers.filter((i) => i.jurisdiction_id === 'HK')).toHaveLength(1)
    await holds(proof, restored)
    const later = await proofIntoHk(w.tokenId)
    await holds(later, restored)

    const events = (await expectStatus(h.get('/console/audit', { query: { target_id: 'HK' } }), 200)).events
    expect(events.map((e: any) => e.action)).toEqual([
      'jurisdiction.registered',
      'jurisdiction.removed',
      'jurisdiction.registered',
    ])
    expect(events[0].changes).toEqual({
      before: null,
      after: { issuer_did: registered.issuer_did, key_restored: true },
    })
  })

  it('the key kept is sealed like every key, and another organization registering the id gets a key of its own', async () => {
    const first = await expectStatus(h.post('/console/rwa/jurisdictions', HK), 201)
    await expectStatus(h.request('DELETE', '/console/rwa/jurisdictions/HK'), 200)
    const kept = await h.ctx.db.selectFrom('removed_jurisdictions').selectAll().execute()
    expect(kept).toHaveLength(1)
    expect(kept[0]!.private_key).toMatch(/^rwa-aes256gcm-v1:/)
    const lion = await h.createOrg('lion', { trial: true })
    const theirs = await expectStatus(h.post('/console/rwa/jurisdictions', HK, { key: lion.key }), 201)
    expect(theirs.issuer_did).not.toBe(first.issuer_did)
    const again = await expectStatus(h.post('/console/rwa/jurisdictions', HK), 201)
    expect(again.issuer_did).toBe(first.issuer_did)
    expect(await h.ctx.db.selectFrom('removed_jurisdictions').selectAll().execute()).toEqual([])
  })

  it('registered again through two instances at once: one gets the key back, the other is 409', async () => {
    const first = await expectStatus(h.post('/console/rwa/jurisdictions', HK), 201)
    await expectStatus(h.request('DELETE', '/console/rwa/jurisdictions/HK'), 200)
    const other = await h.newInstance()
    const answers = await Promise.all([
      h.post('/console/rwa/jurisdictions', HK),
      other.post('/console/rwa/jurisdictions', HK),
    ])
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409])
    expect(answers.find((a) => a.status === 201)!.body.issuer_did).toBe(first.issuer_did)
    expect(answers.find((a) => a.status === 409)!.body.reason).toBe('jurisdiction_exists')
    expect(
      (await bundle()).issuers.filter((i) => i.jurisdiction_id === 'HK').map((i) => i.issuer_did),
    ).toEqual([first.issuer_did])
  })
})

describe('trust: POST, GET and DELETE /console/rwa/jurisdictions/trust', () => {
  beforeEach(async () => {
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    await expectStatus(h.post('/console/rwa/jurisdictions', SG), 201)
  })

  it('establishes a one-way relation, lists it, and revokes it', async () => {
    const res = await h.post('/console/rwa/jurisdictions/trust', {
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
    })
    expect(res.status).toBe(201)
    const t = trustRelationSchema.parse(res.body)
    expect(t).toEqual({
      trust_id: expect.stringMatching(/^trust_/),
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      mutual: false,
      status: 'active',
      created_at: '2026-01-15T12:00:00.000Z',
      revoked_at: null,
    })
    const list = listTrustResponseSchema.parse(
      await expectStatus(h.get('/console/rwa/jurisdictions/trust'), 200),
    )
    expect(list).toEqual({ trust_relations: [t], total: 1, next_cursor: null })

    // Directed: there is no trust from SG to US to revoke.
    const wrongWay = await h.request('DELETE', '/console/rwa/jurisdictions/trust', {
      body: { from_jurisdiction: 'SG', to_jurisdiction: 'US' },
    })
    expect(wrongWay.status).toBe(404)
    expect(wrongWay.body.detail).toBe(
      `No active trust from SG to US (there is one from US to SG: ${t.trust_id})`,
    )

    h.clock.advance(MINUTE_MS)
    const revoked = await expectStatus(
      h.request('DELETE', '/console/rwa/jurisdictions/trust', {
        query: { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
      }),
      200,
    )
    expect(revoked).toEqual({
      status: 'revoked',
      trust_id: t.trust_id,
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      mutual: false,
      revoked_at: '2026-01-15T12:01:00.000Z',
    })
    const after = await expectStatus(h.get('/console/rwa/jurisdictions/trust'), 200)
    expect(after.trust_relations[0]).toMatchObject({
      status: 'revoked',
      revoked_at: '2026-01-15T12:01:00.000Z',
    })
    const active = await expectStatus(
      h.get('/console/rwa/jurisdictions/trust', { query: { status: 'active' } }),
      200,
    )
    expect(active.total).toBe(0)
    const again = await h.request('DELETE', '/console/rwa/jurisdictions/trust', {
      body: { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
    })
    expect(again.status).toBe(404)
    // Once revoked, it can be established again.
    expect(
      (await h.post('/console/rwa/jurisdictions/trust', { from_jurisdiction: 'US', to_jurisdiction: 'SG' }))
        .status,
    ).toBe(201)
  })

  it('refuses trust twice with 409, in either direction, mutual or not', async () => {
    const first = await expectStatus(
      h.post('/console/rwa/jurisdictions/trust', {
        from_jurisdiction: 'US',
        to_jurisdiction: 'SG',
        mutual: true,
      }),
      201,
    )
    for (const body of [
      { from_jurisdiction: 'US', to_jurisdiction: 'SG', mutual: true },
      { from_jurisdiction: 'SG', to_jurisdiction: 'US' },
    ]) {
      const res = await h.post('/console/rwa/jurisdictions/trust', body)
      expect(res.status).toBe(409)
      expect(res.body.detail).toBe(
        `Trust between ${body.from_jurisdiction} and ${body.to_jurisdiction} already exists (${first.trust_id}, mutual); revoke it first to change it`,
      )
    }
    // A mutual relation is revoked from either end.
    const revoked = await expectStatus(
      h.request('DELETE', '/console/rwa/jurisdictions/trust', {
        body: { from_jurisdiction: 'SG', to_jurisdiction: 'US' },
      }),
      200,
    )
    expect(revoked).toMatchObject({ trust_id: first.trust_id, mutual: true })
  })

  it('answers 404 for an unknown jurisdiction and 400 for a bad pair', async () => {
    const unknown = await h.post('/console/rwa/jurisdictions/trust', {
      from_jurisdiction: 'US',
      to_jurisdiction: 'JP',
    })
    expect(unknown.status).toBe(404)
    expect(unknown.body.detail).toBe('No jurisdiction with id JP')
    const same = await h.post('/console/rwa/jurisdictions/trust', {
      from_jurisdiction: 'US',
      to_jurisdiction: 'US',
    })
    expect(same.status).toBe(400)
    expect(same.body.errors).toEqual([
      { path: 'to_jurisdiction', message: 'must differ from from_jurisdiction' },
    ])
    const noPair = await h.request('DELETE', '/console/rwa/jurisdictions/trust')
    expect(noPair.status).toBe(400)
    expect(noPair.body.errors.map((e: any) => e.path).sort()).toEqual([
      'from_jurisdiction',
      'to_jurisdiction',
    ])
    const mutualFlag = await h.post('/console/rwa/jurisdictions/trust', {
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      mutual: 'yes',
    })
    expect(mutualFlag.body.errors.map((e: any) => e.path)).toEqual(['mutual'])
  })

  it('is not mistaken for a jurisdiction id', async () => {
    expect((await h.get('/console/rwa/jurisdictions/trust')).body).toHaveProperty('trust_relations')
    await expectStatus(
      h.post('/console/rwa/credentials', { jurisdiction: 'US', owner_did: OWNER, property_data: PROPERTY }),
      201,
    )
  })
})
