import SQLite from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BATCH_OPERATIONS, type BatchOperationName } from '../../../../src/contract/batch.js'
import type { OperationSpec } from '../../../../src/contract/operation.js'
import { ROUTES } from '../../../../src/contract/routes.js'
import { snapshotOf } from '../../../support/db-snapshot.js'
import {
  buildWorld,
  expectStatus,
  OWNER,
  PROPERTY,
  RECIPIENT,
  SG,
  transferBody,
  US,
  type World,
} from '../../../support/governance.js'
import { withValuesAt } from '../../../../server/areas/rwa/batch/plan.js'
import { TEST_DIALECT } from '../../../support/backends.js'
import { createHarness, type Harness } from '../../../support/harness.js'

/*
 * POST /console/rwa/batch (docs/batches.md), on both databases: all or nothing by default, each alone with
 * `atomic: false`, a dry run that keeps nothing, refs checked before anything runs, each operation's
 * role, and limits counted per operation.
 */

let h: Harness
let w: World
beforeEach(async () => {
  h = await createHarness()
  w = await buildWorld(h)
  // The service's proof key is made once per database, by the first transfer that signs a proof.
  await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 1)), 201)
  // An investor's identity, which a new identity claiming its DID is refused (did_in_use).
  await expectStatus(
    h.post('/console/rwa/identities', { identity_id: 'bob', dids: [RECIPIENT], country: 'SG' }),
    201,
  )
})
afterEach(() => h.close())

type Op = { ref?: string; op: BatchOperationName; body: Record<string, unknown> }

const batch = (operations: Op[], extra: Record<string, unknown> = {}, key = h.adminKey) =>
  h.post('/console/rwa/batch', { operations, ...extra }, { key })

const NOBODY = 'did:web:nowhere:nobody'
const FAKE_TOKEN = 'tok_01M8420DESXZV8X28W2ZQWTKA9'
const { jurisdiction_id: _us, ...US_CONFIG } = US

/** What the database holds (every row but request counts), and the day's DIDs and skills. */
async function stored() {
  const usage = await h.ctx.db
    .selectFrom('usage_daily')
    .select(['dids_created', 'skills_registered'])
    .execute()
  return {
    rows: await snapshotOf(h.ctx.db),
    dids: usage.reduce((n, u) => n + Number(u.dids_created), 0),
    skills: usage.reduce((n, u) => n + Number(u.skills_registered), 0),
  }
}

const isLimitReached = (row: unknown) => String(row).includes('"limit.reached"')

/** What `stored()` says, less the `limit.reached` events and their marks. */
function withoutLimitReached(state: Awaited<ReturnType<typeof stored>>) {
  const rows = { ...state.rows }
  rows.events = rows.events!.filter((row) => !isLimitReached(row))
  rows.scheduled_event_marks = rows.scheduled_event_marks!.filter((row) => !isLimitReached(row))
  return { ...state, rows }
}

async function auditCount(): Promise<number> {
  const page = await expectStatus(h.get('/console/audit', { query: { limit: 1 } }), 200)
  return page.total
}

