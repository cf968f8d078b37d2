import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * The served document says what the server does: who needs a key, which refusals each operation can
 * give and with which headers, and what its bodies look like. These tests read the document and, where
 * a claim is about behaviour, make the request (the harness also checks every answer against it).
 */

let h: Harness
let doc: any
beforeAll(async () => {
  h = await createHarness()
  doc = (await h.get('/openapi.json', { key: null })).body
})
afterAll(() => h.close())

const METHODS = ['get', 'put', 'post', 'delete', 'patch']

/** Every operation of the document, with its method and path. */
function operations(): Array<{ method: string; path: string; id: string; op: any }> {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      method,
      path,
      id: `${method.toUpperCase()} ${path}`,
      op: item[method],
    })),
  )
}

const keyed = (op: any) => (op.security ?? doc.security ?? []).length > 0
/** Operations for the admin key alone that are neither rate limited nor metered (a metrics scraper). */
const UNLIMITED = new Set(['GET /metrics'])
const resolve = (node: any) =>
  node?.$ref
    ? node.$ref
        .slice(2)
        .split('/')
        .reduce((at: any, key: string) => at[key], doc)
    : node

/** A concrete path for a template: `{id}` and the like become a value of the right shape. */
const concrete = (path: string) =>
  path
    .replace('{key_id}', 'key_01M80QDRFAQSS9ZK6YPFRFRQA8')
    .replace('{org_id}', 'acme')
    .replace('{delivery_id}', 'dlv_01M8420DESXZV8X28W2ZQWTKA9')
    .replace(
      '{id}',
      path.includes('/jurisdictions/')
        ? 'US'
        : path.includes('/issuers/')
          ? 'acme-kyc'
          : path.startsWith('/console/events/')
            ? 'evt_01M8420DESXZV8X28W2ZQWTKA9'
            : path.startsWith('/console/webhooks/')
              ? 'wh_01M8420DESXZV8X28W2ZQWTKA9'
              : `${{ credentials: 'cred', attestations: 'att', tokens: 'tok', transfers: 'tx', proofs: 'prf', approvals: 'apr' }[path.split('/')[3]!]}_01M8420DESXZV8X28W2ZQWTKA9`,
    )

describe('the document as a whole', () => {
  it('names its server, its licence and an apiKey scheme in X-API-Key', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })])
    expect(doc.info.license).toEqual({
      name: 'UNLICENSED (no licence granted)',
      url: expect.stringMatching(/^https:\/\/docs\.npmjs\.com\//),
    })
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    })
  })

  it('gives every operation a unique operationId', () => {
    const ids = operations().map(({ op }) => op.operationId)
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    // The 32 of the spec and billing, the 11 of token governance, the 3 of operations,
    // the trust bundle and attestation revocation, the audit log, keys' reroll
    // and whoami, four eyes' policy and approvals (2 + 4), the verifiable log (4),
    // batches, the events (3, with their server-sent stream), the webhook endpoints with their deliveries
    // (8), a token's frozen holders a page at a time (issue 22), the proof key's rotation and the
    // trusted issuers (6), suspension and reinstatement of credentials and attestations (4), identities
    // and a token's holders by identity (6), mint and burn (2).
    expect(ids).toHaveLength(93)
  })
})

describe('security: exactly the operations that take a key declare it', () => {
  it('declares the key on every operation but pricing, the proof keys, status lists, the Stripe webhook and the probes', () => {
    const open = operations()
      .filter(({ op }) => !keyed(op))
      .map(({ id }) => id)
    expect(open.sort()).toEqual([
      'GET /console/billing/pricing',
      'GET /console/rwa/.well-known/jwks.json',
      'GET /console/rwa/status/{list_id}',
      'GET /healthz',
      'GET /readyz',
      'POST /console/billing/webhooks/stripe',
    ])
  })

  it('answers 401 without a key exactly where the document declares the key', async () => {
    for (const { method, path, id, op } of operations()) {
      const res = await h.request(method.toUpperCase(), concrete(path), { key: null })
      if (keyed(op)) expect(res.status, id).toBe(401)
      else expect(res.status, id).not.toBe(401)
    }
  })
})

