import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { issuerSchema } from '../../../../src/contract/issuers.js'
import { didKeyOf, verificationMethodOf } from '../../../../src/proof/did-key.js'
import { expectStatus, SG, US } from '../../../support/governance.js'
import { createHarness, type Harness } from '../../../support/harness.js'
import { ed25519Pair, TestIssuer } from '../../../support/test-issuer.js'

/*
 * The trusted issuers registry (docs/issuers.md): registering did:web and did:key issuers, resolution
 * under the address policy, the requirements and jurisdictions checked against the organization's,
 * changes, suspension, removal that keeps the record, and keys kept for life across refreshes.
 */

const ISSUERS = '/console/rwa/issuers'
let h: Harness
let provider: TestIssuer
const servers: Server[] = []

beforeEach(async () => {
  h = await createHarness({ allowHttpIssuers: true })
  await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
  await expectStatus(h.post('/console/rwa/jurisdictions', SG), 201)
  provider = await TestIssuer.start()
})
afterEach(async () => {
  await provider.stop()
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  await h.close()
})

const body = (overrides: Record<string, unknown> = {}) => ({
  issuer_id: 'acme-kyc',
  name: 'Acme KYC',
  did: provider.did,
  requirements: { kyc: ['KYCCredential'], aml: ['AMLCredential'] },
  jurisdictions: ['US', 'SG'],
  ...overrides,
})

/** A loopback server answering every request as `answer` says. */
async function serve(answer: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(answer)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `127.0.0.1%3A${(server.address() as AddressInfo).port}`
}

const auditActions = async (action: string) =>
  (await expectStatus(h.get('/console/audit', { query: { action } }), 200)).events as any[]

