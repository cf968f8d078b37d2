import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Role } from '../../../src/contract/roles.js'
import { snapshotOf } from '../../support/db-snapshot.js'
import {
  buildWorld,
  expectStatus,
  OWNER,
  RECIPIENT,
  transferBody,
  type World,
} from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * Four eyes (docs/accountability.md, "Four eyes"): an owner's policy makes the covered operations wait for a
 * second key; another key with `agent` approves (the operation runs then, on the records as they are then) or
 * rejects; pending approvals expire after 72 h; the requesting key cannot approve its own; approvals belong
 * to their organization; two approvers at once run the operation once.
 */

const HOUR_MS = 3_600_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const POLICY = '/console/rwa/policy'
const APPROVALS = '/console/rwa/approvals'

let h: Harness
let w: World
let owner: string
let ownerId: string
let agentA: { key: string; id: string }
let agentB: { key: string; id: string }

/** A key of acme with `roles` (and `expires_at` if given). */
async function keyWith(roles: Role[], expiresAt?: string): Promise<{ key: string; id: string }> {
  const body = {
    org_id: 'acme',
    name: roles.join('+'),
    roles,
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  }
  const made = await expectStatus(h.post('/console/billing/keys', body), 201)
  return { key: made.api_key, id: made.key_id }
}

/** The owner rerolls `key` with `overlapSeconds`: the new key. */
async function reroll(key: { id: string }, overlapSeconds = 0): Promise<{ key: string; id: string }> {
  const made = await expectStatus(
    h.post(`/console/billing/keys/${key.id}/reroll`, { overlap_seconds: overlapSeconds }, { key: owner }),
    201,
  )
  return { key: made.api_key, id: made.key_id }
}

const revoke = (key: { id: string }) =>
  expectStatus(h.request('DELETE', `/console/billing/keys/${key.id}`, { key: owner }), 200)

const statusOf = async (id: string) =>
  (await expectStatus(h.get(`${APPROVALS}/${id}`, { key: owner }), 200)).status

const idsListed = async (status: string) =>
  (await expectStatus(h.get(APPROVALS, { key: owner, query: { status } }), 200)).approvals.map(
    (a: any) => a.approval_id,
  )

const forced = (amount: number) => ({
  from_did: OWNER,
  to_did: RECIPIENT,
  from_jurisdiction: 'US',
  to_jurisdiction: 'US',
  amount,
  reason: 'court order 77',
})

const forcedPath = () => `/console/rwa/tokens/${w.tokenId}/forced-transfer`

/** The token's holdings, as the API answers them. */
const holdings = async () =>
  (await expectStatus(h.get(`/console/rwa/tokens/${w.tokenId}/holdings`, { key: owner }), 200)).holdings

const auditActions = async () =>
  (await expectStatus(h.get('/console/audit', { key: owner, query: { limit: 500 } }), 200)).events as any[]

beforeEach(async () => {
  h = await createHarness()
  ;({ key: owner, keyId: ownerId } = await h.createOrg('acme', { tier: 'pro' }))
  w = await buildWorld(h, owner)
  agentA = await keyWith(['agent'])
  agentB = await keyWith(['agent'])
  await expectStatus(
    h.request('PUT', POLICY, { key: owner, body: { require_approval: ['forced_transfer'] } }),
    200,
  )
})
afterEach(() => h.close())

describe('the policy', () => {
  it('round trips, is the owner’s to set, and its change is in the audit log with before and after', async () => {
    const fresh = await h.createOrg('globex', { tier: 'pro' })
    expect(await expectStatus(h.get(POLICY, { key: fresh.key }), 200)).toEqual({
      require_approval: [],
      updated_at: null,
      updated_by: null,
    })
    const set = await expectStatus(
      h.request('PUT', POLICY, { key: fresh.key, body: { require_approval: ['unfreeze', 'recover'] } }),
      200,
    )
    // Kept in one order whatever order it was given in.
    expect(set).toMatchObject({ require_approval: ['recover', 'unfreeze'], updated_by: fresh.keyId })
    expect(await expectStatus(h.get(POLICY, { key: fresh.key }), 200)).toEqual(set)

    const bad = await h.request('PUT', POLICY, { key: owner, body: { require_approval: ['pause'] } })
    expect([bad.status, bad.body.reason]).toEqual([400, 'invalid_field'])
    const twice = await h.request('PUT', POLICY, {
      key: owner,
      body: { require_approval: ['recover', 'recover'] },
    })
    expect(twice.status).toBe(400)
    const byAgent = await h.request('PUT', POLICY, { key: agentA.key, body: { require_approval: [] } })
    expect([byAgent.status, byAgent.body.reason]).toEqual([403, 'role_required'])
    // Every role reads it.
    expect((await expectStatus(h.get(POLICY, { key: agentA.key }), 200)).require_approval).toEqual([
      'forced_transfer',
    ])

    const updated = (await auditActions()).find((e) => e.action === 'policy.updated')
    expect(updated.changes).toEqual({
      before: { require_approval: [] },
      after: { require_approval: ['forced_transfer'] },
    })
  })
})

