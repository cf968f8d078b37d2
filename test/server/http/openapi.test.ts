import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('GET /openapi.json', () => {
  it('documents every billing endpoint from the same schemas the server validates with', async () => {
    const res = await h.get('/openapi.json', { key: null })
    expect(res.status).toBe(200)
    expect(res.body.openapi).toBe('3.1.0')
    const operations = Object.entries(res.body.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    )
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /console/billing/keys',
        'GET /console/billing/keys',
        'DELETE /console/billing/keys/{key_id}',
        'GET /console/billing/subscription/{org_id}',
        'POST /console/billing/subscription',
        'GET /console/billing/usage/{org_id}',
        'GET /console/billing/pricing',
        'GET /console/billing/stats',
      ]),
    )
    const createKey = res.body.paths['/console/billing/keys'].post
    expect(createKey.requestBody.content['application/json'].schema.required).toEqual(['name'])
    expect(Object.keys(createKey.responses)).toEqual(expect.arrayContaining(['201', '400', '401']))
  })
})

describe('GET /openapi.json is built once per process (README.md, "The HTTP API")', () => {
  it('serves the same bytes with a strong ETag, 304 on If-None-Match, and gzip when asked', async () => {
    const first = await h.app.request('/openapi.json')
    const body = await first.text()
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    expect(first.headers.get('cache-control')).toBe('no-cache')
    const second = await h.app.request('/openapi.json')
    expect(await second.text()).toBe(body)
    expect(second.headers.get('etag')).toBe(etag)

    const cached = await h.app.request('/openapi.json', { headers: { 'If-None-Match': `"x", ${etag}` } })
    expect(cached.status).toBe(304)
    expect(await cached.text()).toBe('')
    expect(cached.headers.get('etag')).toBe(etag)
    const stale = await h.app.request('/openapi.json', { headers: { 'If-None-Match': '"stale"' } })
    expect(stale.status).toBe(200)

    const gzipped = await h.app.request('/openapi.json', { headers: { 'Accept-Encoding': 'gzip' } })
    expect(gzipped.headers.get('content-encoding')).toBe('gzip')
    const { gunzipSync } = await import('node:zlib')
    expect(gunzipSync(Buffer.from(await gzipped.arrayBuffer())).toString()).toBe(body)
  })

  it('gives another app of the same routes the same ETag (it depends on the document alone)', async () => {
    const other = await createHarness()
    try {
      const a = (await h.app.request('/openapi.json')).headers.get('etag')
      const b = (await other.app.request('/openapi.json')).headers.get('etag')
      expect(a).toBe(b)
    } finally {
      await other.close()
    }
  })
})
