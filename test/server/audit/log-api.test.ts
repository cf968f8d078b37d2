import { afterEach, describe, expect, it } from 'vitest'
import { eventLeafHash } from '../../../src/tlog/leaf.js'
import { rootOfLeaves, verifyConsistency, verifyInclusion } from '../../../src/tlog/merkle.js'
import { verifyCheckpoint } from '../../../src/tlog/note.js'
import {
  buildWorld,
  expectStatus,
  OWNER,
  PROPERTY,
  RECIPIENT,
  transferBody,
} from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * The verifiable log over HTTP (docs/governance.md, "The verifiable log"): the checkpoint is signed by the
 * key the JWKS and the trust bundle publish, the entries rebuild its root, every entry has an inclusion
 * proof, a later checkpoint is consistent with an earlier one, and the refusals.
 */

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const b64 = (s: string) => Buffer.from(s, 'base64')

describe('GET /console/audit/log/*', () => {
  it('checkpoints, entries and proofs agree, and a later checkpoint extends the earlier', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const world = await buildWorld(h, acme.key)
    const key = { key: acme.key }

    const first = await expectStatus(h.get('/console/audit/log/checkpoint', key), 200)
    expect(first.origin).toBe(`${new URL(h.ctx.publicUrl()).host}/console/audit/acme`)
    const checkpoint = verifyCheckpoint(first.checkpoint, first.log_key.vkey)
    expect(checkpoint).toEqual({ origin: first.origin, size: first.tree_size, root: b64(first.root_hash) })
    expect(first.tree_size).toBeGreaterThan(5)

    // The key is the one the JWKS and the trust bundle publish.
    const jwks = await expectStatus(h.get('/console/rwa/.well-known/jwks.json', key), 200)
    expect(jwks.keys.map((k: any) => k.kid)).toContain(first.log_key.kid)
    const bundle = await expectStatus(h.get('/console/rwa/trust-bundle', key), 200)
    expect(bundle.log_key).toEqual(first.log_key)

    // The entries rebuild the root; each is the event /console/audit answers, with its position.
    const entries = await expectStatus(
      h.get('/console/audit/log/entries', { ...key, query: { start: 0, end: first.tree_size } }),
      200,
    )
    expect(entries.entries.map((e: any) => e.log_index)).toEqual([...Array(first.tree_size).keys()])
    expect(rootOfLeaves(entries.entries.map(eventLeafHash)).root.toString('base64')).toBe(first.root_hash)
    const listed = await expectStatus(h.get('/console/audit', { ...key, query: { limit: 500 } }), 200)
    expect([...listed.events].reverse()).toEqual(entries.entries)

    for (const [index, entry] of entries.entries.entries()) {
      const proof = await expectStatus(
        h.get('/console/audit/log/inclusion', { ...key, query: { index, tree_size: first.tree_size } }),
        200,
      )
      expect(proof.leaf_hash).toBe(eventLeafHash(entry).toString('base64'))
      verifyInclusion(
        index,
        first.tree_size,
        eventLeafHash(entry),
        proof.proof.map(b64),
        b64(first.root_hash),
      )
    }

    // More writes: the checkpoint covers them at once, and is consistent with the first.
    const transfer = await expectStatus(
      h.post('/console/rwa/transfers', transferBody(world.tokenId), key),
      201,
    )
    const second = await expectStatus(h.get('/console/audit/log/checkpoint', key), 200)
    expect(second.tree_size).toBeGreaterThan(first.tree_size)
    const consistency = await expectStatus(
      h.get('/console/audit/log/consistency', {
        ...key,
        query: { from: first.tree_size, to: second.tree_size },
      }),
      200,
    )
    expect(consistency.from_root).toBe(first.root_hash)
    verifyConsistency(
      first.tree_size,
      second.tree_size,
      consistency.proof.map(b64),
      b64(first.root_hash),
      b64(second.root_hash),
    )
    // The transfer's event carries its position too.
    const transferEvents = await expectStatus(
      h.get('/console/audit', { ...key, query: { target_id: transfer.transfer_id } }),
      200,
    )
    expect(transferEvents.events[0]?.log_index).toBeGreaterThanOrEqual(first.tree_size)
    // And so does its proof, through that event.
    const proof = await expectStatus(h.get(`/console/rwa/proofs/${transfer.proof_id}`, key), 200)
    expect(proof.log_index).toBe(transferEvents.events[0]?.log_index)
    const detail = await expectStatus(h.get(`/console/rwa/transfers/${transfer.transfer_id}`, key), 200)
    expect(detail.proof.log_index).toBe(proof.log_index)
    // The POST's answer already had it: the write appends its events before it answers.
    expect(transfer.log_index).toBe(proof.log_index)
    expect(detail.log_index).toBe(proof.log_index)

    // A window past the end is cut at the log's size.
    const tail = await expectStatus(
      h.get('/console/audit/log/entries', {
        ...key,
        query: { start: second.tree_size - 1, end: second.tree_size + 50 },
      }),
      200,
    )
    expect(tail.end).toBe(second.tree_size)
    expect(tail.entries).toHaveLength(1)
  })

  it("a batch's transfers answer their events' positions; a dry run those it appended, keeping nothing", async () => {
    const harness = await createHarness()
    h = harness
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const world = await buildWorld(h, acme.key)
    const key = { key: acme.key }
    const credential = (deed: string) => ({
      op: 'credentials.issue',
      body: { jurisdiction: 'US', owner_did: OWNER, property_data: { ...PROPERTY, title_deed: deed } },
    })
    const operations = (deed: string) => [
      credential(`${deed}-1`),
      { op: 'transfers.request', body: transferBody(world.tokenId, 1) },
      credential(`${deed}-2`),
      { op: 'transfers.request', body: transferBody(world.tokenId, 2) },
    ]
    const size = async () =>
      (await expectStatus(harness.get('/console/audit/log/checkpoint', key), 200)).tree_size

    // A dry run appends its events before it rolls back: its transfers name the positions they had.
    const before = await size()
    const dry = await expectStatus(
      h.post('/console/rwa/batch', { operations: operations('DRY'), dry_run: true }, key),
      200,
    )
    expect(dry.results.map((r: any) => r.body.log_index)).toEqual([
      undefined,
      before + 1,
      undefined,
      before + 3,
    ])
    expect(await size()).toBe(before)

    // A real one: the same positions, its events' own; its stored answer has them, replayed as is.
    const headers = { 'Idempotency-Key': 'log-index-batch' }
    const res = await h.post('/console/rwa/batch', { operations: operations('REAL') }, { ...key, headers })
    expect(res.status).toBe(200)
    expect(res.body.results.map((r: any) => r.body.log_index)).toEqual([
      undefined,
      before + 1,
      undefined,
      before + 3,
    ])
    for (const transfer of [res.body.results[1].body, res.body.results[3].body]) {
      const events = await expectStatus(
        h.get('/console/audit', { ...key, query: { target_id: transfer.transfer_id } }),
        200,
      )
      expect(events.events[0].log_index).toBe(transfer.log_index)
    }
    const replay = await h.post('/console/rwa/batch', { operations: operations('REAL') }, { ...key, headers })
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.text).toBe(res.text)
  })

  it('a batch longer than one append answers each position in order, and one failing after appends keeps nothing', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const world = await buildWorld(h, acme.key)
    const key = { key: acme.key }
    const checkpoint = async () => expectStatus(h!.get('/console/audit/log/checkpoint', key), 200)
    // 150 operations: on SQLite appended after the 64th and the 128th and at the end (server/areas/rwa/batch/service.ts).
    const transfers = (count: number) =>
      Array.from({ length: count }, () => ({ op: 'transfers.request', body: transferBody(world.tokenId, 1) }))

    const before = (await checkpoint()).tree_size
    const res = await expectStatus(h.post('/console/rwa/batch', { operations: transfers(150) }, key), 200)
    const positions = res.results.map((r: any) => r.body.log_index)
    expect(positions).toEqual(Array.from({ length: 150 }, (_, i) => before + i))
    const after = await checkpoint()
    expect(after.tree_size).toBe(before + 150)
    const entries = await expectStatus(
      h.get('/console/audit/log/entries', { ...key, query: { start: 0, end: after.tree_size } }),
      200,
    )
    expect(rootOfLeaves(entries.entries.map(eventLeafHash)).root.toString('base64')).toBe(after.root_hash)
    expect(entries.entries.slice(before).map((e: any) => e.target.id)).toEqual(
      res.results.map((r: any) => r.body.transfer_id),
    )
    // Each transfer's event carries it as GET answers it, proof and position included.
    for (const index of [0, 63, 64, 149]) {
      const transfer = res.results[index].body
      const got = await expectStatus(h.get(`/console/rwa/transfers/${transfer.transfer_id}`, key), 200)
      expect(got.log_index).toBe(transfer.log_index)
      expect(got.proof.log_index).toBe(transfer.log_index)
      const events = await expectStatus(
        h.get('/console/events', { ...key, query: { type: 'transfer.approved', limit: 200 } }),
        200,
      )
      const event = events.events.find((e: any) => e.data.object.transfer_id === transfer.transfer_id)
      expect(JSON.stringify(event.data.object)).toBe(JSON.stringify(got))
    }

    // The 100th of an atomic batch fails (more than the sender holds): nothing of it is kept, though
    // its first 64 operations' events were appended before it ran.
    const failing = transfers(150)
    failing[99] = { op: 'transfers.request', body: transferBody(world.tokenId, 10 ** 9) }
    const eventsBefore = await expectStatus(h.get('/console/events', { ...key, query: { limit: 1 } }), 200)
    const refused = await h.post('/console/rwa/batch', { operations: failing }, key)
    expect(refused.status).toBe(422)
    expect(refused.body.context).toMatchObject({ index: 99 })
    expect(await checkpoint()).toMatchObject({ tree_size: after.tree_size, root_hash: after.root_hash })
    const eventsAfter = await expectStatus(h.get('/console/events', { ...key, query: { limit: 1 } }), 200)
    expect(eventsAfter.events).toEqual(eventsBefore.events)
    const listed = await expectStatus(h.get('/console/rwa/transfers', { ...key, query: { limit: 1 } }), 200)
    expect(listed.total).toBe(150)
  })

  it("a recovery and its proof name its token.recovered event's position, proven by inclusion", async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const world = await buildWorld(h, acme.key)
    const key = { key: acme.key }
    await expectStatus(h.post('/console/rwa/transfers', transferBody(world.tokenId, 100), key), 201)

    const recovered = await expectStatus(
      h.post(
        `/console/rwa/tokens/${world.tokenId}/recover`,
        { lost_did: OWNER, new_did: RECIPIENT, reason: 'lost keys' },
        key,
      ),
      200,
    )
    const events = await expectStatus(
      h.get('/console/audit', { ...key, query: { target_id: world.tokenId, action: 'token.recovered' } }),
      200,
    )
    const event = events.events.find((e: any) => e.changes.after.proof_id === recovered.proof_id)
    expect(recovered.log_index).toEqual(expect.any(Number))
    expect(recovered.log_index).toBe(event.log_index)
    const proof = await expectStatus(h.get(`/console/rwa/proofs/${recovered.proof_id}`, key), 200)
    expect(proof.decision).toBe('recovered')
    expect(proof.log_index).toBe(recovered.log_index)

    const checkpoint = await expectStatus(h.get('/console/audit/log/checkpoint', key), 200)
    const inclusion = await expectStatus(
      h.get('/console/audit/log/inclusion', {
        ...key,
        query: { index: proof.log_index, tree_size: checkpoint.tree_size },
      }),
      200,
    )
    verifyInclusion(
      proof.log_index,
      checkpoint.tree_size,
      eventLeafHash(event),
      inclusion.proof.map(b64),
      b64(checkpoint.root_hash),
    )
  })

  it('refuses sizes beyond the log, bad windows, other organizations and keys without the role', async () => {
    h = await createHarness()
    const acme = await h.createOrg('acme', { tier: 'pro' })
    const lion = await h.createOrg('lion', { tier: 'pro' })
    await buildWorld(h, acme.key)
    const key = { key: acme.key }
    const { tree_size: size } = await expectStatus(h.get('/console/audit/log/checkpoint', key), 200)

    const beyond = await h.get('/console/audit/log/inclusion', {
      ...key,
      query: { index: 0, tree_size: size + 1 },
    })
    expect(beyond.status).toBe(422)
    expect(beyond.body).toMatchObject({ reason: 'log_size_exceeded', context: { log_size: size } })
    const beyondTo = await h.get('/console/audit/log/consistency', {
      ...key,
      query: { from: 1, to: size + 1 },
    })
    expect(beyondTo.body.reason).toBe('log_size_exceeded')
    for (const [path, query, field] of [
      ['inclusion', { index: 3, tree_size: 3 }, 'index'],
      ['consistency', { from: 0, to: 2 }, 'from'],
      ['consistency', { from: 3, to: 2 }, 'from'],
      ['entries', { start: 0, end: 1001 }, 'end'],
      ['entries', { start: 5, end: 5 }, 'end'],
      ['entries', { start: -1, end: 5 }, 'start'],
    ] as const) {
      const res = await h.get(`/console/audit/log/${path}`, { ...key, query })
      expect(res.status, `${path} ${JSON.stringify(query)}`).toBe(400)
      expect(res.body.errors.map((e: any) => e.path)).toContain(field)
    }

    const other = await h.get('/console/audit/log/checkpoint', { key: lion.key, query: { org_id: 'acme' } })
    expect(other.status).toBe(403)
    expect(other.body.reason).toBe('other_organization')
    const admin = await expectStatus(
      h.get('/console/audit/log/checkpoint', { query: { org_id: 'acme' } }),
      200,
    )
    expect(admin.tree_size).toBe(size)
    // The empty log of an organization that wrote nothing yet but its creation has a checkpoint too.
    const lions = await expectStatus(h.get('/console/audit/log/checkpoint', { key: lion.key }), 200)
    expect(verifyCheckpoint(lions.checkpoint, lions.log_key.vkey).size).toBe(lions.tree_size)

    const auditor = await expectStatus(
      h.post('/console/billing/keys', { name: 'auditor', roles: ['auditor'] }, key),
      201,
    )
    await expectStatus(h.get('/console/audit/log/checkpoint', { key: auditor.api_key }), 200)
    const issuer = await expectStatus(
      h.post('/console/billing/keys', { name: 'issuer', roles: ['issuer'] }, key),
      201,
    )
    const refused = await h.get('/console/audit/log/entries', {
      key: issuer.api_key,
      query: { start: 0, end: 1 },
    })
    expect(refused.status).toBe(403)
    expect(refused.body.reason).toBe('role_required')
  })
})
