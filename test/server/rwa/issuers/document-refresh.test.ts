import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { didKeyOf } from '../../../../src/proof/did-key.js'
import { refreshIssuerDocuments } from '../../../../server/areas/rwa/issuers/background.js'
import { buildWorld, expectStatus } from '../../../support/governance.js'
import { createHarness, type Harness } from '../../../support/harness.js'
import { ed25519Pair, TestIssuer } from '../../../support/test-issuer.js'

/*
 * Trusted issuers' DID documents fetched again in the background (docs/issuers.md, "Keys"): an active
 * did:web issuer resolved over an hour ago is resolved again as a refresh would, its keys kept for life,
 * the change recorded by the system; did:key, suspended and removed issuers are left alone, and a
 * document that cannot be had changes nothing and is tried again an hour later.
 */

const ISSUERS = '/console/rwa/issuers'
const HOUR = 3_600_000
let h: Harness
let provider: TestIssuer

const register = (issuer_id: string, did: string) =>
  expectStatus(
    h.post(ISSUERS, {
      issuer_id,
      name: issuer_id,
      did,
      requirements: { kyc: ['KYCCredential'] },
      jurisdictions: ['US'],
    }),
    201,
  )

const documentFetches = () => provider.count('/.well-known/did.json')

beforeEach(async () => {
  h = await createHarness({ allowHttpIssuers: true })
  provider = await TestIssuer.start({ now: () => new Date(h.clock.now()) })
  await buildWorld(h)
  await register('acme-kyc', provider.did)
})
afterEach(async () => {
  await provider.stop()
  await h.close()
})

describe('DID documents refreshed in the background', () => {
  it('an hour after the last resolution: a rotated-out key retired, the new one added, by the system', async () => {
    const [first] = provider.keys
    const second = provider.rotateKey()
    const before = documentFetches()
    expect(await refreshIssuerDocuments(h.ctx, 'inst_a')).toEqual({ resolved: 0, failed: 0 })
    expect(documentFetches()).toBe(before)
    h.clock.advance(HOUR)
    expect(await refreshIssuerDocuments(h.ctx, 'inst_a')).toEqual({ resolved: 1, failed: 0 })
    expect(documentFetches()).toBe(before + 1)
    const now = new Date(h.clock.now()).toISOString()
    const issuer = await expectStatus(h.get(`${ISSUERS}/acme-kyc`), 200)
    expect(issuer.resolved_at).toBe(now)
    expect(issuer.keys).toEqual([
      expect.objectContaining({ kid: first!.kid, retired_at: now }),
      expect.objectContaining({ kid: second.kid, first_seen_at: now, retired_at: null }),
    ])
    const events = (
      await expectStatus(h.get('/console/audit', { query: { action: 'issuer.keys_changed' } }), 200)
    ).events as any[]
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      actor: { system: 'issuer_refresh' },
      request_id: null,
      target: { type: 'issuer', id: 'acme-kyc' },
    })
    // Nothing changed an hour later: resolved again, nothing recorded.
    h.clock.advance(HOUR)
    expect(await refreshIssuerDocuments(h.ctx, 'inst_a')).toEqual({ resolved: 1, failed: 0 })
    const later = await expectStatus(
      h.get('/console/audit', { query: { action: 'issuer.keys_changed' } }),
      200,
    )
    expect(later.events).toHaveLength(1)
    expect(h.loggedErrors).toEqual([])
  })

  it('leaves did:key, suspended and removed issuers alone', async () => {
    const pair = ed25519Pair()
    await register('keyed', didKeyOf(Buffer.from(pair.publicJwk.x, 'base64url')))
    await register('paused', provider.did)
    await register('gone', provider.did)
    await expectStatus(h.request('PATCH', `${ISSUERS}/paused`, { body: { status: 'suspended' } }), 200)
    await expectStatus(h.request('DELETE', `${ISSUERS}/gone`), 200)
    const before = documentFetches()
    h.clock.advance(HOUR)
    // acme-kyc alone.
    expect(await refreshIssuerDocuments(h.ctx, 'inst_a')).toEqual({ resolved: 1, failed: 0 })
    expect(documentFetches()).toBe(before + 1)
    for (const id of ['keyed', 'paused', 'gone']) {
      const issuer = await expectStatus(h.get(`${ISSUERS}/${id}`), 200)
      expect(issuer.resolved_at, id).toBe(issuer.created_at)
    }
  })

  it('changes nothing when the document cannot be had, and tries again an hour later, not at every run', async () => {
    const attempted = new Map<string, number>()
    const stored = await expectStatus(h.get(`${ISSUERS}/acme-kyc`), 200)
    provider.unreachable = true
    h.clock.advance(HOUR)
    const before = documentFetches()
    expect(await refreshIssuerDocuments(h.ctx, 'inst_a', { attempted })).toEqual({ resolved: 0, failed: 1 })
    expect(await refreshIssuerDocuments(h.ctx, 'inst_a', { attempted })).toEqual({ resolved: 0, failed: 0 })
    expect(documentFetches()).toBe(before + 1)
    expect(await expectStatus(h.get(`${ISSUERS}/acme-kyc`), 200)).toEqual(stored)
    provider.unreachable = false
    h.clock.advance(HOUR)
    expect(await refreshIssuerDocuments(h.ctx, 'inst_a', { attempted })).toEqual({ resolved: 1, failed: 0 })
  })

  it('runs on one instance at a time', async () => {
    const other = await h.newInstance({ allowHttpIssuers: true })
    const before = documentFetches()
    h.clock.advance(HOUR)
    const outcomes = await Promise.all([
      refreshIssuerDocuments(h.ctx, 'inst_a'),
      refreshIssuerDocuments(other.ctx, 'inst_b'),
    ])
    expect(outcomes.map((o) => o.resolved).sort()).toEqual([0, 1])
    expect(documentFetches()).toBe(before + 1)
  })
})
