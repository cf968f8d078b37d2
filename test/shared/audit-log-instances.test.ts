import { describe, expect, it } from 'vitest'
import { eventLeafHash } from '../../src/tlog/leaf.js'
import { rootOfLeaves, verifyInclusion } from '../../src/tlog/merkle.js'
import { verifyCheckpoint } from '../../src/tlog/note.js'
import { buildWorld, expectStatus, logEntries, transferBody } from '../support/governance.js'
import { clientOf, sharedInstances } from '../support/server-process.js'

/*
 * The verifiable log across instances (docs/governance.md, "The verifiable log"): two real server processes
 * over one PostgreSQL database append concurrently; the result is one log, in commit order, whose every entry
 * has a valid inclusion proof against the checkpoint either instance signs.
 */

const deployment = sharedInstances()

const b64 = (s: string) => Buffer.from(s, 'base64')

describe('two server processes appending to one log', () => {
  it('give one consistent log whose every entry has a valid inclusion proof', async () => {
    // One public URL, as behind a load balancer: the checkpoint's origin names it.
    const [first, second] = await deployment.pair({ RWA_PUBLIC_URL: 'https://rwa.test' })
    const [a, b] = [clientOf(first), clientOf(second)]
    const created = await expectStatus(
      a.post('/console/billing/keys', { org_id: 'acme', name: 'acme', start_trial: true }),
      201,
    )
    const key = created.api_key as string
    const world = await buildWorld(a, key)

    // 40 transfers and 20 keys at once, split across both instances.
    const writes = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const via = i % 2 === 0 ? a : b
        return i < 40
          ? via.post('/console/rwa/transfers', transferBody(world.tokenId, 1), { key })
          : via.post('/console/billing/keys', { name: `k${i}`, roles: ['auditor'] }, { key })
      }),
    )
    expect(writes.map((r) => r.status).every((s) => s === 201)).toBe(true)

    const fromA = await expectStatus(a.get('/console/audit/log/checkpoint', { key }), 200)
    const fromB = await expectStatus(b.get('/console/audit/log/checkpoint', { key }), 200)
    expect(fromB.checkpoint).toBe(fromA.checkpoint)
    const checkpoint = verifyCheckpoint(fromA.checkpoint, fromA.log_key.vkey)

    const entries = await logEntries(a, key, checkpoint.size)
    // One log: every position once, every event once, rebuilding the signed root.
    expect(entries.map((e) => e.log_index)).toEqual([...Array(checkpoint.size).keys()])
    expect(new Set(entries.map((e) => e.event_id)).size).toBe(checkpoint.size)
    expect(rootOfLeaves(entries.map(eventLeafHash)).root.equals(checkpoint.root)).toBe(true)
    const listed = await expectStatus(a.get('/console/audit', { key, query: { limit: 500 } }), 200)
    expect(listed.total).toBe(checkpoint.size)
    // A write's events are appended together, at its commit: consecutive positions.
    const byRequest = new Map<string, number[]>()
    for (const e of entries)
      byRequest.set(e.request_id, [...(byRequest.get(e.request_id) ?? []), e.log_index])
    for (const positions of byRequest.values()) {
      expect(positions.at(-1)! - positions[0]!).toBe(positions.length - 1)
    }
    // Each transfer POST answered the position its event has, though fixed before its commit.
    for (const { body: t } of writes.slice(0, 40)) {
      const event = entries.find((e) => e.target.id === t.transfer_id)
      expect(t.log_index).toBe(event.log_index)
    }

    // Every entry's inclusion proof, from either instance, verifies against the checkpoint.
    await Promise.all(
      entries.map(async (entry, index) => {
        const via = index % 2 === 0 ? a : b
        const proof = await expectStatus(
          via.get('/console/audit/log/inclusion', { key, query: { index, tree_size: checkpoint.size } }),
          200,
        )
        verifyInclusion(index, checkpoint.size, eventLeafHash(entry), proof.proof.map(b64), checkpoint.root)
      }),
    )
  })
})