describe('a covered call', () => {
  it('answers 202 with the pending approval and does nothing; a bad body is still 400; others run as usual', async () => {
    const before = await holdings()
    const res = await h.post(forcedPath(), forced(10), { key: agentA.key })
    expect(res.status, res.text).toBe(202)
    expect(res.body).toMatchObject({
      operation: 'forced_transfer',
      target: { type: 'token', id: w.tokenId },
      body: forced(10),
      status: 'pending',
      requested_by: agentA.id,
      expires_at: new Date(h.clock.now() + 72 * HOUR_MS).toISOString(),
      decided_by: null,
      outcome: null,
    })
    expect(res.body.approval_id).toMatch(/^apr_/)
    expect(await holdings()).toEqual(before)
    expect(await expectStatus(h.get(`${APPROVALS}/${res.body.approval_id}`, { key: owner }), 200)).toEqual(
      res.body,
    )

    const snapshot = await snapshotOf(h.ctx.db)
    const bad = await h.post(forcedPath(), { ...forced(10), amount: -1 }, { key: agentA.key })
    expect([bad.status, bad.body.reason]).toEqual([400, 'invalid_field'])
    expect(await snapshotOf(h.ctx.db)).toEqual(snapshot)

    // Not covered by this policy: runs at once.
    const freeze = await h.post(
      `/console/rwa/tokens/${w.tokenId}/freeze`,
      { holder_did: RECIPIENT, reason: 'x' },
      { key: agentA.key },
    )
    expect(freeze.status).toBe(200)
    const requested = (await auditActions()).find((e) => e.action === 'approval.requested')
    expect(requested).toMatchObject({
      actor: { key_id: agentA.id },
      target: { type: 'approval', id: res.body.approval_id },
    })
  })
})