/** Operations that succeed in the usual world and change something each. */
const FILLERS: Op[] = [
  { op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
  { op: 'transfers.request', body: transferBody('', 1) },
  {
    op: 'credentials.issue',
    body: { jurisdiction: 'US', owner_did: OWNER, property_data: { ...PROPERTY, title_deed: 'FILL-1' } },
  },
]
const fillers = (): Op[] =>
  FILLERS.map((f) => (f.op === 'transfers.request' ? { ...f, body: transferBody(w.tokenId, 1) } : f))

/** For each kind of operation, a call its own rules refuse in the usual world, and its reason. */
const FAILING: Record<BatchOperationName, () => [Op, string]> = {
  'jurisdictions.register': () => [{ op: 'jurisdictions.register', body: US }, 'jurisdiction_exists'],
  'jurisdictions.update': () => [
    { op: 'jurisdictions.update', body: { jurisdiction_id: 'XX', ...US_CONFIG } },
    'jurisdiction_not_found',
  ],
  'trust.establish': () => [
    { op: 'trust.establish', body: { from_jurisdiction: 'US', to_jurisdiction: 'SG' } },
    'trust_exists',
  ],
  'trust.revoke': () => [
    { op: 'trust.revoke', body: { from_jurisdiction: 'SG', to_jurisdiction: 'US' } },
    'trust_not_found',
  ],
  'issuers.register': () => [
    {
      op: 'issuers.register',
      body: {
        issuer_id: 'acme-kyc',
        name: 'Acme KYC',
        did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
        requirements: { kyc: ['KYCCredential'] },
        jurisdictions: ['XX'],
      },
    },
    'jurisdiction_not_found',
  ],
  'identities.create': () => [
    { op: 'identities.create', body: { dids: ['did:web:lion:bob-new', RECIPIENT], country: 'SG' } },
    'did_in_use',
  ],
  'identities.update': () => [
    { op: 'identities.update', body: { identity_id: 'nobody', category: 'retail' } },
    'identity_not_found',
  ],
  'credentials.issue': () => [
    {
      op: 'credentials.issue',
      body: { jurisdiction: 'XX', owner_did: OWNER, property_data: { ...PROPERTY, title_deed: 'X-1' } },
    },
    'jurisdiction_not_found',
  ],
  'attestations.submit': () => [
    {
      op: 'attestations.submit',
      body: { jurisdiction: 'SG', subject_did: RECIPIENT, type: 'no_such_check', attester: 'Lion KYC' },
    },
    'unknown_requirement',
  ],
  'attestations.revoke': () => [
    { op: 'attestations.revoke', body: { attestation_id: 'att_01M8420DESXZV8X28W2ZQWTKA9' } },
    'attestation_not_found',
  ],
  'attestations.suspend': () => [
    { op: 'attestations.suspend', body: { attestation_id: 'att_01M8420DESXZV8X28W2ZQWTKA9' } },
    'attestation_not_found',
  ],
  'attestations.reinstate': () => [
    { op: 'attestations.reinstate', body: { attestation_id: 'att_01M8420DESXZV8X28W2ZQWTKA9' } },
    'attestation_not_found',
  ],
  'tokens.create': () => [
    { op: 'tokens.create', body: { credential_id: w.credentialId, total_supply: 10 } },
    'credential_already_tokenized',
  ],
  'tokens.rules': () => [
    { op: 'tokens.rules', body: { token_id: FAKE_TOKEN, max_holders: 3 } },
    'token_not_found',
  ],
  'tokens.pause': () => [{ op: 'tokens.pause', body: { token_id: FAKE_TOKEN } }, 'token_not_found'],
  'tokens.unpause': () => [{ op: 'tokens.unpause', body: { token_id: w.tokenId } }, 'token_not_paused'],
  'tokens.freeze': () => [
    { op: 'tokens.freeze', body: { token_id: w.tokenId, holder_did: NOBODY, jurisdiction: 'US', amount: 1 } },
    'holding_not_found',
  ],
  'transfers.request': () => [
    { op: 'transfers.request', body: transferBody(w.tokenId, 5000) },
    'insufficient_holding',
  ],
}

describe('the declaration', () => {
  it('names operations of the route table that write, and audits what they audit', () => {
    const actions = new Set<string>()
    for (const { operationId } of Object.values(BATCH_OPERATIONS)) {
      const operation = ROUTES[operationId] as OperationSpec
      expect(operation.method, operationId).not.toBe('get')
      expect(operation.access, operationId).toBe('governance')
      for (const action of operation.audit ?? []) actions.add(action)
    }
    expect([...(ROUTES.batch.audit ?? [])].sort()).toEqual([...actions].sort())
  })
})

describe('a batch that succeeds', () => {
  it('runs in order with refs, answers each operation as it alone would, and audits each with the request id', async () => {
    const before = await auditCount()
    const res = await h.request('POST', '/console/rwa/batch', {
      headers: { 'X-Request-Id': 'req-batch-1' },
      body: {
        operations: [
          { op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
          {
            ref: 'deed',
            op: 'credentials.issue',
            body: { jurisdiction: 'US', owner_did: OWNER, property_data: { ...PROPERTY, title_deed: 'B-1' } },
          },
          {
            ref: 'tok',
            op: 'tokens.create',
            body: { credential_id: { $result: 'deed.credential_id' }, total_supply: 50 },
          },
          { op: 'tokens.rules', body: { token_id: { $result: 'tok.token_id' }, max_holders: 7 } },
          { op: 'transfers.request', body: transferBody(w.tokenId, 10) },
          // A rejected transfer is a result, not a failure.
          { op: 'transfers.request', body: transferBody(w.tokenId, 10, { recipient_did: NOBODY }) },
        ],
      },
    })
    expect(res.status, res.text).toBe(200)
    const { results } = res.body
    expect(results.map((r: any) => [r.index, r.ref, r.op, r.status])).toEqual([
      [0, null, 'jurisdictions.register', 201],
      [1, 'deed', 'credentials.issue', 201],
      [2, 'tok', 'tokens.create', 201],
      [3, null, 'tokens.rules', 200],
      [4, null, 'transfers.request', 201],
      [5, null, 'transfers.request', 201],
    ])
    expect(res.body.dry_run).toBe(false)
    expect(results[2].body.credential_id).toBe(results[1].body.credential_id)
    expect(results[3].body).toMatchObject({ token_id: results[2].body.token_id, rules: { max_holders: 7 } })
    expect(results[4].body.status).toBe('approved')
    expect(results[5].body.status).toBe('rejected')
    // The records are those of the single routes.
    const token = await expectStatus(h.get(`/console/rwa/tokens/${results[2].body.token_id}`), 200)
    expect(token.rules.max_holders).toBe(7)
    const events = await expectStatus(h.get('/console/audit', { query: { limit: 20 } }), 200)
    expect(events.total - before).toBe(6)
    const fresh = events.events.slice(0, 6).reverse()
    expect(fresh.map((e: any) => e.action)).toEqual([
      'jurisdiction.registered',
      'credential.issued',
      'token.created',
      'token.rules_updated',
      'transfer.approved',
      'transfer.rejected',
    ])
    for (const e of fresh) expect(e.request_id).toBe('req-batch-1')
  })

  it('replays the answer for the same Idempotency-Key, running nothing twice', async () => {
    const body = { operations: [{ op: 'transfers.request', body: transferBody(w.tokenId, 3) }] }
    const headers = { 'Idempotency-Key': 'batch-key-1' }
    const first = await h.request('POST', '/console/rwa/batch', { body, headers })
    expect(first.status).toBe(200)
    const again = await h.request('POST', '/console/rwa/batch', { body, headers })
    expect(again.status).toBe(200)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(again.text).toBe(first.text)
    const transfers = await expectStatus(h.get('/console/rwa/transfers', { query: { limit: 1 } }), 200)
    expect(transfers.total).toBe(2)
  })
})

describe('atomic (default): the first failure rolls everything back', () => {
  const kinds = Object.keys(FAILING) as BatchOperationName[]
  it.each(kinds)('%s failing first, in the middle and last', async (kind) => {
    const [failing, reason] = FAILING[kind]()
    const before = await stored()
    for (const position of [0, 2, 3]) {
      const operations = fillers()
      operations.splice(position, 0, { ...failing, ref: 'bad' })
      const res = await batch(operations)
      expect(res.status, res.text).toBe(422)
      expect(res.body).toMatchObject({
        code: 'unprocessable',
        reason: 'batch_operation_failed',
        context: { index: position, ref: 'bad', op: kind },
        operation_problem: { reason },
      })
      expect(await stored()).toEqual(before)
    }
  })

  it.runIf(TEST_DIALECT === 'sqlite')(
    'on SQLite its operations run without savepoints of their own (atomic: false keeps one each)',
    async () => {
      // Every statement SQLite runs that writes nothing back (savepoints among them).
      const statement = Object.getPrototypeOf(new SQLite(':memory:').prepare('select 1'))
      const run = vi.spyOn(statement, 'run')
      const savepoints = () =>
        run.mock.contexts.filter((s: { source: string }) => s.source.startsWith('savepoint ')).length
      try {
        await expectStatus(batch(fillers()), 200)
        expect(savepoints()).toBe(0)
        await expectStatus(batch(fillers(), { atomic: false }), 200)
        // One an operation, and one its service's transaction opens inside it: the jurisdiction's; a
        // transfer's transaction is none on SQLite (server/areas/rwa/transfers/routes.ts), nor is the
        // credential's issuance inside a write (ownTransaction): their operation's savepoint undoes them.
        expect(savepoints()).toBe(4)
        // A single transfer POST: its write's one transaction, no savepoint, whether approved or refused.
        await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 1)), 201)
        await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, 10 ** 12)), 409)
        expect(savepoints()).toBe(4)
      } finally {
        run.mockRestore()
      }
    },
  )

  it('a ref to a field its answer does not have, inherited ones included, is the failure', async () => {
    const before = await stored()
    for (const field of ['nope', 'constructor', '__proto__', 'jurisdiction_id.length', 'frameworks.length']) {
      const res = await batch([
        { ref: 'j', op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
        { op: 'tokens.pause', body: { token_id: { $result: `j.${field}` } } },
      ])
      expect(res.status).toBe(422)
      expect(res.body.operation_problem.errors).toEqual([
        { path: 'operations[1].body.token_id', message: expect.stringContaining('its answer does not have') },
      ])
    }
    expect(await stored()).toEqual(before)
  })

  it('an operation refused by its schema once its ref is filled is the failure, with its field named', async () => {
    const before = await stored()
    const res = await batch([
      { ref: 'j', op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
      // A jurisdiction's name is no token id.
      { op: 'tokens.pause', body: { token_id: { $result: 'j.name' } } },
    ])
    expect(res.status).toBe(422)
    expect(res.body.context).toEqual({ index: 1, ref: null, op: 'tokens.pause' })
    expect(res.body.operation_problem).toMatchObject({
      reason: 'invalid_field',
      errors: [{ path: 'operations[1].body.token_id' }],
    })
    expect(await stored()).toEqual(before)
  })
})

