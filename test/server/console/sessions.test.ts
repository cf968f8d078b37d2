import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CONSOLE_SESSION_PATH, CSRF_HEADER } from '../../../src/contract/console.js'
import { within } from '../../support/concurrency.js'
import { expectStatus, US } from '../../support/governance.js'
import { createHarness, type Harness, type TestInstance, type TestResponse } from '../../support/harness.js'

/*
 * Console sessions (docs/console.md, "Security model"): an API key exchanged for an HttpOnly,
 * SameSite=Strict cookie that authenticates as the key for 8 hours at most, ends on sign-out or with its
 * key, and must carry its CSRF token on every write. Audited on sign-in and sign-out.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

interface SignedIn {
  cookie: string
  csrf: string
  body: any
  res: TestResponse
}

/** The `name=value` of a Set-Cookie header, as a browser would send it back. */
const cookieOf = (res: TestResponse): string => (res.headers.get('set-cookie') ?? '').split(';')[0]!

async function signIn(instance: TestInstance, apiKey: string): Promise<SignedIn> {
  const res = await instance.request('POST', CONSOLE_SESSION_PATH, { key: null, body: { api_key: apiKey } })
  if (res.status !== 201) expect.fail(`sign-in: ${res.status} ${res.text}`)
  return { cookie: cookieOf(res), csrf: res.body.csrf_token, body: res.body, res }
}

/** A request through the session (its cookie, no X-API-Key), with the CSRF token unless told otherwise. */
function viaSession(
  instance: TestInstance,
  session: SignedIn,
  method: string,
  path: string,
  options: { body?: unknown; csrf?: string | null } = {},
) {
  const csrf = options.csrf === undefined ? session.csrf : options.csrf
  return instance.request(method, path, {
    key: null,
    body: options.body,
    headers: { cookie: session.cookie, ...(csrf === null ? {} : { [CSRF_HEADER]: csrf }) },
  })
}

async function auditActions(orgId: string): Promise<Array<{ action: string; target: any; actor: any }>> {
  const res = await h.get('/console/audit', { query: { org_id: orgId, limit: 500 } })
  return res.body.events
}

describe('signing in', () => {
  it('sets an HttpOnly, SameSite=Strict cookie for 8 h, answers the CSRF token, never the key', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const session = await signIn(h, acme.key)
    const setCookie = session.res.headers.get('set-cookie')!
    expect(setCookie).toMatch(/^rwa_session=[A-Za-z0-9_-]{43}; /)
    const flags = setCookie.split('; ').slice(1)
    expect(flags).toEqual(['Path=/console', 'Max-Age=28800', 'HttpOnly', 'SameSite=Strict'])
    expect(session.res.headers.get('cache-control')).toBe('no-store')
    expect(session.body).toMatchObject({
      key_id: acme.keyId,
      org_id: 'acme',
      roles: ['owner'],
      expires_at: new Date(h.clock.now() + 8 * 3_600_000).toISOString(),
    })
    expect(session.body.session_id).toMatch(/^ses_/)
    expect(session.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // Neither the key nor the cookie's secret is in the answer.
    expect(session.res.text).not.toContain(acme.key)
    expect(session.res.text).not.toContain(session.cookie.split('=')[1])
    // The sign-in is a request of the key: its limits apply.
    expect(session.res.headers.get('ratelimit-limit')).not.toBeNull()
  })

  it('is the console’s own endpoint: not an operation of /openapi.json', async () => {
    const doc = await h.get('/openapi.json', { key: null })
    expect(Object.keys(doc.body.paths).filter((path) => path.startsWith('/console/ui'))).toEqual([])
    expect(Object.keys(doc.body.paths).length).toBeGreaterThan(50)
  })

  it('is Secure behind https (the public URL)', async () => {
    await h.close()
    h = await createHarness({ publicUrl: 'https://rwa.example.com' })
    const acme = await h.createOrg('acme', { trial: true })
    const session = await signIn(h, acme.key)
    expect(session.res.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Strict; Secure$/)
  })

  it('refuses an unknown key (401 key_unknown) and a malformed one (400 naming api_key), setting no cookie', async () => {
    const unknown = await h.request('POST', CONSOLE_SESSION_PATH, {
      key: null,
      body: { api_key: `rwa_live_${'A'.repeat(43)}` },
    })
    expect([unknown.status, unknown.body.reason]).toEqual([401, 'key_unknown'])
    expect(unknown.headers.get('set-cookie')).toBeNull()
    const malformed = await h.request('POST', CONSOLE_SESSION_PATH, { key: null, body: { api_key: 'hello' } })
    expect([malformed.status, malformed.body.reason, malformed.body.errors[0].path]).toEqual([
      400,
      'invalid_field',
      'api_key',
    ])
    expect(malformed.headers.get('set-cookie')).toBeNull()
    const extra = await h.request('POST', CONSOLE_SESSION_PATH, {
      key: null,
      body: { api_key: `rwa_live_${'A'.repeat(43)}`, remember: true },
    })
    expect([extra.status, extra.body.errors[0].path]).toEqual([400, 'remember'])
  })

  it('lasts no longer than its key: a key expiring in an hour makes a one-hour session', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const expiresAt = new Date(h.clock.now() + 3_600_000).toISOString()
    const short = await expectStatus(
      h.post('/console/billing/keys', { name: 'short', expires_at: expiresAt }, { key: acme.key }),
      201,
    )
    const session = await signIn(h, short.api_key)
    expect(session.body.expires_at).toBe(expiresAt)
    expect(session.res.headers.get('set-cookie')).toContain('Max-Age=3600;')
  })

  it('is audited: session.created by the key, then session.ended on sign-out', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const session = await signIn(h, acme.key)
    const signOut = await viaSession(h, session, 'DELETE', CONSOLE_SESSION_PATH)
    expect(signOut.status).toBe(200)
    expect(signOut.body).toEqual({ session_id: session.body.session_id, ended_at: expect.any(String) })
    const events = (await auditActions('acme')).filter((e) => e.action.startsWith('session.'))
    expect(events.map((e) => [e.action, e.target, e.actor.key_id])).toEqual([
      ['session.ended', { type: 'session', id: session.body.session_id }, acme.keyId],
      ['session.created', { type: 'session', id: session.body.session_id }, acme.keyId],
    ])
    // Nothing of the secret or the key in the log.
    expect(JSON.stringify(events)).not.toContain(session.cookie.split('=')[1])
  })
})

