import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHarness, type Harness } from '../../support/harness.js'

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('GET /openapi.json (governance)', () => {
  it('documents the 22 governance operations, the token governance ones, the JWKS and status lists', async () => {
    const res = await h.get('/openapi.json', { key: null })
    expect(res.status).toBe(200)
    const operations = Object.entries(res.body.paths as Record<string, object>)
      .filter(([path]) => path.startsWith('/console/rwa/'))
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort()
    expect(operations).toEqual(
      [
        'GET /console/rwa/jurisdictions',
        'POST /console/rwa/jurisdictions',
        'GET /console/rwa/jurisdictions/{id}',
        'PUT /console/rwa/jurisdictions/{id}',
        'DELETE /console/rwa/jurisdictions/{id}',
        'POST /console/rwa/jurisdictions/trust',
        'DELETE /console/rwa/jurisdictions/trust',
        'GET /console/rwa/jurisdictions/trust',
        'GET /console/rwa/credentials',
        'POST /console/rwa/credentials',
        'GET /console/rwa/credentials/{id}',
        'POST /console/rwa/credentials/{id}/revoke',
        'POST /console/rwa/credentials/{id}/suspend',
        'POST /console/rwa/credentials/{id}/reinstate',
        'GET /console/rwa/attestations',
        'POST /console/rwa/attestations',
        'GET /console/rwa/attestations/{id}',
        'POST /console/rwa/tokenize',
        'GET /console/rwa/tokens',
        'GET /console/rwa/tokens/{id}',
        'POST /console/rwa/transfers',
        'GET /console/rwa/transfers',
        'GET /console/rwa/transfers/{id}',
        'GET /console/rwa/proofs/{id}',
        'GET /console/rwa/.well-known/jwks.json',
        // Token governance (docs/governance.md, "Token governance").
        'GET /console/rwa/tokens/{id}/history',
        'GET /console/rwa/tokens/{id}/holdings',
        'GET /console/rwa/tokens/{id}/frozen-holders',
        'PUT /console/rwa/tokens/{id}/rules',
        'POST /console/rwa/tokens/{id}/pause',
        'POST /console/rwa/tokens/{id}/unpause',
        'POST /console/rwa/tokens/{id}/freeze',
        'POST /console/rwa/tokens/{id}/unfreeze',
        'POST /console/rwa/tokens/{id}/forced-transfer',
        'POST /console/rwa/tokens/{id}/mint',
        'POST /console/rwa/tokens/{id}/burn',
        'POST /console/rwa/tokens/{id}/recover',
        'GET /console/rwa/tokens/{id}/can-transfer',
        'GET /console/rwa/status/{list_id}',
        // Verification (docs/verification.md).
        'GET /console/rwa/trust-bundle',
        'POST /console/rwa/attestations/{id}/revoke',
        'POST /console/rwa/attestations/{id}/suspend',
        'POST /console/rwa/attestations/{id}/reinstate',
        // Batches (docs/batches.md).
        'POST /console/rwa/batch',
        // Key custody (README.md, "Signing keys at rest").
        'POST /console/rwa/signing-keys/rotate',
        // Four eyes (docs/accountability.md, "Four eyes").
        'GET /console/rwa/policy',
        'PUT /console/rwa/policy',
        'GET /console/rwa/approvals',
        'GET /console/rwa/approvals/{id}',
        'POST /console/rwa/approvals/{id}/approve',
        'POST /console/rwa/approvals/{id}/reject',
        // Trusted issuers (docs/issuers.md).
        'GET /console/rwa/issuers',
        'POST /console/rwa/issuers',
        'GET /console/rwa/issuers/{id}',
        'PATCH /console/rwa/issuers/{id}',
        'DELETE /console/rwa/issuers/{id}',
        'POST /console/rwa/issuers/{id}/refresh',
        // Investors' identities (docs/identities.md).
        'GET /console/rwa/identities',
        'POST /console/rwa/identities',
        'GET /console/rwa/identities/{id}',
        'PATCH /console/rwa/identities/{id}',
        'POST /console/rwa/identities/{id}/dids',
        'GET /console/rwa/tokens/{id}/holders',
      ].sort(),
    )
    const transfer = res.body.paths['/console/rwa/transfers'].post
    expect(transfer.requestBody.content['application/json'].schema.required).toEqual([
      'token_id',
      'from_jurisdiction',
      'to_jurisdiction',
      'recipient_did',
      'amount',
    ])
    expect(Object.keys(transfer.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '404', '409']),
    )
  })
})