describe('refused before anything runs', () => {
  it('a $result to a missing or later ref is 400 naming operations[i]', async () => {
    const before = await stored()
    const later = await batch([
      { ref: 'first', op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
      { op: 'tokens.pause', body: { token_id: { $result: 'tok.token_id' } } },
      { ref: 'tok', op: 'tokens.create', body: { credential_id: w.credentialId, total_supply: 1 } },
    ])
    expect(later.status).toBe(400)
    expect(later.body.reason).toBe('invalid_field')
    expect(later.body.errors).toEqual([
      { path: 'operations[1].body.token_id', message: expect.stringContaining('runs after operations[1]') },
    ])
    const missing = await batch([
      { op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
      {
        op: 'transfers.request',
        body: { ...transferBody(w.tokenId, 1), token_id: { $result: 'nope.token_id' } },
      },
    ])
    expect(missing.status).toBe(400)
    expect(missing.body.errors).toEqual([
      {
        path: 'operations[1].body.token_id',
        message: expect.stringContaining('no operation of the batch has'),
      },
    ])
    const self = await batch([
      { ref: 'me', op: 'tokens.pause', body: { token_id: { $result: 'me.token_id' } } },
    ])
    expect(self.status).toBe(400)
    // A whole body is no ref: it was a 500 once filled with a null field.
    const whole = await batch([
      { ref: 'j', op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
      { op: 'tokens.pause', body: { $result: 'j.name' } },
    ])
    expect(whole.status).toBe(400)
    expect(whole.body.errors).toEqual([
      { path: 'operations[1].body', message: expect.stringContaining('not for all of it') },
    ])
    const twice = await batch([
      { ref: 'a', op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
      { ref: 'a', op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'KR' } },
    ])
    expect(twice.status).toBe(400)
    expect(twice.body.errors[0].path).toBe('operations[1].ref')
    const malformed = await batch([
      { ref: 'a', op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
      { op: 'tokens.pause', body: { token_id: { $result: 'a' } } },
    ])
    expect(malformed.status).toBe(400)
    expect(malformed.body.errors[0].path).toBe('operations[1].body.token_id')
    expect(await stored()).toEqual(before)
  })

  it('the old { "$ref": "name.field" } is 400 naming the field and $result, atomic or not, before anything runs', async () => {
    // OpenAPI tools read every `$ref` key as a JSON Reference: a batch reference is `$result` now.
    const before = await stored()
    for (const atomic of [true, false]) {
      const res = await batch(
        [
          { ref: 'j', op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
          { op: 'tokens.pause', body: { token_id: { $ref: 'j.jurisdiction_id' } } },
        ],
        { atomic },
      )
      expect(res.status).toBe(400)
      expect(res.body.reason).toBe('invalid_field')
      expect(res.body.errors).toEqual([
        {
          path: 'operations[1].body.token_id',
          message: expect.stringContaining('{ "$result": "name.field" }'),
        },
      ])
    }
    expect(await stored()).toEqual(before)
  })

  it("an operation its own schema refuses is 400 naming operations[i]'s field", async () => {
    const before = await stored()
    const res = await batch([
      { op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
      { op: 'transfers.request', body: { ...transferBody(w.tokenId, -1), colour: 'red' } },
      { op: 'tokens.rules', body: { max_holders: 3 } },
    ])
    expect(res.status).toBe(400)
    expect(res.body.errors.map((e: any) => e.path).sort()).toEqual([
      'operations[1].body.amount',
      'operations[1].body.colour',
      'operations[2].body.token_id',
    ])
    expect(await stored()).toEqual(before)
  })

  it('an unknown field or a too long array beside a $result is 400 before anything runs, atomic or not', async () => {
    const before = await stored()
    const register = {
      ref: 'j',
      op: 'jurisdictions.register',
      body: { ...SG, jurisdiction_id: 'JP' },
    } as const
    for (const atomic of [true, false]) {
      const unknown = await batch(
        [
          register,
          {
            op: 'trust.establish',
            body: { from_jurisdiction: { $result: 'j.jurisdiction_id' }, to_jurisdiction: 'US', mutal: true },
          },
        ],
        { atomic },
      )
      expect(unknown.status).toBe(400)
      expect(unknown.body.errors).toEqual([{ path: 'operations[1].body.mutal', message: 'Unknown field' }])
      // Refs cannot shorten an array: 101 frameworks are too many, whatever each turns out to be.
      const long = await batch(
        [
          register,
          {
            op: 'jurisdictions.update',
            body: { ...US, frameworks: Array.from({ length: 101 }, () => ({ $result: 'j.name' })) },
          },
        ],
        { atomic },
      )
      expect(long.status).toBe(400)
      expect(long.body.errors).toEqual([
        { path: 'operations[1].body.frameworks', message: expect.any(String) },
      ])
    }
    expect(await stored()).toEqual(before)
  })

  it('a body nested deeper than 32 levels is 400 naming it, not a crash', async () => {
    // Written as text: deeper than JSON.stringify itself can go.
    const at = (depth: number) =>
      h.request('POST', '/console/rwa/batch', {
        rawBody: `{"operations":[{"op":"trust.establish","body":{"from_jurisdiction":"US","to_jurisdiction":"SG","x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}}]}`,
      })
    // The body is one level, x's arrays the rest: 32 levels in all is the most, and then x is only unknown.
    const deepest = await at(32)
    expect(deepest.status).toBe(400)
    expect(deepest.body.errors).toEqual([{ path: 'operations[0].body.x', message: 'Unknown field' }])
    for (const depth of [33, 5000, 100_000]) {
      const res = await at(depth)
      expect(res.status).toBe(400)
      expect(res.body.errors).toEqual([
        // The batch's own schema refuses it, and names it as it names its other fields.
        { path: 'operations.0.body', message: expect.stringContaining('nested deeper than 32 levels') },
      ])
    }
  })

  it('more than 1,000 operations, none, or an unknown op is 400', async () => {
    const op: Op = { op: 'tokens.pause', body: { token_id: w.tokenId } }
    expect((await batch(Array.from({ length: 1001 }, () => op))).status).toBe(400)
    expect((await batch([])).status).toBe(400)
    expect((await batch([{ op: 'tokens.forced' as BatchOperationName, body: {} }])).status).toBe(400)
  })

  it('an operation the key has no role for is 403 naming it; the roles it has run theirs', async () => {
    const key = await expectStatus(
      h.post('/console/billing/keys', { org_id: 'admin', name: 'mover', roles: ['transfers'] }),
      201,
    )
    const before = await stored()
    const refused = await batch(
      [
        { op: 'transfers.request', body: transferBody(w.tokenId, 1) },
        { op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
      ],
      {},
      key.api_key,
    )
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({
      reason: 'role_required',
      context: {
        index: 1,
        op: 'jurisdictions.register',
        roles: ['owner', 'issuer'],
        key_roles: ['transfers'],
      },
    })
    expect(await stored()).toEqual(before)
    const ok = await batch([{ op: 'transfers.request', body: transferBody(w.tokenId, 1) }], {}, key.api_key)
    expect(ok.status).toBe(200)
  })
})

describe('tenancy', () => {
  it("another organization's records are not found, as by the single operations", async () => {
    const other = await h.createOrg('globex', { tier: 'pro' })
    const res = await batch([{ op: 'tokens.pause', body: { token_id: w.tokenId } }], {}, other.key)
    expect(res.status).toBe(422)
    expect(res.body.operation_problem).toMatchObject({ status: 404, reason: 'token_not_found' })
    const token = await expectStatus(h.get(`/console/rwa/tokens/${w.tokenId}`), 200)
    expect(token.status).toBe('active')
  })
})

describe('atomic: false', () => {
  it('keeps each operation that succeeds; a failure is its result, and a ref to it fails too', async () => {
    const before = await auditCount()
    const res = await batch(
      [
        { op: 'transfers.request', body: transferBody(w.tokenId, 5) },
        { ref: 'bad', op: 'tokens.create', body: { credential_id: w.credentialId, total_supply: 1 } },
        { op: 'tokens.pause', body: { token_id: { $result: 'bad.token_id' } } },
        { ref: 'jp', op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
      ],
      { atomic: false },
    )
    expect(res.status).toBe(200)
    expect(res.body.results.map((r: any) => [r.status, r.body.reason ?? null])).toEqual([
      [201, null],
      [409, 'credential_already_tokenized'],
      [400, 'invalid_field'],
      [201, null],
    ])
    expect(res.body.results[2].body.errors[0].message).toContain('whose operation failed')
    await expectStatus(h.get('/console/rwa/jurisdictions/JP'), 200)
    const transfers = await expectStatus(h.get('/console/rwa/transfers', { query: { limit: 1 } }), 200)
    expect(transfers.total).toBe(2)
    // Two events: the failed operations left none.
    expect((await auditCount()) - before).toBe(2)
  })
})

describe('dry run', () => {
  it('runs everything for real and keeps nothing: rows, audit log, usage', async () => {
    const before = await stored()
    const audit = await auditCount()
    const res = await batch(
      [
        { op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
        {
          ref: 'deed',
          op: 'credentials.issue',
          body: {
            jurisdiction: 'US',
            owner_did: 'did:web:acme:newcomer',
            property_data: { ...PROPERTY, title_deed: 'DRY-1' },
          },
        },
        {
          ref: 'tok',
          op: 'tokens.create',
          body: { credential_id: { $result: 'deed.credential_id' }, total_supply: 50 },
        },
        { op: 'transfers.request', body: transferBody(w.tokenId, 10) },
        { op: 'tokens.freeze', body: { token_id: w.tokenId, holder_did: OWNER } },
      ],
      { dry_run: true },
    )
    expect(res.status, res.text).toBe(200)
    expect(res.body.dry_run).toBe(true)
    expect(res.body.results.map((r: any) => r.status)).toEqual([201, 201, 201, 201, 200])
    expect(await stored()).toEqual(before)
    expect(await auditCount()).toBe(audit)
    // What it checked is real: the same batch runs as it said.
    const real = await batch(
      res.body.results.map((r: any, i: number) => ({
        ...(r.ref ? { ref: r.ref } : {}),
        op: r.op,
        body: [
          { ...SG, jurisdiction_id: 'JP' },
          {
            jurisdiction: 'US',
            owner_did: 'did:web:acme:newcomer',
            property_data: { ...PROPERTY, title_deed: 'DRY-1' },
          },
          { credential_id: { $result: 'deed.credential_id' }, total_supply: 50 },
          transferBody(w.tokenId, 10),
          { token_id: w.tokenId, holder_did: OWNER },
        ][i],
      })),
    )
    expect(real.body.results.map((r: any) => r.status)).toEqual([201, 201, 201, 201, 200])
    expect((await auditCount()) - audit).toBe(5)
  })

  it('a dry run that fails answers the failure and keeps nothing', async () => {
    const before = await stored()
    const [failing] = FAILING['transfers.request']()
    const res = await batch([...fillers(), failing], { dry_run: true })
    expect(res.status).toBe(422)
    expect(res.body.context.index).toBe(3)
    expect(await stored()).toEqual(before)
  })
})

describe('limits', () => {
  it('counts each operation as a request, and refuses whole a batch larger than what is left of the minute', async () => {
    const org = await h.createOrg('acme', { tier: 'pro' }) // 500 requests a minute
    h.clock.advance(61_000)
    const world = await buildWorld(h, org.key) // 9 requests
    const transfer: Op = { op: 'transfers.request', body: transferBody(world.tokenId, 1) }
    const first = await batch(
      Array.from({ length: 250 }, () => transfer),
      {},
      org.key,
    )
    expect(first.status).toBe(200)
    expect(first.headers.get('RateLimit-Remaining')).toBe(String(500 - 9 - 250))
    const transfers = async () =>
      (await expectStatus(h.get('/console/rwa/transfers', { key: org.key, query: { limit: 1 } }), 200)).total
    expect(await transfers()).toBe(250)

    const before = await stored()
    // 9 + 250 + 1 (the list above) + 241 = 501: one too many.
    const refused = await batch(
      Array.from({ length: 241 }, () => transfer),
      {},
      org.key,
    )
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ reason: 'rate_limited', context: { window: 'minute', limit: 500 } })
    expect(refused.body.detail).toContain('A batch of 241 operations counts 241 requests')
    // The refusal stores its limit.reached event (docs/webhooks.md; written on its own), and nothing else.
    let after = await stored()
    for (let i = 0; i < 100 && !after.rows.events!.some(isLimitReached); i++) {
      await new Promise((r) => setTimeout(r, 50))
      after = await stored()
    }
    expect(after.rows.events!.filter(isLimitReached)).toHaveLength(1)
    expect(withoutLimitReached(after)).toEqual(withoutLimitReached(before))
    // The refused batch counted as the one request it was (261 so far); what is left now fits exactly.
    const fits = await batch(
      Array.from({ length: 239 }, () => transfer),
      {},
      org.key,
    )
    expect(fits.status, fits.text).toBe(200)
    expect(fits.headers.get('RateLimit-Remaining')).toBe('0')
    h.clock.advance(61_000)
    expect(await transfers()).toBe(250 + 239)
  })
})

describe('concurrent batches', () => {
  it('moving the same holdings through two instances keep the ledger: each token sums to its supply', async () => {
    // A second token with its own title verification, so that batches touch two tokens in either order.
    const c2 = await expectStatus(
      h.post('/console/rwa/credentials', {
        jurisdiction: 'US',
        owner_did: OWNER,
        property_data: { ...PROPERTY, title_deed: 'SECOND' },
      }),
      201,
    )
    await expectStatus(
      h.post('/console/rwa/attestations', {
        jurisdiction: 'US',
        subject_did: OWNER,
        type: 'title_verification',
        attester: 'First American Title',
        credential_id: c2.credential_id,
      }),
      201,
    )
    const t2 = (
      await expectStatus(
        h.post('/console/rwa/tokenize', { credential_id: c2.credential_id, total_supply: 1000 }),
        201,
      )
    ).token_id
    const other = await h.newInstance()
    const tokens = [w.tokenId, t2]
    const sends = Array.from({ length: 8 }, (_, i) => {
      const order = i % 2 === 0 ? tokens : [...tokens].reverse()
      const operations = Array.from({ length: 20 }, (_, j) => ({
        op: 'transfers.request' as const,
        body: transferBody(order[j % 2]!, 12 + (i % 3)),
      }))
      return (i % 2 === 0 ? h : other).post('/console/rwa/batch', { operations, atomic: i % 4 !== 3 })
    })
    const responses = await Promise.all(sends)
    for (const res of responses) expect([200, 422], res.text).toContain(res.status)
    // More units were asked for than the tokens have: some operations failed.
    const failed = responses.filter(
      (res) => res.status === 422 || res.body.results.some((r: any) => r.status >= 400),
    )
    expect(failed.length).toBeGreaterThan(0)
    for (const token of tokens) {
      const holdings = await expectStatus(
        h.get(`/console/rwa/tokens/${token}/holdings`, { query: { limit: 100 } }),
        200,
      )
      const sum = holdings.holdings.reduce((n: number, x: any) => n + x.amount, 0)
      expect(sum).toBe(1000)
      const approved = await expectStatus(
        h.get('/console/rwa/transfers', { query: { token_id: token, status: 'approved', limit: 100 } }),
        200,
      )
      const moved = approved.transfers.reduce((n: number, t: any) => n + t.amount, 0)
      const owner = holdings.holdings.find((x: any) => x.holder_did === OWNER)?.amount ?? 0
      expect(owner).toBe(1000 - moved)
    }
    expect(h.loggedErrors).toEqual([])
    expect(other.loggedErrors).toEqual([])
  })
})

describe('filling refs (withValuesAt)', () => {
  it('puts each value at its path in a copy, leaving the body and what no path crosses as they were', () => {
    const untouched = { deep: ['as is'] }
    const body = {
      a: [1, { $result: 'x.y' }, 3, { $result: 'x.z' }],
      b: { c: { $result: 'x.w' } },
      untouched,
    }
    const original = structuredClone(body)
    const filled = withValuesAt(body, [
      { path: ['a', 1], value: 'one' },
      { path: ['a', 3], value: 'three' },
      { path: ['b', 'c'], value: { an: 'object' } },
      { path: ['__proto__'], value: 'an own field' },
    ]) as Record<string, unknown>
    expect(filled).toEqual({
      a: [1, 'one', 3, 'three'],
      b: { c: { an: 'object' } },
      untouched,
      ['__proto__']: 'an own field',
    })
    expect(Object.getPrototypeOf(filled)).toBe(Object.prototype)
    expect(filled.untouched).toBe(untouched)
    expect(body).toEqual(original)
  })
})