describe('approving', () => {
  it('the requesting key cannot approve its own; another agent runs it then, answering as the operation', async () => {
    const { approval_id } = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    const own = await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentA.key })
    expect([own.status, own.body.code, own.body.reason]).toEqual([
      403,
      'forbidden',
      'approval_requires_another_key',
    ])
    expect((await expectStatus(h.get(`${APPROVALS}/${approval_id}`, { key: owner }), 200)).status).toBe(
      'pending',
    )

    const res = await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentB.key })
    expect(res.status, res.text).toBe(201)
    expect(res.body).toMatchObject({
      status: 'forced',
      amount: 10,
      sender_did: OWNER,
      recipient_did: RECIPIENT,
    })
    const approval = await expectStatus(h.get(`${APPROVALS}/${approval_id}`, { key: owner }), 200)
    expect(approval).toMatchObject({ status: 'approved', decided_by: agentB.id, outcome: { status: 201 } })
    expect(approval.outcome.body.transfer_id).toBe(res.body.transfer_id)
    expect(
      (await holdings()).find((x: any) => x.holder_did === RECIPIENT && x.jurisdiction === 'US').amount,
    ).toBe(10)
    const events = await auditActions()
    expect(events.find((e) => e.action === 'transfer.forced').actor.key_id).toBe(agentB.id)
    // The answer and the stored outcome name the forced transfer's log position
    // (docs/governance.md, "The verifiable log").
    expect(res.body.log_index).toBe(events.find((e) => e.action === 'transfer.forced').log_index)
    expect(approval.outcome.body.log_index).toBe(res.body.log_index)
    expect(events.find((e) => e.action === 'approval.approved')).toMatchObject({
      actor: { key_id: agentB.id },
      target: { id: approval_id },
    })
    const again = await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: owner })
    expect([again.status, again.body.reason, again.body.context.status]).toEqual([
      409,
      'approval_not_pending',
      'approved',
    ])
  })

  it('is evaluated when approved: the holdings moved away meanwhile, it fails with the refusal, moves nothing and reads failed', async () => {
    const { approval_id } = await expectStatus(h.post(forcedPath(), forced(1000), { key: agentA.key }), 202)
    const moved = await expectStatus(
      h.post('/console/rwa/transfers', transferBody(w.tokenId, 100), { key: owner }),
      201,
    )
    expect(moved.status).toBe('approved')
    const before = await holdings()
    const transfers = (await expectStatus(h.get('/console/rwa/transfers', { key: owner }), 200)).total

    const res = await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentB.key })
    expect([res.status, res.body.reason, res.body.context.held]).toEqual([409, 'insufficient_holding', 900])
    expect(await holdings()).toEqual(before)
    expect((await expectStatus(h.get('/console/rwa/transfers', { key: owner }), 200)).total).toBe(transfers)
    const approval = await expectStatus(h.get(`${APPROVALS}/${approval_id}`, { key: owner }), 200)
    expect(approval).toMatchObject({
      status: 'failed',
      decided_by: agentB.id,
      outcome: { status: 409, body: { reason: 'insufficient_holding' } },
    })
    const events = await auditActions()
    expect(events.some((e) => e.action === 'transfer.forced')).toBe(false)
    expect(events.find((e) => e.action === 'approval.failed')).toMatchObject({
      actor: { key_id: agentB.id },
      changes: { after: { reason: 'insufficient_holding' } },
    })
    const listed = await expectStatus(h.get(APPROVALS, { key: owner, query: { status: 'failed' } }), 200)
    expect(listed.approvals.map((a: any) => a.approval_id)).toEqual([approval_id])
  })

  it('an expired approval cannot run, and lists as expired', async () => {
    const { approval_id } = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    h.clock.advance(72 * HOUR_MS - 1)
    expect((await expectStatus(h.get(`${APPROVALS}/${approval_id}`, { key: owner }), 200)).status).toBe(
      'pending',
    )
    h.clock.advance(1)
    const before = await snapshotOf(h.ctx.db)
    const res = await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentB.key })
    expect([res.status, res.body.reason, res.body.context.expires_at]).toEqual([
      409,
      'approval_expired',
      new Date(h.clock.now()).toISOString(),
    ])
    const rejected = await h.post(`${APPROVALS}/${approval_id}/reject`, {}, { key: agentB.key })
    expect([rejected.status, rejected.body.reason]).toEqual([409, 'approval_expired'])
    expect(await snapshotOf(h.ctx.db)).toEqual(before)
    expect((await expectStatus(h.get(`${APPROVALS}/${approval_id}`, { key: owner }), 200)).status).toBe(
      'expired',
    )
    const ids = async (status: string) =>
      (await expectStatus(h.get(APPROVALS, { key: owner, query: { status } }), 200)).approvals.map(
        (a: any) => a.approval_id,
      )
    expect(await ids('expired')).toEqual([approval_id])
    expect(await ids('pending')).toEqual([])
  })

  it('keys without agent (or owner) cannot approve or reject', async () => {
    const { approval_id } = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    for (const role of ['transfers', 'auditor', 'issuer'] as Role[]) {
      const { key } = await keyWith([role])
      for (const action of ['approve', 'reject']) {
        const res = await h.post(`${APPROVALS}/${approval_id}/${action}`, {}, { key })
        expect([res.status, res.body.reason], `${role} ${action}`).toEqual([403, 'role_required'])
      }
      // Every role reads them.
      expect((await h.get(APPROVALS, { key })).status).toBe(200)
    }
    expect((await expectStatus(h.get(`${APPROVALS}/${approval_id}`, { key: owner }), 200)).status).toBe(
      'pending',
    )
    // An owner has every power in its organization, approving included.
    expect((await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: owner })).status).toBe(201)
  })

  it('two approvers at once run the operation once', async () => {
    const { approval_id } = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    const agentC = await keyWith(['agent'])
    const other = await h.newInstance()
    const answers = await Promise.all([
      h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentB.key }),
      other.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentC.key }),
    ])
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409])
    expect(answers.find((a) => a.status === 409)!.body.reason).toBe('approval_not_pending')
    const forcedTransfers = await expectStatus(
      h.get('/console/rwa/transfers', { key: owner, query: { status: 'forced' } }),
      200,
    )
    expect(forcedTransfers.total).toBe(1)
    expect((await auditActions()).filter((e) => e.action === 'transfer.forced')).toHaveLength(1)
  })
})