describe('POST /console/rwa/issuers', () => {
  it('resolves with no transaction open: a slow issuer holds no other organization’s write', async () => {
    const other = await h.createOrg('other', { trial: true })
    let reached!: () => void
    const asked = new Promise<void>((resolve) => {
      reached = resolve
    })
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const host = await serve(async (_req, res) => {
      reached()
      await held
      res.writeHead(404).end()
    })
    let slowAnswered = false
    const slow = h.post(ISSUERS, body({ did: `did:web:${host}` })).then((res) => {
      slowAnswered = true
      return res
    })
    await asked
    // The registration waits on its issuer's server; another organization writes meanwhile (over SQLite
    // through the one connection the registration's transaction would hold for up to 10 s).
    await expectStatus(h.post('/console/rwa/jurisdictions', US, { key: other.key }), 201)
    expect(slowAnswered).toBe(false)
    release()
    const refused = await slow
    expect([refused.status, refused.body.reason]).toEqual([422, 'issuer_unresolvable'])
  })

  it('registers a did:web issuer, its Ed25519 key read from its document as a JWK', async () => {
    const issuer = await expectStatus(h.post(ISSUERS, body({ valid_until: '2027-01-01T00:00:00.000Z' })), 201)
    expect(issuerSchema.parse(issuer)).toEqual({
      issuer_id: 'acme-kyc',
      name: 'Acme KYC',
      did: provider.did,
      requirements: { kyc: ['KYCCredential'], aml: ['AMLCredential'] },
      jurisdictions: ['US', 'SG'],
      status: 'active',
      keys: [
        {
          kid: `${provider.did}#key-1`,
          jwk: provider.currentKey.publicJwk,
          first_seen_at: '2026-01-15T12:00:00.000Z',
          retired_at: null,
        },
      ],
      created_at: '2026-01-15T12:00:00.000Z',
      updated_at: '2026-01-15T12:00:00.000Z',
      valid_until: '2027-01-01T00:00:00.000Z',
      resolved_at: '2026-01-15T12:00:00.000Z',
    })
    expect(provider.count('/.well-known/did.json')).toBe(1)
    expect(await expectStatus(h.get(`${ISSUERS}/acme-kyc`), 200)).toEqual(issuer)
    const [registered] = await auditActions('issuer.registered')
    expect(registered.target).toEqual({ type: 'issuer', id: 'acme-kyc' })
    const events = await expectStatus(h.get('/console/events', { query: { type: 'issuer.registered' } }), 200)
    expect(events.events[0].data.object).toEqual(issuer)
  })

  it('reads Multikey keys and a DID with a path, and leaves out keys of other types', async () => {
    const other = await TestIssuer.start({ path: ['kyc', 'v1'], keyForm: 'multikey', withP256Key: true })
    try {
      const issuer = await expectStatus(h.post(ISSUERS, body({ did: other.did })), 201)
      expect(issuer.keys).toEqual([
        expect.objectContaining({ kid: `${other.did}#key-1`, jwk: other.currentKey.publicJwk }),
      ])
      expect(other.count('/kyc/v1/did.json')).toBe(1)
    } finally {
      await other.stop()
    }
  })

  it('registers a did:key issuer from the DID alone', async () => {
    const pair = ed25519Pair()
    const did = didKeyOf(Buffer.from(pair.publicJwk.x, 'base64url'))
    const issuer = await expectStatus(h.post(ISSUERS, body({ issuer_id: 'keyed', did })), 201)
    expect(issuer.keys).toEqual([
      expect.objectContaining({ kid: verificationMethodOf(did), jwk: pair.publicJwk }),
    ])
  })

  it('refuses a did:key of another key type, saying what works instead', async () => {
    // A P-256 did:key (multicodec 0x1200), as the did:key method's own examples write it.
    const did = 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169'
    const refused = await h.post(ISSUERS, body({ issuer_id: 'p256', did }))
    expect(refused.status).toBe(422)
    expect(refused.body.reason).toBe('issuer_unresolvable')
    expect(refused.body.context).toEqual({
      did,
      reason: `${did} is not an Ed25519 key (multicodec 0xed01): an issuer's did:key must be an Ed25519 key (did:key:z6Mk…); a provider whose keys are of another type is registered by a did:web whose document lists an Ed25519 key`,
    })
    expect(refused.body.context.reason).not.toMatch(/https|allow-http/)
  })

  it('is 422 issuer_unresolvable, saying why, when the document cannot be had', async () => {
    provider.unreachable = true
    const down = await h.post(ISSUERS, body())
    expect(down.status).toBe(422)
    expect(down.body).toMatchObject({
      reason: 'issuer_unresolvable',
      context: { did: provider.did, reason: `${provider.documentUrl} answered 503` },
    })
    provider.unreachable = false

    const notADocument = await serve((_req, res) => res.writeHead(200).end('{"id":"did:web:elsewhere"}'))
    const wrongId = await h.post(ISSUERS, body({ did: `did:web:${notADocument}` }))
    expect(wrongId.body.context.reason).toBe(
      `the document served for did:web:${notADocument} is the document of did:web:elsewhere`,
    )

    const redirecting = await serve((_req, res) =>
      res.writeHead(302, { location: provider.documentUrl }).end(),
    )
    const redirect = await h.post(ISSUERS, body({ did: `did:web:${redirecting}` }))
    expect(redirect.body.context.reason).toMatch(/answered 302 \(redirects are not followed\)$/)

    const huge = await serve((_req, res) => {
      res.writeHead(200)
      res.end(Buffer.alloc(3 * 1024 * 1024, 0x20))
    })
    const tooBig = await h.post(ISSUERS, body({ did: `did:web:${huge}` }))
    expect(tooBig.body.context.reason).toMatch(/answered more than 2 MiB$/)

    const keyless = await serve((_req, res) =>
      res.writeHead(200).end(JSON.stringify({ id: `did:web:${keylessHost}`, verificationMethod: [] })),
    )
    const keylessHost = keyless
    const noKey = await h.post(ISSUERS, body({ did: `did:web:${keyless}` }))
    expect(noKey.body.context.reason).toBe(`the DID document of did:web:${keyless} lists no Ed25519 key`)
    expect(await auditActions('issuer.registered')).toEqual([])
  })

  it('follows the address policy: loopback only with --allow-http-issuers, private addresses never', async () => {
    const strict = await h.newInstance({ allowHttpIssuers: false })
    const loopback = await strict.post(ISSUERS, body())
    expect(loopback.status).toBe(422)
    expect(loopback.body.context.reason).toMatch(/--allow-http-issuers/)
    expect(provider.requests).toEqual([])

    const privateHost = await h.post(ISSUERS, body({ did: 'did:web:10.1.2.3' }))
    expect(privateHost.body).toMatchObject({
      reason: 'issuer_unresolvable',
      context: { reason: '10.1.2.3 is a private address' },
    })
    const metadata = await h.post(ISSUERS, body({ did: 'did:web:169.254.169.254' }))
    expect(metadata.body.context.reason).toBe('169.254.169.254 is a cloud metadata address')
  })

  it("checks requirements and jurisdictions against the organization's", async () => {
    const unknownRequirement = await h.post(
      ISSUERS,
      body({ requirements: { kyc: ['KYCCredential'], accredited: ['AccreditedInvestor'] } }),
    )
    expect(unknownRequirement.status).toBe(422)
    expect(unknownRequirement.body).toMatchObject({
      reason: 'unknown_requirement',
      context: { unknown: ['accredited'] },
      errors: [{ path: 'requirements.accredited' }],
    })
    const unknownJurisdiction = await h.post(ISSUERS, body({ jurisdictions: ['US', 'JP'] }))
    expect(unknownJurisdiction.status).toBe(404)
    expect(unknownJurisdiction.body).toMatchObject({
      reason: 'jurisdiction_not_found',
      context: { jurisdiction_id: 'JP' },
    })
    const past = await h.post(ISSUERS, body({ valid_until: '2020-01-01T00:00:00.000Z' }))
    expect(past.body.reason).toBe('valid_until_not_future')
    expect(provider.requests).toEqual([])
  })

  it('refuses bad fields with 400 naming them, a duplicate with 409, and keys without the issuer role with 403', async () => {
    const bad = await h.post(ISSUERS, body({ issuer_id: 'Acme KYC', did: 'did:example:1', requirements: {} }))
    expect(bad.status).toBe(400)
    expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(['did', 'issuer_id', 'requirements'])
    await expectStatus(h.post(ISSUERS, body()), 201)
    const dup = await h.post(ISSUERS, body())
    expect(dup.status).toBe(409)
    expect(dup.body.reason).toBe('issuer_exists')
    const org = await h.createOrg('acme', { tier: 'pro' })
    const agent = await expectStatus(
      h.post('/console/billing/keys', { org_id: 'acme', name: 'agent', roles: ['agent'] }),
      201,
    )
    const refused = await h.post(ISSUERS, body(), { key: agent.api_key })
    expect(refused.status).toBe(403)
    expect(refused.body.reason).toBe('role_required')
    // Another organization's issuer is unknown to it.
    expect((await h.get(`${ISSUERS}/acme-kyc`, { key: org.key })).body.reason).toBe('issuer_not_found')
  })
})

