import { Migrator } from 'kysely'
import { describe, expect, it } from 'vitest'
import { getLogConsistencyProof, getLogInclusionProof } from '../../../server/areas/audit-log/service.js'
import { auditEventFromRow } from '../../../server/pipeline/audit/from-row.js'
import { insertAuditEvents } from '../../../server/pipeline/audit/queries.js'
import { appendToAuditLog, type PendingAuditEvent } from '../../../server/pipeline/audit-log/append.js'
import type { AppContext } from '../../../server/pipeline/context.js'
import { hashInTile, packTile, TILE_HASHES } from '../../../server/platform/audit-log/tiles.js'
import { migrations } from '../../../server/platform/db/migrations/index.js'
import { canonicalText, eventLeafHash } from '../../../src/tlog/leaf.js'
import {
  appendToFrontier,
  consistencyProof,
  type Hash,
  hashLeaf,
  inclusionProof,
  readerOf,
  rootOfFrontier,
  rootOfLeaves,
  verifyInclusion,
} from '../../../src/tlog/merkle.js'
import { emptyDatabasePerTest } from '../../support/empty-database.js'
import { LOG_ADMIN, logContextPerTest, treeNodes } from '../../support/log-service.js'

/*
 * The log's tiles (migration 0019, docs/governance.md, "The verifiable log"): each complete tile of 256
 * leaves is also stored as one row of its levels 0 to 7, which inclusion proofs read instead of eight nodes.
 * A tile row must be exactly its nodes, written by the append that completes it (or by 0019 for a log older
 * than it), and proofs must stay RFC 9162's whether a tile has its row or not.
 */

const openEmpty = emptyDatabasePerTest()
const contextOn = logContextPerTest()
const admin = LOG_ADMIN
const b64 = (h: Hash) => h.toString('base64')
type Node = ReturnType<typeof treeNodes>[number]

/** Tile `tile`'s row as it must be: its levels 0 to 7 from the brute-force tree. */
const expectedTile = (nodes: Node[], tile: number) =>
  packTile(
    tile,
    nodes
      .filter((n) => n.level < 8 && Math.floor(n.index / 2 ** (8 - n.level)) === tile)
      .map((n) => ({ level: n.level, idx: n.index, hash: n.hash })),
  )

async function migrated(until?: string) {
  const k = await openEmpty()
  const migrator = new Migrator({ db: k, provider: { getMigrations: async () => migrations } })
  const result = until ? await migrator.migrateTo(until) : await migrator.migrateToLatest()
  expect(result.error).toBeUndefined()
  return { k, migrator }
}

const tileRows = async (k: Awaited<ReturnType<typeof migrated>>['k']) =>
  (await k.selectFrom('audit_log_tiles').selectAll().orderBy('tile').execute()).map((r) => ({
    org_id: r.org_id,
    tile: Number(r.tile),
    hashes: Buffer.from(r.hashes),
  }))

/** Every proof the service gives at these sizes equals the brute-force tree's, and verifies. */
async function expectProofs(c: AppContext, leaves: Hash[], sizes: number[], indices: number[]) {
  const brute = readerOf(treeNodes(leaves))
  for (const size of sizes) {
    const root = rootOfLeaves(leaves.slice(0, size)).root
    for (const index of indices.filter((i) => i < size)) {
      const proof = await getLogInclusionProof(c, admin, { org_id: 'acme', index, tree_size: size })
      expect(proof.leaf_hash, `${index} in ${size}`).toBe(b64(leaves[index] as Hash))
      expect(proof.root_hash, `${index} in ${size}`).toBe(b64(root))
      expect(proof.proof, `${index} in ${size}`).toEqual(inclusionProof(index, size, brute).map(b64))
      const path = proof.proof.map((p) => Buffer.from(p, 'base64'))
      verifyInclusion(index, size, leaves[index] as Hash, path, root)
    }
  }
  const pairs: [number, number][] = [
    [255, sizes[0] as number],
    [256, 513],
    [1, 300],
  ]
  for (const [from, to] of pairs) {
    if (to > (sizes[0] as number)) continue
    const proof = await getLogConsistencyProof(c, admin, { org_id: 'acme', from, to })
    expect(proof.proof).toEqual(consistencyProof(from, to, brute).map(b64))
  }
}

const INDICES = [0, 1, 2, 127, 254, 255, 256, 257, 300, 383, 510, 511, 512, 513, 599, 699]

describe('tile rows (server/platform/audit-log/tiles.ts)', () => {
  it('hold each of their 510 nodes once, where hashInTile finds it', () => {
    const leaves = Array.from({ length: 768 }, (_, i) => hashLeaf(`leaf ${i}`))
    const nodes = treeNodes(leaves)
    const row = expectedTile(nodes, 1)
    expect(row.length).toBe(TILE_HASHES * 32)
    const inTile = nodes.filter((n) => n.level < 8 && Math.floor(n.index / 2 ** (8 - n.level)) === 1)
    expect(inTile).toHaveLength(TILE_HASHES)
    for (const n of inTile) expect(hashInTile(row, n.level, n.index).equals(n.hash)).toBe(true)
    const rows = inTile.map((n) => ({ level: n.level, idx: n.index, hash: n.hash }))
    expect(() => packTile(1, rows.slice(1))).toThrow(/missing nodes/)
    expect(() => packTile(1, [...rows, rows[3] as (typeof rows)[number]])).toThrow(/twice/)
    expect(() => packTile(2, rows)).toThrow(/does not belong in tile 2/)
    expect(() =>
      packTile(1, [...rows.slice(1), { ...(rows[0] as (typeof rows)[number]), level: 8 }]),
    ).toThrow(/does not belong/)
  })
})