describe('rejecting', () => {
  it('ends it: the operation never runs; the requester may withdraw its own', async () => {
    const first = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    const before = await holdings()
    const rejected = await expectStatus(
      h.post(`${APPROVALS}/${first.approval_id}/reject`, { reason: 'wrong recipient' }, { key: agentB.key }),
      200,
    )
    expect(rejected).toMatchObject({ status: 'rejected', decided_by: agentB.id, reason: 'wrong recipient' })
    const approve = await h.post(`${APPROVALS}/${first.approval_id}/approve`, undefined, { key: owner })
    expect([approve.status, approve.body.reason]).toEqual([409, 'approval_not_pending'])
    expect(await holdings()).toEqual(before)

    const second = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    expect(
      (await h.post(`${APPROVALS}/${second.approval_id}/reject`, undefined, { key: agentA.key })).status,
    ).toBe(200)
    const events = (await auditActions()).filter((e) => e.action === 'approval.rejected')
    expect(events.map((e) => e.actor.key_id)).toEqual([agentA.id, agentB.id])
    const listed = await expectStatus(
      h.get(APPROVALS, { key: owner, query: { status: 'rejected', limit: 1 } }),
      200,
    )
    expect([listed.total, listed.approvals.length, listed.next_cursor]).toEqual([
      2,
      1,
      listed.approvals[0].approval_id,
    ])
  })
})

describe('every covered operation', () => {
  it('waits for and runs on approval: recover, unfreeze, credential_revoke', async () => {
    await expectStatus(
      h.request('PUT', POLICY, {
        key: owner,
        body: { require_approval: ['forced_transfer', 'recover', 'credential_revoke', 'unfreeze'] },
      }),
      200,
    )
    const T = `/console/rwa/tokens/${w.tokenId}`
    await expectStatus(h.post(`${T}/freeze`, { holder_did: OWNER, reason: 'x' }, { key: agentA.key }), 200)
    const calls: Array<[string, unknown, number, (body: any) => void]> = [
      [`${T}/unfreeze`, { holder_did: OWNER, reason: 'cleared' }, 200, (b) => expect(b.frozen).toBe(false)],
      [
        `${T}/recover`,
        { lost_did: OWNER, new_did: RECIPIENT, reason: 'lost keys' },
        200,
        (b) => expect(b.new_did).toBe(RECIPIENT),
      ],
      [
        `/console/rwa/credentials/${w.credentialId}/revoke`,
        { reason: 'sold' },
        200,
        (b) => expect(b.status).toBe('revoked'),
      ],
    ]
    // A credential's revocation is the issuer's; approving it is still an agent's.
    const issuer = await keyWith(['issuer'])
    for (const [path, body, status, check] of calls) {
      const requester = path.includes('/credentials/') ? issuer.key : agentA.key
      const pending = await expectStatus(h.post(path, body, { key: requester }), 202)
      const res = await h.post(`${APPROVALS}/${pending.approval_id}/approve`, undefined, { key: agentB.key })
      expect(res.status, res.text).toBe(status)
      check(res.body)
    }
  })
})

describe('organizations', () => {
  it("another organization's approval is 404 to read, approve or reject, and not listed", async () => {
    const { approval_id } = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    const globex = await h.createOrg('globex', { tier: 'pro' })
    for (const res of [
      await h.get(`${APPROVALS}/${approval_id}`, { key: globex.key }),
      await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: globex.key }),
      await h.post(`${APPROVALS}/${approval_id}/reject`, {}, { key: globex.key }),
    ]) {
      expect([res.status, res.body.reason]).toEqual([404, 'approval_not_found'])
    }
    expect((await expectStatus(h.get(APPROVALS, { key: globex.key }), 200)).total).toBe(0)
    expect((await expectStatus(h.get(APPROVALS, { key: owner }), 200)).total).toBe(1)
    // Its policy is its own: globex's forced transfers are not covered by acme's.
    expect((await expectStatus(h.get(POLICY, { key: globex.key }), 200)).require_approval).toEqual([])
  })
})