describe('GET /console/rwa/issuers', () => {
  it('lists newest first with exact-match filters on jurisdiction, requirement and status', async () => {
    await expectStatus(
      h.post('/console/rwa/jurisdictions', {
        ...US,
        jurisdiction_id: 'EU',
        transfer_requirements: ['kyc', 'a_b', 'axb'],
      }),
      201,
    )
    await expectStatus(h.post(ISSUERS, body({ issuer_id: 'one', jurisdictions: ['US'] })), 201)
    await expectStatus(
      h.post(ISSUERS, body({ issuer_id: 'two', jurisdictions: ['EU'], requirements: { a_b: ['X'] } })),
      201,
    )
    await expectStatus(
      h.post(ISSUERS, body({ issuer_id: 'three', jurisdictions: ['SG'], requirements: { axb: ['Y'] } })),
      201,
    )
    await expectStatus(h.request('PATCH', `${ISSUERS}/three`, { body: { status: 'suspended' } }), 200)
    const ids = async (query: Record<string, string> = {}) =>
      (await expectStatus(h.get(ISSUERS, { query }), 200)).issuers.map((i: any) => i.issuer_id)
    expect(await ids()).toEqual(['three', 'two', 'one'])
    expect(await ids({ jurisdiction: 'US' })).toEqual(['one'])
    expect(await ids({ requirement: 'kyc' })).toEqual(['one'])
    expect(await ids({ requirement: 'a_b' })).toEqual(['two'])
    expect(await ids({ status: 'suspended' })).toEqual(['three'])
    const page = await expectStatus(h.get(ISSUERS, { query: { limit: 2 } }), 200)
    expect(page).toMatchObject({ total: 3, next_cursor: expect.stringMatching(/^iss_/) })
    const next = await expectStatus(h.get(ISSUERS, { query: { limit: 2, cursor: page.next_cursor } }), 200)
    expect(next.issuers.map((i: any) => i.issuer_id)).toEqual(['one'])
    expect(next.issuers[0].keys).toHaveLength(1)
  })
})

