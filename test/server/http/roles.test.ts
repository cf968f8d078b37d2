import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checksRoles, type OperationSpec, rolesOf } from '../../../src/contract/operation.js'
import { ROLES, type Role } from '../../../src/contract/roles.js'
import { ROUTES } from '../../../src/contract/routes.js'
import { snapshotOf } from '../../support/db-snapshot.js'
import { buildWorld, expectStatus, type World } from '../../support/governance.js'
import { createHarness, type Harness, type TestResponse } from '../../support/harness.js'

/*
 * The role × operation matrix, generated from the route table: every operation a key calls is called
 * with a key of each role, in an organization whose records the paths name (a jurisdiction, a
 * credential, an attestation and a token that exist, a key of its own). Exactly the roles its
 * declaration admits get past access; every other role is refused with 403 role_required naming the
 * roles that would do, and the database is the same after those refusals as before them.
 */

const KEYED = (Object.values(ROUTES) as OperationSpec[]).filter(
  (operation) => operation.access === 'key' || operation.access === 'governance',
)

let h: Harness
let world: World
let victimKeyId: string
const keyOf = {} as Record<Role, string>
beforeAll(async () => {
  h = await createHarness()
  const acme = await h.createOrg('acme', { tier: 'pro' })
  world = await buildWorld(h, acme.key)
  for (const role of ROLES) {
    const key = await expectStatus(
      h.post('/console/billing/keys', { org_id: 'acme', name: role, roles: [role] }),
      201,
    )
    keyOf[role] = key.api_key
  }
  const victim = await expectStatus(h.post('/console/billing/keys', { org_id: 'acme', name: 'victim' }), 201)
  victimKeyId = victim.key_id
})
afterAll(() => h.close())

/** The path with its parameters naming records of the organization that exist. */
function pathOf(operation: OperationSpec): string {
  const collection = operation.path.split('/')[3] ?? ''
  const ids: Record<string, string> = {
    jurisdictions: 'US',
    credentials: world.credentialId,
    attestations: world.attestations.kyc!,
    tokens: world.tokenId,
    transfers: 'tx_01M8420DESXZV8X28W2ZQWTKA9',
    proofs: 'prf_01M8420DESXZV8X28W2ZQWTKA9',
  }
  return operation.path
    .replace('{org_id}', 'acme')
    .replace('{key_id}', victimKeyId)
    .replace('{id}', ids[collection] ?? 'unknown')
}

/**
 * A batch's own operations are checked against their roles too
 * (docs/batches.md, "Roles, limits, idempotency, audit"): each role sends one it may run (its body left
 * empty, so it is refused as invalid, past access).
 */
const BATCH_OP_OF: Record<Role, string> = {
  owner: 'jurisdictions.register',
  issuer: 'credentials.issue',
  agent: 'tokens.pause',
  transfers: 'transfers.request',
  auditor: 'transfers.request',
}

const call = (operation: OperationSpec, role: Role): Promise<TestResponse> =>
  h.request(operation.method.toUpperCase(), pathOf(operation), {
    key: keyOf[role],
    body:
      operation.operationId === 'batch'
        ? { operations: [{ op: BATCH_OP_OF[role], body: {} }] }
        : operation.body
          ? operation.body.example
          : undefined,
  })

const accessRefused = (res: TestResponse) =>
  res.status === 401 || ['role_required', 'plan_required', 'admin_key_required'].includes(res.body?.reason)

/** The verifiable log's reads (docs/governance.md, "The verifiable log"): the audit log's roles. */
const AUDIT_LOG_READS: string[] = [
  'getLogCheckpoint',
  'listLogEntries',
  'getLogInclusionProof',
  'getLogConsistencyProof',
]

describe('every role may read: every GET a key calls admits every role, but the audit log', () => {
  const reads = KEYED.filter((operation) => operation.method === 'get')
  it.each(reads.map((o) => [o.operationId, o] as const))('%s', (id, operation) => {
    if (id === 'listAuditEvents' || AUDIT_LOG_READS.includes(id))
      expect(rolesOf(operation)).toEqual(['owner', 'auditor'])
    else {
      expect(rolesOf(operation)).toEqual(ROLES)
      expect(checksRoles(operation)).toBe(false)
    }
  })
})

describe.each(KEYED.map((operation) => [operation.operationId, operation] as const))(
  '%s',
  (_id, operation) => {
    const allowed = rolesOf(operation)
    const refused = ROLES.filter((role) => !allowed.includes(role))

    it(`admits ${allowed.join(', ')}${refused.length ? `; refuses ${refused.join(', ')} and changes nothing` : ''}`, async () => {
      // A fresh minute for each operation: the calls of the whole table stay inside the Pro limit.
      h.clock.advance(61_000)
      const before = await snapshotOf(h.ctx.db)
      for (const role of refused) {
        const res = await call(operation, role)
        expect([res.status, res.body.reason, res.body.context]).toEqual([
          403,
          'role_required',
          { roles: allowed, key_roles: [role] },
        ])
        // Refused once counted against the limits: the RateLimit headers are there.
        expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/)
      }
      expect(await snapshotOf(h.ctx.db)).toEqual(before)
      for (const role of allowed) {
        const res = await call(operation, role)
        expect(accessRefused(res), `${role}: ${res.status} ${res.text}`).toBe(false)
      }
    })
  },
)

describe('the declarations', () => {
  it('owner may call everything; writes name their roles, reads are open to all', () => {
    for (const operation of KEYED) expect(rolesOf(operation)).toContain('owner')
    const byRole = (role: Role) =>
      KEYED.filter((o) => o.method !== 'get' && rolesOf(o).includes(role))
        .map((o) => o.operationId)
        .sort()
    expect(byRole('auditor')).toEqual([])
    expect(byRole('transfers')).toEqual(['batch', 'requestTransfer'])
    expect(byRole('issuer')).toEqual(
      [
        'batch',
        'establishTrust',
        'revokeTrust',
        'registerJurisdiction',
        'updateJurisdiction',
        'removeJurisdiction',
        'issueCredential',
        'revokeCredential',
        'submitAttestation',
        'revokeAttestation',
        'suspendCredential',
        'reinstateCredential',
        'suspendAttestation',
        'reinstateAttestation',
        'tokenize',
        'registerIssuer',
        'updateIssuer',
        'removeIssuer',
        'refreshIssuer',
        'createIdentity',
        'updateIdentity',
        'changeIdentityDids',
      ].sort(),
    )
    expect(byRole('agent')).toEqual(
      [
        'batch',
        'mintTokens',
        'burnTokens',
        'setTokenRules',
        'pauseToken',
        'unpauseToken',
        'freezeHolder',
        'unfreezeHolder',
        'forcedTransfer',
        'recoverIdentity',
        'approveApproval',
        'rejectApproval',
      ].sort(),
    )
    // Keys are the owner's alone.
    for (const id of ['createKey', 'revokeKey', 'rerollKey'])
      expect(rolesOf(ROUTES[id as keyof typeof ROUTES])).toEqual(['owner'])
  })
})
