import { Migrator, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { getLogConsistencyProof, getLogInclusionProof } from '../../../server/areas/audit-log/service.js'
import { auditEventFromRow } from '../../../server/pipeline/audit/from-row.js'
import { insertAuditEvents } from '../../../server/pipeline/audit/queries.js'
import { appendToAuditLog, type PendingAuditEvent } from '../../../server/pipeline/audit-log/append.js'
import { dialectOf } from '../../../server/platform/db/dialect.js'
import { migrations } from '../../../server/platform/db/migrations/index.js'
import { canonicalText, eventLeafHash } from '../../../src/tlog/leaf.js'
import {
  appendToFrontier,
  consistencyProof,
  type Hash,
  hashLeaf,
  inclusionProof,
  readerOf,
  rootOfLeaves,
  verifyConsistency,
  verifyInclusion,
} from '../../../src/tlog/merkle.js'
import { emptyDatabasePerTest } from '../../support/empty-database.js'
import { LOG_ADMIN, logContextPerTest, treeNodes } from '../../support/log-service.js'

/*
 * Migration 0018 on a log stored as 0015 to 0017 left it (hex text hashes): every node becomes its 32
 * bytes (SQLite: in a WITHOUT ROWID table), and the server goes on serving the same RFC 9162 proofs of
 * the same tree, at its size and at earlier ones, then extends it. 700 entries, so that proofs read
 * nodes of level 8 and 9, which the server keeps in memory once read (asked twice each).
 */

const openEmpty = emptyDatabasePerTest()
const contextOn = logContextPerTest()

const SIZE = 700
const admin = LOG_ADMIN
const b64 = (h: Hash) => h.toString('base64')

describe('migration 0018 (log nodes as 32-byte blobs)', () => {
  it('converts every node and keeps serving the same proofs, then extends the log', async () => {
    const k = await openEmpty()
    const migrator = new Migrator({ db: k, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0017-wide-counters')).error).toBeUndefined()

    // The log as appends before 0018 stored it: every complete subtree's hash in hex.
    const leaves = Array.from({ length: SIZE }, (_, i) => hashLeaf(`entry ${i}`))
    const nodes = treeNodes(leaves)
    let frontier: Hash[] = []
    for (const [i, leaf] of leaves.entries()) frontier = appendToFrontier(i, frontier, leaf).frontier
    const old = k as any
    for (let i = 0; i < nodes.length; i += 200) {
      await old
        .insertInto('audit_log_nodes')
        .values(
          nodes
            .slice(i, i + 200)
            .map((n) => ({ org_id: 'acme', level: n.level, idx: n.index, hash: n.hash.toString('hex') })),
        )
        .execute()
    }
    const root = rootOfLeaves(leaves).root
    await old
      .insertInto('audit_logs')
      .values({
        org_id: 'acme',
        size: SIZE,
        root: root.toString('hex'),
        frontier: frontier.map((h) => h.toString('hex')).join(','),
      })
      .execute()

    expect((await migrator.migrateToLatest()).error).toBeUndefined()

    const stored = await old
      .selectFrom('audit_log_nodes')
      .selectAll()
      .orderBy('level')
      .orderBy('idx')
      .execute()
    expect(stored).toHaveLength(nodes.length)
    const byPosition = new Map(nodes.map((n) => [`${n.level}/${n.index}`, n.hash]))
    for (const row of stored) {
      expect(Buffer.isBuffer(row.hash)).toBe(true)
      expect(row.hash.equals(byPosition.get(`${row.level}/${row.idx}`))).toBe(true)
    }
    if (dialectOf(k) === 'sqlite') {
      const { rows } = await sql<{ sql: string }>`
        select sql from sqlite_schema where type = 'table' and name = 'audit_log_nodes'`.execute(k)
      expect(rows[0]?.sql).toMatch(/without rowid/i)
    }

    const ctx = contextOn(k)
    const brute = readerOf(nodes)
    const rootOf = (size: number) => rootOfLeaves(leaves.slice(0, size)).root
    for (const size of [SIZE, 512, 300, 257, 1]) {
      for (const index of [0, 1, 255, 256, 299, 511, 699].filter((i) => i < size)) {
        for (let ask = 0; ask < 2; ask++) {
          const proof = await getLogInclusionProof(ctx, admin, { org_id: 'acme', index, tree_size: size })
          expect(proof.leaf_hash).toBe(b64(leaves[index] as Hash))
          expect(proof.root_hash).toBe(b64(rootOf(size)))
          expect(proof.proof).toEqual(inclusionProof(index, size, brute).map(b64))
          verifyInclusion(
            index,
            size,
            leaves[index] as Hash,
            proof.proof.map((p) => Buffer.from(p, 'base64')),
            rootOf(size),
          )
        }
      }
    }
    for (const [from, to] of [
      [256, SIZE],
      [300, 512],
      [1, 257],
      [SIZE, SIZE],
    ] as const) {
      const proof = await getLogConsistencyProof(ctx, admin, { org_id: 'acme', from, to })
      expect(proof.from_root).toBe(b64(rootOf(from)))
      expect(proof.to_root).toBe(b64(rootOf(to)))
      expect(proof.proof).toEqual(from === to ? [] : consistencyProof(from, to, brute).map(b64))
    }

    // Appends write 32-byte hashes now, and extend the same tree: the old entries' proofs hold in it.
    const events: PendingAuditEvent[] = Array.from({ length: 5 }, (_, i) => ({
      event_id: `aud_after${i}`,
      org_id: 'acme',
      at: `2026-11-28T18:00:0${i}.000Z`,
      actor: canonicalText({ system: 'trial_expiry' }),
      actor_key_id: null,
      request_id: null,
      action: 'jurisdiction.reviewed',
      target_type: 'jurisdiction',
      target_id: 'US',
      changes: null,
    }))
    await k.transaction().execute(async (trx) => {
      await appendToAuditLog(trx, events)
      await insertAuditEvents(trx, events as never)
    })
    const grown = [...leaves, ...events.map((e) => eventLeafHash(auditEventFromRow(e as never)))]
    const grownRoot = rootOfLeaves(grown).root
    for (const index of [0, 256, 699, 700, 704]) {
      const proof = await getLogInclusionProof(ctx, admin, { org_id: 'acme', index, tree_size: SIZE + 5 })
      expect(proof.root_hash).toBe(b64(grownRoot))
      verifyInclusion(
        index,
        SIZE + 5,
        grown[index] as Hash,
        proof.proof.map((p) => Buffer.from(p, 'base64')),
        grownRoot,
      )
    }
    const extended = await getLogConsistencyProof(ctx, admin, { org_id: 'acme', from: SIZE, to: SIZE + 5 })
    verifyConsistency(
      SIZE,
      SIZE + 5,
      extended.proof.map((p) => Buffer.from(p, 'base64')),
      root,
      grownRoot,
    )
  })

  it('on SQLite, converts all or nothing, and runs again once converted but not yet recorded', async (t) => {
    const k = await openEmpty()
    if (dialectOf(k) !== 'sqlite') return t.skip()
    const migrator = new Migrator({ db: k, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0017-wide-counters')).error).toBeUndefined()
    const old = k as any
    const node = (idx: number, hash: string) => ({ org_id: 'acme', level: 0, idx, hash })
    // A hash that is not hex fails the copy halfway: the table stays as it was, with every node.
    await old
      .insertInto('audit_log_nodes')
      .values([node(0, 'aa'.repeat(32)), node(1, 'not hex')])
      .execute()
    expect((await migrator.migrateTo('0018-log-node-blobs')).error).toBeDefined()
    const tables = async () =>
      (
        await sql<{
          name: string
        }>`select name from sqlite_schema where type = 'table' and name like 'audit_log_nodes%'`.execute(k)
      ).rows.map((r) => r.name)
    expect(await tables()).toEqual(['audit_log_nodes'])
    expect(await old.selectFrom('audit_log_nodes').select('hash').orderBy('idx').execute()).toEqual([
      { hash: 'aa'.repeat(32) },
      { hash: 'not hex' },
    ])

    await old
      .updateTable('audit_log_nodes')
      .set({ hash: 'bb'.repeat(32) })
      .where('idx', '=', 1)
      .execute()
    expect((await migrator.migrateTo('0018-log-node-blobs')).error).toBeUndefined()
    // A crash after the conversion committed, before kysely recorded it: the next start runs it again.
    await old.deleteFrom('kysely_migration').where('name', 'like', '0018%').execute()
    expect((await migrator.migrateTo('0018-log-node-blobs')).error).toBeUndefined()
    expect(await tables()).toEqual(['audit_log_nodes'])
    const rows = await old.selectFrom('audit_log_nodes').select('hash').orderBy('idx').execute()
    expect(rows.map((r: { hash: Buffer }) => r.hash.toString('hex'))).toEqual([
      'aa'.repeat(32),
      'bb'.repeat(32),
    ])
  })
})
