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
