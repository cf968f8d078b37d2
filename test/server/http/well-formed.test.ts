import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHarness, type Harness } from '../../support/harness.js'
import { expectStatus, OWNER, PROPERTY, SG, US } from '../../support/governance.js'

/*
 * Text that is not well-formed Unicode is refused with 400 naming the field, wherever it enters: a JSON
 * string with a lone surrogate, or a URL percent-escape that is not UTF-8. Before, "x\ud800y" was
 * accepted and echoed, stored as U+FFFD, while the signed vc_jwt kept the original.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const LONE = 'x\ud800y'
const paths = (res: { body: { errors?: Array<{ path: string }> } }) => res.body.errors?.map((e) => e.path)

describe('a lone UTF-16 surrogate in a JSON body', () => {
  it("is refused in an attestation's attester, and nothing is recorded", async () => {
    await expectStatus(h.post('/console/rwa/jurisdictions', SG), 201)
    const res = await h.post('/console/rwa/attestations', {
      jurisdiction: 'SG',
      subject_did: 'did:web:acme:bob',
      type: 'kyc',
      attester: LONE,
    })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 'invalid_request', errors: [{ path: 'attester' }] })
    expect(res.body.errors[0].message).toMatch(/well-formed Unicode/)
    expect((await h.get('/console/rwa/attestations')).body.total).toBe(0)
  })

  it("is refused in a jurisdiction's name, on register and on update", async () => {
    const register = await h.post('/console/rwa/jurisdictions', { ...US, name: LONE })
    expect(register.status).toBe(400)
    expect(paths(register)).toEqual(['name'])
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    const { jurisdiction_id: _, ...config } = US
    const update = await h.request('PUT', '/console/rwa/jurisdictions/US', {
      body: { ...config, frameworks: ['Reg D', `\udc00${LONE}`] },
    })
    expect(update.status).toBe(400)
    expect(paths(update)).toEqual(['frameworks.1'])
    expect((await h.get('/console/rwa/jurisdictions/US')).body.frameworks).toEqual(US.frameworks)
  })

  it("is refused in a key's name, and no key is created", async () => {
    const before = (await h.get('/console/billing/stats')).body.total_keys
    const res = await h.post('/console/billing/keys', { org_id: 'acme', name: LONE })
    expect(res.status).toBe(400)
    expect(res.body.detail).toBe('Invalid body: name: not well-formed Unicode (a lone UTF-16 surrogate)')
    expect((await h.get('/console/billing/stats')).body.total_keys).toBe(before)
  })

  it('is refused deep in a body, naming the dotted path', async () => {
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    const res = await h.post('/console/rwa/credentials', {
      jurisdiction: 'US',
      owner_did: OWNER,
      property_data: { ...PROPERTY, address: `1 Market St \udfff` },
    })
    expect(res.status).toBe(400)
    expect(paths(res)).toEqual(['property_data.address'])
  })

  it('accepts surrogate pairs (characters outside the BMP) and keeps them exactly', async () => {
    const name = 'Zürich 🏦 𝔘𝔖'
    const created = await expectStatus(h.post('/console/rwa/jurisdictions', { ...US, name }), 201)
    expect(created.name).toBe(name)
    expect((await h.get('/console/rwa/jurisdictions/US')).body.name).toBe(name)
  })
})

describe('a percent-escape that is not UTF-8 in the URL', () => {
  it('is refused in a query parameter, naming it', async () => {
    const res = await h.get('/console/rwa/attestations?credential_id=cred_%ED%A0%80')
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 'invalid_request', errors: [{ path: 'credential_id' }] })
    const transfers = await h.get('/console/rwa/transfers?token_id=tok_%FF')
    expect(paths(transfers)).toEqual(['token_id'])
  })

  it('is refused in a path parameter, naming it', async () => {
    const res = await h.get('/console/rwa/credentials/cred_%ED%A0%80')
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 'invalid_request', errors: [{ path: 'id' }] })
    const key = await h.request('DELETE', '/console/billing/keys/key_%C3')
    expect(paths(key)).toEqual(['key_id'])
  })

  it('is not confused with an escaped percent sign or UTF-8 escapes', async () => {
    // %25ED is the text "%ED": an unknown id, not ill-formed text.
    expect((await h.get('/console/rwa/credentials/cred_%25ED%25A0')).status).toBe(404)
    const euro = await h.get('/console/rwa/attestations?credential_id=cred_%E2%82%AC')
    expect(euro.status).toBe(200)
    expect(euro.body.total).toBe(0)
  })
})

describe('NUL and C0 control characters (docs/verification.md, "Text is data, never control")', () => {
  it("refuses NUL in a jurisdiction's name with 400 naming the field, and stores nothing (a 500 on PostgreSQL before)", async () => {
    const res = await h.post('/console/rwa/jurisdictions', { ...US, name: 'United\u0000States' })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({
      code: 'invalid_request',
      reason: 'invalid_field',
      errors: [{ path: 'name' }],
    })
    expect(res.body.errors[0].message).toMatch(/NUL/)
    expect((await h.get('/console/rwa/jurisdictions/US')).status).toBe(404)
  })

  it('refuses the other C0 controls (escape, bell, backspace, VT, FF, US) in a key name, an object key and a query', async () => {
    for (const ch of ['\u001b', '\u0007', '\u0008', '\u000b', '\u000c', '\u001f']) {
      const res = await h.post('/console/billing/keys', { org_id: 'acme', name: `a${ch}[31mred` })
      expect(res.status, JSON.stringify(ch)).toBe(400)
      expect(paths(res)).toEqual(['name'])
      expect(res.body.errors[0].message).toContain(
        `U+00${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
      )
    }
    await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
    const credential = await h.post('/console/rwa/credentials', {
      jurisdiction: 'US',
      owner_did: OWNER,
      property_data: { ...PROPERTY, 'note\u001b': 'x' },
    })
    expect(credential.status).toBe(400)
    expect(paths(credential)).toEqual(['property_data.note\\u001b'])
    const query = await h.get('/console/rwa/transfers?token_id=tok_%00')
    expect(paths(query)).toEqual(['token_id'])
    const param = await h.get('/console/rwa/credentials/cred_%07x')
    expect(paths(param)).toEqual(['id'])
  })

  it('accepts tab, LF and CR, and the characters just past the C0 range', async () => {
    const name = 'Line one\r\nline\ttwo ~\u007f\u0085'
    const res = await h.post('/console/rwa/jurisdictions', { ...US, name })
    expect(res.status).toBe(201)
    expect((await h.get('/console/rwa/jurisdictions/US')).body.name).toBe(name)
  })
})
