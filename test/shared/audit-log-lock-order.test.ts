import { describe, expect, it } from 'vitest'
import { eventLeafHash } from '../../src/tlog/leaf.js'
import { verifyInclusion } from '../../src/tlog/merkle.js'
import { verifyCheckpoint } from '../../src/tlog/note.js'
import { statuses } from '../support/concurrency.js'
import { buildWorld, expectStatus, logEntries, OWNER, PROPERTY, transferBody } from '../support/governance.js'
import { clientOf, sharedInstances } from '../support/server-process.js'

/*
 * The organization's log row is the last lock a write takes (docs/governance.md, "The verifiable log";
 * docs/architecture.md, "Concurrency"). A batch whose transfer comes before operations that lock other rows
 * (a credential's status list) races single writes of the same organization that lock those rows first
 * (credentials issued in the same jurisdiction), on two real server processes over one PostgreSQL database.
 * Had the batch locked the log row when its transfer recorded its decision (to answer its log_index), a
 * single issue holding the status list and waiting for the log would deadlock with it: PostgreSQL aborts one,
 * answered 503. The log row locked last, every write goes through, and each transfer's answer names its
 * event's position.
 */

const deployment = sharedInstances()

const b64 = (s: string) => Buffer.from(s, 'base64')

describe('a batch with a transfer racing single writes of its organization', () => {
  it('never deadlocks, and each transfer answers its event log_index, replayed byte for byte', {
    timeout: 120_000,
  }, async () => {
    const [first, second] = await deployment.pair({ RWA_PUBLIC_URL: 'https://rwa.test' })
    const [a, b] = [clientOf(first), clientOf(second)]
    const created = await expectStatus(
      a.post('/console/billing/keys', { org_id: 'acme', name: 'acme', start_trial: true }),
      201,
    )
    const key = created.api_key as string
    const world = await buildWorld(a, key)

    let deed = 0
    const credential = () => ({
      jurisdiction: 'US',
      owner_did: OWNER,
      property_data: { ...PROPERTY, title_deed: `SF-LOCK-${++deed}` },
    })
    const batchBody = () => ({
      operations: [
        { ref: 'tx', op: 'transfers.request', body: transferBody(world.tokenId, 1) },
        { op: 'credentials.issue', body: credential() },
        { op: 'credentials.issue', body: credential() },
      ],
    })

    // Rounds of 4 batches and 8 single credential issues at once, split across both instances.
    const batches: Array<{ idempotencyKey: string; body: unknown; text: string; result: any }> = []
    const singles: Array<{ status: number; text: string }> = []
    for (let round = 0; round < 4; round++) {
      const sent = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const via = i % 2 === 0 ? a : b
          if (i % 3 === 0) {
            const idempotencyKey = `lock-order-${round}-${i}`
            const body = batchBody()
            const res = await via.post('/console/rwa/batch', body, {
              key,
              headers: { 'Idempotency-Key': idempotencyKey },
            })
            return { kind: 'batch' as const, idempotencyKey, body, res }
          }
          return {
            kind: 'single' as const,
            res: await via.post('/console/rwa/credentials', credential(), { key }),
          }
        }),
      )
      for (const s of sent) {
        if (s.kind === 'batch')
          batches.push({ idempotencyKey: s.idempotencyKey, body: s.body, text: s.res.text, result: s.res })
        else singles.push({ status: s.res.status, text: s.res.text })
      }
    }
    // No write was aborted over a lock conflict (503) or failed (500).
    const problems = [...batches.map((x) => x.result), ...singles].filter(
      (r) => r.status !== 200 && r.status !== 201,
    )
    expect(problems.map((r) => `${r.status} ${r.text}`)).toEqual([])
    expect(statuses(batches.map((x) => x.result))).toEqual({ 200: batches.length })
    expect(statuses(singles as any)).toEqual({ 201: singles.length })

    const fromA = await expectStatus(a.get('/console/audit/log/checkpoint', { key }), 200)
    const checkpoint = verifyCheckpoint(fromA.checkpoint, fromA.log_key.vkey)
    const entries = await logEntries(a, key, checkpoint.size)
    expect(entries.map((e) => e.log_index)).toEqual([...Array(checkpoint.size).keys()])

    // Each batch's transfer answered the position its audit event has, which proves its inclusion.
    for (const [n, batch] of batches.entries()) {
      const transfer = batch.result.body.results[0].body
      const event = entries.find((e) => e.target.id === transfer.transfer_id)
      expect(event.action).toBe(`transfer.${transfer.status}`)
      expect(transfer.log_index).toBe(event.log_index)
      const via = n % 2 === 0 ? a : b
      const proof = await expectStatus(
        via.get('/console/audit/log/inclusion', {
          key,
          query: { index: transfer.log_index, tree_size: checkpoint.size },
        }),
        200,
      )
      verifyInclusion(
        transfer.log_index,
        checkpoint.size,
        eventLeafHash(event),
        proof.proof.map(b64),
        checkpoint.root,
      )
    }

    // The stored answer has the log_index: a replay, through either instance, is the same bytes.
    for (const [n, batch] of batches.entries()) {
      const via = n % 2 === 0 ? b : a
      const replay = await via.post('/console/rwa/batch', batch.body, {
        key,
        headers: { 'Idempotency-Key': batch.idempotencyKey },
      })
      expect(replay.status).toBe(200)
      expect(replay.headers.get('idempotent-replayed')).toBe('true')
      expect(replay.text).toBe(batch.text)
    }
  })
})