describe('a session authenticates as its key', () => {
  it('reads with the cookie alone, as the key, with its limits', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const session = await signIn(h, acme.key)
    const self = await viaSession(h, session, 'GET', '/console/billing/keys/self', { csrf: null })
    expect(self.status).toBe(200)
    expect(self.body.key_id).toBe(acme.keyId)
    expect(self.headers.get('ratelimit-remaining')).not.toBeNull()
    const back = await viaSession(h, session, 'GET', CONSOLE_SESSION_PATH, { csrf: null })
    expect(back.status).toBe(200)
    expect(back.body).toEqual(session.body)
  })

  it("keeps the key's roles: an auditor's session is refused a write (403 role_required)", async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const auditor = await expectStatus(
      h.post('/console/billing/keys', { name: 'reader', roles: ['auditor'] }, { key: acme.key }),
      201,
    )
    const session = await signIn(h, auditor.api_key)
    expect(session.body.roles).toEqual(['auditor'])
    const write = await viaSession(h, session, 'POST', '/console/rwa/jurisdictions', { body: US })
    expect([write.status, write.body.reason]).toEqual([403, 'role_required'])
    const read = await viaSession(h, session, 'GET', '/console/audit')
    expect(read.status).toBe(200)
  })

  it('refuses a write without its CSRF token, or with another session’s (403 csrf_token_invalid)', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const session = await signIn(h, acme.key)
    const other = await signIn(h, acme.key)
    expect(other.csrf).not.toBe(session.csrf)
    const missing = await viaSession(h, session, 'POST', '/console/rwa/jurisdictions', {
      body: US,
      csrf: null,
    })
    expect([missing.status, missing.body.reason]).toEqual([403, 'csrf_token_invalid'])
    const wrong = await viaSession(h, session, 'POST', '/console/rwa/jurisdictions', {
      body: US,
      csrf: other.csrf,
    })
    expect([wrong.status, wrong.body.reason]).toEqual([403, 'csrf_token_invalid'])
    // Nothing was written by the refused ones.
    expect((await h.get('/console/rwa/jurisdictions', { key: acme.key })).body.total).toBe(0)
    const signOut = await viaSession(h, session, 'DELETE', CONSOLE_SESSION_PATH, { csrf: null })
    expect([signOut.status, signOut.body.reason]).toEqual([403, 'csrf_token_invalid'])

    const written = await viaSession(h, session, 'POST', '/console/rwa/jurisdictions', { body: US })
    expect(written.status).toBe(201)
    const registered = (await auditActions('acme')).find((e) => e.action === 'jurisdiction.registered')
    expect(registered?.actor).toEqual({ key_id: acme.keyId, roles: ['owner'] })
  })

  it('X-API-Key wins over a cookie: the request is the key’s, and needs no CSRF token', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const globex = await h.createOrg('globex', { trial: true })
    const session = await signIn(h, acme.key)
    const res = await h.request('POST', '/console/rwa/jurisdictions', {
      key: globex.key,
      body: US,
      headers: { cookie: session.cookie },
    })
    expect(res.status).toBe(201)
    expect((await h.get('/console/rwa/jurisdictions', { key: globex.key })).body.total).toBe(1)
    expect((await h.get('/console/rwa/jurisdictions', { key: acme.key })).body.total).toBe(0)
  })
})

