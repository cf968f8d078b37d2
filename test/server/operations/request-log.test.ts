import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { REQUEST_LINE_FIELDS, secretsInLog } from '../../support/log-check.js'
import { type Harness, createHarness } from '../../support/harness.js'
import { buildWorld, transferBody } from '../../support/governance.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const requestLines = () => h.logRecords().filter((r) => r.msg === 'request')

describe('request log', () => {
  it('writes one JSON line per request, carrying the request id of the response header', async () => {
    const org = await h.createOrg('acme', { trial: true })
    const before = requestLines().length
    const responses = [
      await h.get('/console/billing/pricing', { key: null }),
      await h.get('/console/rwa/jurisdictions/US', { key: org.key }),
      await h.get('/console/billing/usage/acme', { key: 'rwa_live_nope' }),
      await h.post('/console/rwa/jurisdictions', { jurisdiction_id: 'US' }, { key: org.key }),
      await h.get('/no/such/path', { key: null }),
    ]
    const lines = requestLines().slice(before)
    expect(lines).toHaveLength(responses.length)
    lines.forEach((line, i) => {
      expect(line.request_id).toBe(responses[i]!.headers.get('x-request-id'))
      expect(line.status).toBe(responses[i]!.status)
    })

    expect(lines[0]).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/console/billing/pricing',
      path: '/console/billing/pricing',
      status: 200,
    })
    expect(lines[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(lines[0]!.duration_ms).toBeGreaterThanOrEqual(0)
    expect(lines[0]).not.toHaveProperty('org_id')
    // Authenticated: the organization and the key's id (never the key); the route is the template.
    expect(lines[1]).toMatchObject({
      route: '/console/rwa/jurisdictions/{id}',
      path: '/console/rwa/jurisdictions/US',
      status: 404,
      org_id: 'acme',
      key_id: org.keyId,
    })
    expect(lines[2]).toMatchObject({ route: '/console/billing/usage/{org_id}', status: 401 })
    expect(lines[2]).not.toHaveProperty('key_id')
    expect(lines[3]).toMatchObject({ method: 'POST', route: '/console/rwa/jurisdictions', status: 400 })
    expect(lines[4]).toMatchObject({ route: 'unmatched', path: '/no/such/path', status: 404 })
    for (const line of lines)
      for (const field of Object.keys(line)) expect(REQUEST_LINE_FIELDS).toContain(field)
  })

  it('names the route that answered when two templates match the path', async () => {
    await h.get('/console/rwa/jurisdictions/trust')
    expect(requestLines().at(-1)).toMatchObject({ route: '/console/rwa/jurisdictions/trust', status: 200 })
  })

  it('keeps a well-formed X-Request-Id and replaces one that is not', async () => {
    const kept = await h.get('/console/billing/pricing', {
      key: null,
      headers: { 'X-Request-Id': 'lb-7f3a_9=' },
    })
    expect(kept.headers.get('x-request-id')).toBe('lb-7f3a_9=')
    expect(requestLines().at(-1)!.request_id).toBe('lb-7f3a_9=')

    for (const bad of ['has space', 'a'.repeat(129), 'x"}{"level":"fatal', 'ünïcode']) {
      const res = await h.get('/console/billing/pricing', { key: null, headers: { 'X-Request-Id': bad } })
      const id = res.headers.get('x-request-id')
      expect(id).toMatch(/^[0-9a-f-]{36}$/)
      expect(requestLines().at(-1)!.request_id).toBe(id)
    }
  })

  it('puts the request id in every problem details body', async () => {
    const org = await h.createOrg('free-org')
    const problems = [
      await h.get('/console/billing/usage/acme', { key: null }), // 401
      await h.get('/console/billing/stats', { key: org.key }), // 403
      await h.get('/console/rwa/tokens/tok_nope'), // 404
      await h.post('/console/rwa/jurisdictions', { name: 1 }), // 400
      await h.request('POST', '/console/rwa/jurisdictions', {
        rawBody: '{',
        headers: { 'X-Request-Id': 'mine-1' },
      }),
      await h.post('/console/billing/keys', { org_id: 'x', name: 'y', pad: 'p'.repeat(1024 * 1024) }), // 413
    ]
    for (const res of problems) {
      expect(res.headers.get('content-type')).toBe('application/problem+json')
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'))
    }
    expect(problems[4]!.body.request_id).toBe('mine-1')
    expect(problems.map((p) => p.status)).toEqual([401, 403, 404, 400, 400, 413])
  })

  it('logs a 429 with the organization, and never a key, body or signature across a governance flow', async () => {
    const world = await buildWorld(h)
    await h.post('/console/rwa/transfers', transferBody(world.tokenId))
    const org = await h.createOrg('busy')
    for (let i = 0; i < 61; i++) await h.get('/console/billing/usage/busy', { key: org.key })
    const refused = requestLines().at(-1)!
    expect(refused).toMatchObject({ status: 429, route: '/console/billing/usage/{org_id}' })
    // The flow above produced keys, VC-JWTs and proof JWSs in responses: none reached the log.
    expect(secretsInLog(h.logLines)).toEqual([])
  })
})

describe('the log check itself', () => {
  const line = (fields: Record<string, unknown>) =>
    JSON.stringify({ level: 'info', msg: 'request', ...fields })

  it('finds a key, a JWS, a private JWK, a body and an unexpected field', () => {
    const key = `rwa_live_${'k'.repeat(43)}`
    const jws = `eyJhbGciOiJFZERTQSJ9.${'e'.repeat(40)}.${'s'.repeat(86)}`
    const body = JSON.stringify({ org_id: 'acme', name: 'ci' })
    const problems = secretsInLog(
      [
        line({ path: '/x' }),
        JSON.stringify({ msg: 'note', note: key }),
        JSON.stringify({ msg: 'signed', jws }),
        JSON.stringify({ msg: 'key', jwk: { kty: 'OKP', d: 'secret' } }),
        JSON.stringify({ msg: 'oops', err: { message: `bad body ${body}` } }),
        line({ headers: { host: 'x' } }),
      ],
      { bodies: [body] },
    )
    expect(problems.map((p) => p.split(':').slice(0, 2).join(':'))).toEqual([
      'line 2: an API key',
      'line 3: a compact JWS or JWT',
      'line 4: a private JWK member',
      'line 5: a request body',
      'line 6: request line with unexpected fields headers',
    ])
  })
})