describe('appends and tiles', () => {
  it('store each tile as it completes, within any append, and proofs through them are RFC 9162', async () => {
    const { k } = await migrated()
    const leaves: Hash[] = []
    let n = 0
    // Appends of many sizes, completing tiles at their start, middle and end.
    for (const count of [1, 254, 1, 2, 300, 1, 41]) {
      const events: PendingAuditEvent[] = Array.from({ length: count }, () => {
        const i = n++
        return {
          event_id: `aud_${String(i).padStart(6, '0')}`,
          org_id: 'acme',
          at: '2026-11-28T18:00:00.000Z',
          actor: canonicalText({ system: 'trial_expiry' }),
          actor_key_id: null,
          request_id: null,
          action: 'jurisdiction.reviewed',
          target_type: 'jurisdiction',
          target_id: `J${i}`,
          changes: null,
        }
      })
      await k.transaction().execute(async (trx) => {
        await appendToAuditLog(trx, events)
        await insertAuditEvents(trx, events as never)
      })
      leaves.push(...events.map((e) => eventLeafHash(auditEventFromRow(e as never))))
      // A tile's row exists exactly once its 256 leaves are in the log.
      expect((await tileRows(k)).map((r) => r.tile)).toEqual(
        Array.from({ length: Math.floor(leaves.length / 256) }, (_, t) => t),
      )
    }
    expect(leaves).toHaveLength(600)
    const nodes = treeNodes(leaves)
    for (const row of await tileRows(k)) {
      expect(row.org_id).toBe('acme')
      expect(row.hashes.equals(expectedTile(nodes, row.tile)), `tile ${row.tile}`).toBe(true)
    }
    const c = contextOn(k)
    await expectProofs(c, leaves, [600, 513, 512, 511, 300, 257, 256, 255, 1], INDICES)

    // A tile without its row (appended by an instance older than 0019): the same proofs, node by node.
    await k.deleteFrom('audit_log_tiles').where('tile', '=', 1).execute()
    await expectProofs(c, leaves, [600, 512], INDICES)
  })
})

/** A log of `size` entries stored as 0018 left it, every node but those `keep` refuses. */
async function logAt0018(size: number, keep: (n: Node) => boolean = () => true) {
  const { k, migrator } = await migrated('0018-log-node-blobs')
  const leaves = Array.from({ length: size }, (_, i) => hashLeaf(`entry ${i}`))
  const nodes = treeNodes(leaves)
  const stored = nodes.filter(keep)
  for (let i = 0; i < stored.length; i += 200) {
    await k
      .insertInto('audit_log_nodes')
      .values(
        stored.slice(i, i + 200).map((n) => ({ org_id: 'acme', level: n.level, idx: n.index, hash: n.hash })),
      )
      .execute()
  }
  let frontier: Hash[] = []
  for (const [i, leaf] of leaves.entries()) frontier = appendToFrontier(i, frontier, leaf).frontier
  await k
    .insertInto('audit_logs')
    .values({
      org_id: 'acme',
      size,
      root: rootOfFrontier(frontier).toString('hex'),
      frontier: frontier.map((h) => h.toString('hex')).join(','),
    })
    .execute()
  return { k, migrator, leaves, nodes }
}

describe('migration 0019', () => {
  it('leaves without a row a tile the store lacks a node of, and the server starts', async () => {
    const { k, migrator } = await logAt0018(520, (n) => !(n.level === 0 && n.index === 300))
    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    expect((await tileRows(k)).map((r) => r.tile)).toEqual([0])
  })

  it("stores an existing log's complete tiles, and runs again after a crash without a duplicate", async () => {
    const { k, migrator, leaves, nodes } = await logAt0018(700)
    // To 0019 only: kysely refuses to run 0019 again below a later migration it has recorded.
    expect((await migrator.migrateTo('0019-log-tiles')).error).toBeUndefined()
    const rows = await tileRows(k)
    expect(rows.map((r) => r.tile)).toEqual([0, 1])
    for (const row of rows) expect(row.hashes.equals(expectedTile(nodes, row.tile))).toBe(true)

    // A crash after one tile's row, before kysely recorded 0019: the next start finishes it.
    await k.deleteFrom('audit_log_tiles').where('tile', '=', 1).execute()
    await k
      .deleteFrom('kysely_migration' as never)
      .where('name' as never, '=', '0019-log-tiles' as never)
      .execute()
    expect((await migrator.migrateTo('0019-log-tiles')).error).toBeUndefined()
    expect((await tileRows(k)).map((r) => r.tile)).toEqual([0, 1])
    expect((await tileRows(k))[1]?.hashes.equals(expectedTile(nodes, 1))).toBe(true)
    expect((await migrator.migrateToLatest()).error).toBeUndefined()

    await expectProofs(contextOn(k), leaves, [700, 512], INDICES)
  })
})