describe('a session ends', () => {
  it('at sign-out: the cookie is cleared and refused from then on (401 session_ended)', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const session = await signIn(h, acme.key)
    const out = await viaSession(h, session, 'DELETE', CONSOLE_SESSION_PATH)
    expect(out.headers.get('set-cookie')).toBe(
      'rwa_session=; Path=/console; Max-Age=0; HttpOnly; SameSite=Strict',
    )
    const after = await viaSession(h, session, 'GET', '/console/billing/keys/self')
    expect([after.status, after.body.reason]).toEqual([401, 'session_ended'])
    const again = await viaSession(h, session, 'DELETE', CONSOLE_SESSION_PATH)
    expect([again.status, again.body.reason]).toEqual([401, 'session_ended'])
    // The key itself still works.
    expect((await h.get('/console/billing/keys/self', { key: acme.key })).status).toBe(200)
  })

  it('8 hours after sign-in (the injected clock)', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const session = await signIn(h, acme.key)
    h.clock.advance(8 * 3_600_000 - 1)
    expect((await viaSession(h, session, 'GET', '/console/billing/keys/self')).status).toBe(200)
    h.clock.advance(1)
    const expired = await viaSession(h, session, 'GET', '/console/billing/keys/self')
    expect([expired.status, expired.body.reason]).toEqual([401, 'session_ended'])
    expect(expired.body.detail).toMatch(/expired at/)
  })

  it('is forgotten at the next sign-in of its organization once expired, and stays refused', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const other = await h.createOrg('other', { trial: true })
    const old = await signIn(h, acme.key)
    const others = await signIn(h, other.key)
    const rows = async () =>
      (await h.ctx.db.selectFrom('console_sessions').select(['session_id']).execute()).map(
        (r) => r.session_id,
      )
    h.clock.advance(8 * 3_600_000 + 1)
    const fresh = await signIn(h, acme.key)
    // The expired session of acme is gone; another organization's is left to its own sign-ins.
    expect((await rows()).sort()).toEqual([fresh.body.session_id, others.body.session_id].sort())
    const refused = await viaSession(h, old, 'GET', '/console/billing/keys/self')
    expect([refused.status, refused.body.reason]).toEqual([401, 'session_ended'])
    expect((await viaSession(h, fresh, 'GET', '/console/billing/keys/self')).status).toBe(200)
  })

  it('when its key is revoked (401 key_revoked)', async () => {
    const acme = await h.createOrg('acme', { trial: true })
    const second = await expectStatus(
      h.post('/console/billing/keys', { name: 'second' }, { key: acme.key }),
      201,
    )
    const session = await signIn(h, second.api_key)
    expect((await viaSession(h, session, 'GET', '/console/billing/keys/self')).status).toBe(200)
    await expectStatus(h.request('DELETE', `/console/billing/keys/${second.key_id}`, { key: acme.key }), 200)
    const after = await viaSession(h, session, 'GET', '/console/billing/keys/self')
    expect([after.status, after.body.reason]).toEqual([401, 'key_revoked'])
  })

  it('is refused when the cookie names no session, or is missing at the session endpoint', async () => {
    const forged = await h.request('GET', '/console/billing/keys/self', {
      key: null,
      headers: { cookie: `rwa_session=${'x'.repeat(43)}` },
    })
    expect([forged.status, forged.body.reason]).toEqual([401, 'session_ended'])
    const none = await h.request('GET', CONSOLE_SESSION_PATH, { key: null })
    expect([none.status, none.body.reason]).toEqual([401, 'session_ended'])
  })
})

describe.runIf(process.env.RWA_TEST_DIALECT === 'postgres')('two instances over PostgreSQL and Redis', () => {
  it('honour one session: a sign-out on A is refused by B at once, a key revoked on A within a second', async () => {
    const b = await h.newInstance()
    const acme = await h.createOrg('acme', { trial: true })
    const second = await expectStatus(
      h.post('/console/billing/keys', { name: 'second' }, { key: acme.key }),
      201,
    )

    const first = await signIn(h, acme.key)
    expect((await viaSession(b, first, 'GET', '/console/billing/keys/self')).status).toBe(200)
    expect((await viaSession(b, first, 'POST', '/console/rwa/jurisdictions', { body: US })).status).toBe(201)
    await expectStatus(viaSession(h, first, 'DELETE', CONSOLE_SESSION_PATH), 200)
    const signedOut = await viaSession(b, first, 'GET', '/console/billing/keys/self')
    expect([signedOut.status, signedOut.body.reason]).toEqual([401, 'session_ended'])

    const other = await signIn(b, second.api_key)
    expect((await viaSession(b, other, 'GET', '/console/billing/keys/self')).status).toBe(200)
    await expectStatus(h.request('DELETE', `/console/billing/keys/${second.key_id}`, { key: acme.key }), 200)
    await within(
      1000,
      async () => (await viaSession(b, other, 'GET', '/console/billing/keys/self')).status === 401,
    )
  })
})