describe('PATCH and DELETE /console/rwa/issuers/{id}', () => {
  it('changes the fields given; suspending is issuer.suspended, and active again issuer.updated', async () => {
    await expectStatus(h.post(ISSUERS, body()), 201)
    h.clock.advance(1000)
    const changed = await expectStatus(
      h.request('PATCH', `${ISSUERS}/acme-kyc`, { body: { name: 'Acme', jurisdictions: ['SG'] } }),
      200,
    )
    expect(changed).toMatchObject({
      name: 'Acme',
      jurisdictions: ['SG'],
      updated_at: '2026-01-15T12:00:01.000Z',
    })
    const suspended = await expectStatus(
      h.request('PATCH', `${ISSUERS}/acme-kyc`, { body: { status: 'suspended' } }),
      200,
    )
    expect(suspended.status).toBe('suspended')
    const [suspension] = await auditActions('issuer.suspended')
    expect(suspension.changes).toMatchObject({ before: { status: 'active' }, after: { status: 'suspended' } })
    await expectStatus(h.request('PATCH', `${ISSUERS}/acme-kyc`, { body: { status: 'active' } }), 200)
    expect(await auditActions('issuer.updated')).toHaveLength(2)
    const empty = await h.request('PATCH', `${ISSUERS}/acme-kyc`, { body: {} })
    expect(empty.status).toBe(400)
    const unknown = await h.request('PATCH', `${ISSUERS}/nobody`, { body: { name: 'x' } })
    expect(unknown.status).toBe(404)
    expect(unknown.body.reason).toBe('issuer_not_found')
    const removedStatus = await h.request('PATCH', `${ISSUERS}/acme-kyc`, { body: { status: 'removed' } })
    expect(removedStatus.status).toBe(400)
  })

  it('removes an issuer keeping its record and keys; it cannot be changed, removed or registered again', async () => {
    await expectStatus(h.post(ISSUERS, body()), 201)
    const removed = await expectStatus(h.request('DELETE', `${ISSUERS}/acme-kyc`), 200)
    expect(removed).toMatchObject({
      status: 'removed',
      keys: [{ kid: `${provider.did}#key-1`, retired_at: null }],
    })
    expect(await expectStatus(h.get(`${ISSUERS}/acme-kyc`), 200)).toEqual(removed)
    expect((await h.request('DELETE', `${ISSUERS}/acme-kyc`)).body.reason).toBe('issuer_removed')
    expect((await h.request('PATCH', `${ISSUERS}/acme-kyc`, { body: { name: 'x' } })).body.reason).toBe(
      'issuer_removed',
    )
    expect((await h.post(`${ISSUERS}/acme-kyc/refresh`)).body.reason).toBe('issuer_removed')
    expect((await h.post(ISSUERS, body())).body.reason).toBe('issuer_exists')
    expect(await auditActions('issuer.removed')).toHaveLength(1)
  })
})

describe('POST /console/rwa/issuers/{id}/refresh', () => {
  it('keeps keys for life: a rotated-out key is retired, not deleted, and the new one added', async () => {
    await expectStatus(h.post(ISSUERS, body()), 201)
    const same = await expectStatus(h.post(`${ISSUERS}/acme-kyc/refresh`), 200)
    expect(same.keys).toHaveLength(1)
    expect(await auditActions('issuer.keys_changed')).toEqual([])
    h.clock.advance(60_000)
    const rotated = provider.rotateKey()
    const refreshed = await expectStatus(h.post(`${ISSUERS}/acme-kyc/refresh`), 200)
    expect(refreshed.keys).toEqual([
      expect.objectContaining({ kid: `${provider.did}#key-1`, retired_at: '2026-01-15T12:01:00.000Z' }),
      {
        kid: rotated.kid,
        jwk: rotated.publicJwk,
        first_seen_at: '2026-01-15T12:01:00.000Z',
        retired_at: null,
      },
    ])
    expect(refreshed.resolved_at).toBe('2026-01-15T12:01:00.000Z')
    const [change] = await auditActions('issuer.keys_changed')
    expect(change.changes.after).toEqual({
      added: [rotated.kid],
      retired: [`${provider.did}#key-1`],
      restored: [],
    })
    const events = await expectStatus(
      h.get('/console/events', { query: { type: 'issuer.keys_changed' } }),
      200,
    )
    expect(events.events[0].data.object.keys).toHaveLength(2)
  })

  it('refuses a key id that names another key than before, and an unreachable document', async () => {
    await expectStatus(h.post(ISSUERS, body()), 201)
    // The same fragment, another key: what a provider that reused an id (or an attacker) serves.
    const first = provider.keys[0]!
    Object.assign(first, ed25519Pair())
    const swapped = await h.post(`${ISSUERS}/acme-kyc/refresh`)
    expect(swapped.status).toBe(422)
    expect(swapped.body.context.reason).toBe(
      `${provider.did}#key-1 now names another key than the one first seen under that id`,
    )
    provider.unreachable = true
    expect((await h.post(`${ISSUERS}/acme-kyc/refresh`)).body.reason).toBe('issuer_unresolvable')
    const kept = await expectStatus(h.get(`${ISSUERS}/acme-kyc`), 200)
    expect(kept.keys).toEqual([expect.objectContaining({ kid: `${provider.did}#key-1`, retired_at: null })])
  })
})
