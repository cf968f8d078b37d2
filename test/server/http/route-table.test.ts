import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REASONS } from '../../../src/contract/errors.js'
import type { OperationSpec } from '../../../src/contract/operation.js'
import { ROUTES } from '../../../src/contract/routes.js'
import { createHarness, type Harness, type TestResponse } from '../../support/harness.js'

/*
 * The route table is the one place an operation's access is declared: these tests are generated from
 * it, so an operation added to it is covered without being named here. Each operation is called as it
 * is declared (its path parameters filled, its example body), by a caller of each kind, and its access
 * must be enforced exactly as declared. What the call does past its access (a 404 for a made-up id, a
 * 400 for an example that no longer fits) is not the question here; the harness checks every answer,
 * refusals included, against the document the same table produces.
 */

const OPERATIONS = Object.values(ROUTES) as OperationSpec[]

/** A value for each path parameter: an id of the right shape for its collection. */
function concretePath(operation: OperationSpec): string {
  const collection = operation.path.split('/')[3] ?? ''
  const prefixes: Record<string, string> = {
    credentials: 'cred',
    attestations: 'att',
    tokens: 'tok',
    transfers: 'tx',
    proofs: 'prf',
    status: 'sl',
  }
  return operation.path
    .replace('{org_id}', 'acme')
    .replace('{key_id}', 'key_01M80QDRFAQSS9ZK6YPFRFRQA8')
    .replace('{list_id}', 'sl_01M8420DESXZV8X28W2ZQWTKA9')
    .replace(
      '{id}',
      collection === 'jurisdictions' ? 'US' : `${prefixes[collection]}_01M8420DESXZV8X28W2ZQWTKA9`,
    )
}

let h: Harness
let pro: { key: string }
let revoked: string
beforeAll(async () => {
  h = await createHarness()
  pro = await h.createOrg('acme', { tier: 'pro' })
  const spare = await h.createOrg('spare-org', { tier: 'pro' })
  revoked = spare.key
  expect((await h.request('DELETE', `/console/billing/keys/${spare.keyId}`)).status).toBe(200)
})
afterAll(() => h.close())

const call = (operation: OperationSpec, key: string | null): Promise<TestResponse> =>
  h.request(operation.method.toUpperCase(), concretePath(operation), {
    key,
    body: operation.body ? operation.body.example : undefined,
  })

/** True when the answer is a refusal of the caller's access (its key, its plan, its kind of key). */
const accessRefused = (res: TestResponse) =>
  res.status === 401 || ['plan_required', 'admin_key_required'].includes(res.body?.reason)

describe.each(OPERATIONS.map((operation) => [operation.operationId, operation] as const))(
  '%s',
  (_id, operation) => {
    it(`is ${operation.access}: without a key, ${operation.access === 'public' ? 'it answers' : '401 key_missing'}`, async () => {
      const res = await call(operation, null)
      if (operation.access === 'public') expect(accessRefused(res)).toBe(false)
      else expect([res.status, res.body.reason]).toEqual([401, 'key_missing'])
    })

    it.skipIf(operation.access === 'public')(
      'refuses a malformed, an unknown and a revoked key',
      async () => {
        expect((await call(operation, 'rwa_live_short')).body.reason).toBe('key_malformed')
        expect((await call(operation, `rwa_live_${'A'.repeat(43)}`)).body.reason).toBe('key_unknown')
        expect((await call(operation, revoked)).body.reason).toBe('key_revoked')
      },
    )

    it('a key of each kind gets exactly what the declaration says', async () => {
      // A free organization of its own: one shared by every operation would pass the free tier's limit per
      // minute, and a 429 would hide the refusal under test.
      const asFree = await call(operation, (await h.createOrg(`free-${operation.operationId}`)).key)
      const asPro = await call(operation, pro.key)
      const asAdmin = await call(operation, h.adminKey)
      switch (operation.access) {
        case 'public':
        case 'key':
          for (const res of [asFree, asPro, asAdmin]) expect(accessRefused(res)).toBe(false)
          break
        case 'governance':
          expect([asFree.status, asFree.body.reason]).toEqual([403, 'plan_required'])
          for (const res of [asPro, asAdmin]) expect(accessRefused(res)).toBe(false)
          break
        case 'admin':
        case 'operator':
          for (const res of [asFree, asPro])
            expect([res.status, res.body.reason]).toEqual([403, 'admin_key_required'])
          expect(accessRefused(asAdmin)).toBe(false)
          break
      }
    })

    it('declares only reasons of the table, each with its status', () => {
      for (const reason of operation.refusals ?? []) expect(REASONS).toHaveProperty(reason)
    })
  },
)

describe('another organization', () => {
  // Billing operations that name an organization: a member key acts on its own alone.
  const naming = OPERATIONS.filter(
    (operation) =>
      operation.access === 'key' &&
      (operation.path.includes('{org_id}') ||
        operation.operationId === 'createKey' ||
        operation.operationId === 'listKeys'),
  )

  it('covers every billing operation that names an organization', () => {
    expect(naming.map((operation) => operation.operationId).sort()).toEqual(
      ['createKey', 'getSubscription', 'getUsage', 'listKeys'].sort(),
    )
  })

  it.each(naming.map((operation) => [operation.operationId, operation] as const))(
    '%s refuses a member key naming another organization (403 other_organization), and changes nothing',
    async (_id, operation) => {
      const path = concretePath(operation).replace('/acme', '/globex')
      const res = await h.request(operation.method.toUpperCase(), path, {
        key: pro.key,
        query: operation.operationId === 'listKeys' ? { org_id: 'globex' } : undefined,
        body: operation.operationId === 'createKey' ? { org_id: 'globex', name: 'x' } : undefined,
      })
      expect([res.status, res.body.reason, res.body.context]).toEqual([
        403,
        'other_organization',
        { org_id: 'globex', key_org_id: 'acme' },
      ])
      expect((await h.get('/console/billing/keys', { query: { org_id: 'globex' } })).body.total).toBe(0)
    },
  )
})