describe('refusals and headers declared where they can happen', () => {
  it('declares 400 everywhere, 401 and 429 with a key, 403 on governance, 413 and 415 with a body', () => {
    for (const { id, op, path } of operations()) {
      const statuses = Object.keys(op.responses)
      expect(statuses, id).toContain('400')
      // Unlimited (the operator's), a request without a valid key still draws from its address's bucket.
      if (keyed(op) && UNLIMITED.has(id))
        expect(statuses, id).toEqual(['200', '400', '401', '403', '429', '503'])
      else if (keyed(op)) expect(statuses, id).toEqual(expect.arrayContaining(['401', '429']))
      // Governance needs a plan (403); the trust bundle is for any key of the organization
      // (docs/verification.md, "The trust bundle").
      if (path.startsWith('/console/rwa/') && keyed(op) && id !== 'GET /console/rwa/trust-bundle')
        expect(statuses, id).toContain('403')
      if (op.requestBody) expect(statuses, id).toEqual(expect.arrayContaining(['413', '415']))
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        expect(Object.keys(op.responses[status].content), `${id} ${status}`).toEqual([
          'application/problem+json',
        ])
      }
    }
  })

  it('declares RateLimit headers on every answer given after authentication, and Retry-After on 429', () => {
    for (const { id, op } of operations().filter(({ op }) => keyed(op))) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const headers = Object.keys(response.headers ?? {})
        if (status === '401' || status === '413' || UNLIMITED.has(id)) {
          expect(headers, `${id} ${status}`).not.toContain('RateLimit-Limit')
          continue
        }
        expect(headers, `${id} ${status}`).toEqual(
          expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
        )
        // Every header is always there, but Idempotent-Replayed: only on a replay
        // (docs/accountability.md, "Retrying a write safely").
        for (const header of headers)
          expect(resolve(response.headers[header]).required).toBe(header !== 'Idempotent-Replayed')
        if (status === '429') expect(headers, id).toContain('Retry-After')
      }
    }
  })

  it('describes the Stripe webhook: its signed body, the Stripe-Signature header, 404/503 with Retry-After', () => {
    const op = doc.paths['/console/billing/webhooks/stripe'].post
    expect(op.parameters).toEqual([
      expect.objectContaining({ name: 'Stripe-Signature', in: 'header', required: true }),
    ])
    const body = op.requestBody.content['application/json']
    expect(body.schema.required).toEqual(['id', 'object', 'type', 'created', 'data'])
    expect(body.example).toMatchObject({ object: 'event', type: 'customer.subscription.created' })
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '404', '413', '415', '429', '503'])
    expect(Object.keys(op.responses['503'].headers)).toEqual(['Retry-After', 'X-Request-Id'])
    // The per-client bucket of the routes without a key (a 429 Stripe redelivers after).
    expect(op.responses['429']['x-reasons']).toEqual(['public_rate_limited'])
    expect(Object.keys(op.responses['429'].headers)).toEqual(['Retry-After', 'X-Request-Id'])
  })

  it('declares the required X-Request-Id on every answer of every operation', () => {
    for (const { id, op } of operations()) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        expect(resolve(response.headers?.['X-Request-Id']), `${id} ${status}`).toMatchObject({
          required: true,
        })
      }
    }
  })
})

describe('examples', () => {
  it('has an example on every request body and on every main (2xx) response', () => {
    for (const { id, op } of operations()) {
      for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) {
        expect(media.example, `${id} request ${type}`).toBeDefined()
      }
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (!status.startsWith('2')) continue
        for (const [type, media] of Object.entries<any>(response.content)) {
          expect(media.example, `${id} ${status} ${type}`).toBeDefined()
        }
      }
    }
  })
})

describe('413 and 415 on every operation with a body, as declared', () => {
  const withBody = () => operations().filter(({ op }) => op.requestBody)

  it('answers 413 problem details to a body over 1 MiB on each of them', async () => {
    expect(withBody().length).toBeGreaterThanOrEqual(12)
    for (const { method, path, id } of withBody()) {
      const res = await h.request(method.toUpperCase(), concrete(path), {
        rawBody: JSON.stringify({ padding: 'p'.repeat(1024 * 1024) }),
      })
      expect(res.status, id).toBe(413)
      expect(res.body.code, id).toBe('payload_too_large')
    }
  })

  it('answers 415 problem details to a body that is not JSON on each keyed one', async () => {
    for (const { method, path, id, op } of withBody().filter(({ op }) => keyed(op))) {
      const res = await h.request(method.toUpperCase(), concrete(path), {
        rawBody: 'name=x',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      })
      expect(res.status, id).toBe(415)
      expect(res.body.code, id).toBe('unsupported_media_type')
      expect(op.responses['415']).toBeDefined()
    }
  })
})

describe('query parameters', () => {
  it('refuses an unknown query parameter naming it, also where an operation takes none (pricing)', async () => {
    const res = await h.get('/console/billing/pricing', { key: null, query: { verbose: 1 } })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 'invalid_request', errors: [{ path: 'verbose' }] })
    const detail = await h.get('/console/rwa/jurisdictions/US', { query: { expand: 'all' } })
    expect(detail.status).toBe(400)
    expect(detail.body.errors).toEqual([{ path: 'expand', message: 'Unknown field' }])
  })
})
