import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { problemSchema } from '../../../src/contract/errors.js'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('bad input gets a clear 4xx and changes nothing', () => {
  it('answers malformed JSON with 400 invalid_request', async () => {
    const res = await h.request('POST', '/console/billing/keys', { rawBody: '{"org_id": "acme", ' })
    expect(res.status).toBe(400)
    expect(problemSchema.parse(res.body)).toMatchObject({
      code: 'invalid_request',
      detail: 'Malformed JSON in request body',
    })
  })

  it('answers a JSON body that is not an object with 400', async () => {
    for (const raw of ['[]', '"text"', '42', 'null']) {
      const res = await h.request('POST', '/console/billing/keys', { rawBody: raw })
      expect(res.status, raw).toBe(400)
    }
  })

  it('answers a body that is not JSON with 415', async () => {
    const res = await h.request('POST', '/console/billing/keys', {
      rawBody: 'org_id=acme&name=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    expect(res.status).toBe(415)
    expect(res.body.code).toBe('unsupported_media_type')
  })

  it('answers a body over 1 MiB with 413, and creates nothing', async () => {
    const res = await h.post('/console/billing/keys', {
      org_id: 'acme',
      name: 'x',
      padding: 'p'.repeat(1024 * 1024),
    })
    expect(res.status).toBe(413)
    expect(res.body).toMatchObject({ code: 'payload_too_large', status: 413 })
    expect((await h.get('/console/billing/keys', { query: { org_id: 'acme' } })).body).toEqual({
      keys: [],
      total: 0,
    })
  })

  it('answers unknown routes with 404 problem details', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['PATCH', '/nope'],
      ['GET', '/console/billing/keys/key_x/extra'],
    ] as const) {
      const res = await h.request(method, path)
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
      expect(problemSchema.parse(res.body).code).toBe('not_found')
      expect(res.headers.get('allow')).toBeNull()
    }
  })

  it('answers a known path with another method 405 with Allow listing the methods it has', async () => {
    for (const [method, path, allow] of [
      ['PATCH', '/console/billing/keys', 'GET, HEAD, POST'],
      ['PUT', '/console/billing/keys/key_x', 'DELETE'],
      ['DELETE', '/openapi.json', 'GET, HEAD'],
      ['POST', '/console/rwa/tokens/tok_x', 'GET, HEAD'],
      ['GET', '/console/rwa/transfers', 'GET, HEAD'],
    ] as const) {
      const res = await h.request(method, path)
      if (method === 'GET') {
        // A control: the path with a method it has is no 405.
        expect(res.status, `${method} ${path}`).toBe(200)
        continue
      }
      expect(res.status, `${method} ${path}`).toBe(405)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow)
      const problem = problemSchema.parse(res.body)
      expect(problem).toMatchObject({ code: 'method_not_allowed', reason: 'method_not_allowed', status: 405 })
      expect(problem.context).toEqual({ method, path, allow: allow.split(', ') })
    }
  })

  it('never answers 500 nor writes anything, whatever JSON is posted', async () => {
    const before = await h.get('/console/billing/stats')
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            { org_id: fc.jsonValue(), name: fc.jsonValue(), start_trial: fc.jsonValue() },
            { requiredKeys: [] },
          ),
        ),
        async (body) => {
          const res = await h.request('POST', '/console/billing/subscription', { body })
          expect(res.status).toBeGreaterThanOrEqual(400)
          expect(res.status).toBeLessThan(500)
          const keys = await h.request('POST', '/console/billing/keys', {
            body: { ...(body as object), name: 123 },
          })
          expect(keys.status).toBe(400)
        },
      ),
      { numRuns: 150 },
    )
    h.clock.advance(60_000)
    const after = await h.get('/console/billing/stats')
    expect(after.body).toEqual(before.body)
    expect(h.loggedErrors).toEqual([])
  })
})