describe('four eyes compare principals, not key ids', () => {
  it('a key rerolled from the requester, however many times, cannot approve its request, nor the requester one of its', async () => {
    const { approval_id } = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    const a1 = await reroll(agentA, 3600)
    const refused = async (id: string, key: string) => {
      const res = await h.post(`${APPROVALS}/${id}/approve`, undefined, { key })
      expect([res.status, res.body.code, res.body.reason]).toEqual([
        403,
        'forbidden',
        'approval_requires_another_key',
      ])
    }
    await refused(approval_id, a1.key)
    const a2 = await reroll(a1)
    await refused(approval_id, a2.key)
    // The other way round: the key A was rerolled from (still in its overlap) and A's request.
    const second = await expectStatus(h.post(forcedPath(), forced(5), { key: a2.key }), 202)
    await refused(second.approval_id, agentA.key)
    expect([await statusOf(approval_id), await statusOf(second.approval_id)]).toEqual(['pending', 'pending'])
    expect((await auditActions()).some((e) => e.action === 'transfer.forced')).toBe(false)

    // Another principal approves both: the rerolls kept the requests.
    const res = await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentB.key })
    expect(res.status, res.text).toBe(201)
    expect(res.body).toMatchObject({ status: 'forced', amount: 10 })
    h.clock.advance(3600_000) // A's overlap ends: A reads rerolled, its principal lives on in A2.
    expect(
      (await h.post(`${APPROVALS}/${second.approval_id}/approve`, undefined, { key: agentB.key })).status,
    ).toBe(201)
  })

  it('a request whose requester key is revoked since reads cancelled, in the revocation’s write, and cannot run', async () => {
    const first = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    const second = await expectStatus(h.post(forcedPath(), forced(20), { key: agentA.key }), 202)
    const others = await expectStatus(h.post(forcedPath(), forced(30), { key: agentB.key }), 202)
    const before = await holdings()
    await revoke(agentA)
    h.clock.advance(1000)

    for (const { approval_id } of [first, second]) {
      expect(await expectStatus(h.get(`${APPROVALS}/${approval_id}`, { key: owner }), 200)).toMatchObject({
        status: 'cancelled',
        decided_by: ownerId,
        decided_at: new Date(h.clock.now() - 1000).toISOString(),
        outcome: null,
      })
      const approve = await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentB.key })
      expect([approve.status, approve.body.code, approve.body.reason]).toEqual([
        409,
        'conflict',
        'approval_requester_revoked',
      ])
      expect(approve.body.context).toMatchObject({ approval_id, requested_by: agentA.id })
      const reject = await h.post(`${APPROVALS}/${approval_id}/reject`, {}, { key: agentB.key })
      expect([reject.status, reject.body.reason]).toEqual([409, 'approval_requester_revoked'])
    }
    expect(await holdings()).toEqual(before)
    expect(await statusOf(others.approval_id)).toBe('pending')
    expect((await idsListed('cancelled')).sort()).toEqual([first.approval_id, second.approval_id].sort())
    expect(await idsListed('pending')).toEqual([others.approval_id])

    // The audit log says so, in the revocation's own request, by the revoking key.
    const events = await auditActions()
    const revoked = events.find((e) => e.action === 'key.revoked')
    const cancelled = events.filter((e) => e.action === 'approval.cancelled')
    expect(cancelled.map((e) => e.target.id).sort()).toEqual([first.approval_id, second.approval_id].sort())
    for (const event of cancelled) {
      expect(event).toMatchObject({
        actor: { key_id: ownerId },
        request_id: revoked.request_id,
        changes: { after: { operation: 'forced_transfer', reason: 'requester_revoked', key_id: agentA.id } },
      })
    }
    expect(events.some((e) => e.action === 'transfer.forced')).toBe(false)
  })

  it('revoking the key a requester was rerolled into cancels its requests: one principal', async () => {
    const { approval_id } = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    const a1 = await reroll(agentA)
    expect(await statusOf(approval_id)).toBe('pending')
    await revoke(a1)
    expect(await statusOf(approval_id)).toBe('cancelled')
    const res = await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentB.key })
    expect([res.status, res.body.reason]).toEqual([409, 'approval_requester_revoked'])
  })

  it('revoking a rerolled key during its overlap ends only the overlap: its principal’s requests wait on', async () => {
    const { approval_id } = await expectStatus(h.post(forcedPath(), forced(10), { key: agentA.key }), 202)
    await reroll(agentA, 3600)
    await revoke(agentA)
    expect(await statusOf(approval_id)).toBe('pending')
    expect((await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentB.key })).status).toBe(
      201,
    )
  })

  it('a request made by a key whose principal was revoked meanwhile cannot run: the attempt cancels it', async () => {
    // A rerolled with an overlap, then its new key revoked: A stops with it (docs/keys.md, "Revocation"),
    // so it asks nothing more.
    const a1 = await reroll(agentA, 3600)
    await revoke(a1)
    const refused = await h.post(forcedPath(), forced(10), { key: agentA.key })
    expect([refused.status, refused.body.reason]).toEqual([401, 'key_revoked'])
    // A request that raced the revocation (authenticated just before it committed, written just after,
    // so the revocation's own cancellation missed it) is caught when someone tries to approve it.
    const b1 = await reroll(agentB, 3600)
    const c = await keyWith(['agent'])
    const { approval_id } = await expectStatus(h.post(forcedPath(), forced(10), { key: agentB.key }), 202)
    await (h.ctx.db as any)
      .updateTable('api_keys')
      .set({ revoked_at: new Date(h.clock.now()).toISOString() })
      .where('key_id', 'in', [agentB.id, b1.id])
      .execute()
    const before = await holdings()
    const res = await h.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: c.key })
    expect([res.status, res.body.reason]).toEqual([409, 'approval_requester_revoked'])
    expect(await holdings()).toEqual(before)
    expect(await expectStatus(h.get(`${APPROVALS}/${approval_id}`, { key: owner }), 200)).toMatchObject({
      status: 'cancelled',
      decided_by: c.id,
    })
    const cancelled = (await auditActions()).filter((e) => e.action === 'approval.cancelled')
    expect(cancelled.map((e) => [e.target.id, e.actor.key_id])).toEqual([[approval_id, c.id]])
  })

  it('a request whose requester key expired since reads cancelled and cannot run; one outliving its 72 h reads expired', async () => {
    const soon = await keyWith(['agent'], new Date(h.clock.now() + HOUR_MS).toISOString())
    const late = await keyWith(['agent'], new Date(h.clock.now() + 100 * HOUR_MS).toISOString())
    const short = await expectStatus(h.post(forcedPath(), forced(10), { key: soon.key }), 202)
    const long = await expectStatus(h.post(forcedPath(), forced(10), { key: late.key }), 202)
    h.clock.advance(HOUR_MS - 1)
    expect(await statusOf(short.approval_id)).toBe('pending')
    h.clock.advance(1)
    expect(await expectStatus(h.get(`${APPROVALS}/${short.approval_id}`, { key: owner }), 200)).toMatchObject(
      {
        status: 'cancelled',
        decided_by: null,
        decided_at: null,
      },
    )
    expect(await idsListed('cancelled')).toEqual([short.approval_id])
    expect(await idsListed('pending')).toEqual([long.approval_id])
    const before = await snapshotOf(h.ctx.db)
    const res = await h.post(`${APPROVALS}/${short.approval_id}/approve`, undefined, { key: agentB.key })
    expect([res.status, res.body.reason]).toEqual([409, 'approval_requester_revoked'])
    expect(await snapshotOf(h.ctx.db)).toEqual(before)

    h.clock.advance(72 * HOUR_MS)
    expect([await statusOf(short.approval_id), await statusOf(long.approval_id)]).toEqual([
      'cancelled',
      'expired',
    ])
    expect(await idsListed('expired')).toEqual([long.approval_id])
    expect(await idsListed('cancelled')).toEqual([short.approval_id])
  })

  it('a revocation racing an approval: the approval runs before it, or is cancelled by it, never both', async () => {
    const other = await h.newInstance()
    const outcomes: number[] = []
    for (let round = 0; round < 8; round++) {
      const requester = await keyWith(['agent'])
      const { approval_id } = await expectStatus(h.post(forcedPath(), forced(1), { key: requester.key }), 202)
      // The revocation a little later each round, so that either may reach the approval's row first.
      const [revoked, approved] = await Promise.all([
        sleep(round * 4).then(() =>
          h.request('DELETE', `/console/billing/keys/${requester.id}`, { key: owner }),
        ),
        other.post(`${APPROVALS}/${approval_id}/approve`, undefined, { key: agentB.key }),
      ])
      expect(revoked.status, revoked.text).toBe(200)
      const status = await statusOf(approval_id)
      if (approved.status === 201) expect(status).toBe('approved')
      else {
        expect([approved.status, approved.body.reason], approved.text).toEqual([
          409,
          'approval_requester_revoked',
        ])
        expect(status).toBe('cancelled')
      }
      outcomes.push(approved.status)
    }
    const forcedTransfers = await expectStatus(
      h.get('/console/rwa/transfers', { key: owner, query: { status: 'forced' } }),
      200,
    )
    expect(forcedTransfers.total).toBe(outcomes.filter((s) => s === 201).length)
  })
})
