import { Migrator } from 'kysely'
import { describe, expect, it } from 'vitest'
import { auditEventFromRow } from '../../../server/pipeline/audit/from-row.js'
import { migrations } from '../../../server/platform/db/migrations/index.js'
import { eventLeafHash } from '../../../src/tlog/leaf.js'
import { inclusionProof, readerOf, rootOfLeaves, verifyInclusion } from '../../../src/tlog/merkle.js'
import { emptyDatabasePerTest } from '../../support/empty-database.js'

/*
 * Migration 0015 on audit events recorded before the log existed: each organization's events are
 * appended in id order (time-sortable), get their log_index, and the stored tree and nodes are the
 * RFC 9162 tree of those events, so later appends extend it and proofs cover the old events too.
 */

const openEmpty = emptyDatabasePerTest()

const event = (id: string, org: string, i: number) => ({
  event_id: id,
  org_id: org,
  at: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`,
  actor: JSON.stringify({ key_id: 'key_1', roles: ['owner'] }),
  actor_key_id: 'key_1',
  request_id: `req-${i}`,
  action: 'jurisdiction.updated',
  target_type: 'jurisdiction',
  target_id: 'US',
  changes: i % 2 ? JSON.stringify({ before: { n: i }, after: { n: i + 1 } }) : null,
})

describe('migration 0015 (audit log)', () => {
  it('appends the existing events of each organization in id order, with their proofs', async () => {
    const k = await openEmpty()
    const migrator = new Migrator({ db: k, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0014-approvals')).error).toBeUndefined()
    const acme = Array.from({ length: 13 }, (_, i) =>
      event(`aud_${String(20 - i).padStart(3, '0')}`, 'acme', i),
    )
    await k
      .insertInto('audit_events')
      .values([...acme, event('aud_500', 'lion', 1)] as never)
      .execute()
    expect((await migrator.migrateToLatest()).error).toBeUndefined()

    const rows = await (k as any)
      .selectFrom('audit_events')
      .selectAll()
      .where('org_id', '=', 'acme')
      .orderBy('log_index')
      .execute()
    // Id order, not insertion order.
    expect(rows.map((r: any) => r.event_id)).toEqual(acme.map((e) => e.event_id).sort())
    expect(rows.map((r: any) => r.log_index)).toEqual([...Array(13).keys()])
    const leaves = rows.map((r: any) => eventLeafHash(auditEventFromRow(r)))
    const log = await (k as any)
      .selectFrom('audit_logs')
      .selectAll()
      .where('org_id', '=', 'acme')
      .executeTakeFirst()
    expect(log.size).toBe(13)
    expect(log.root).toBe(rootOfLeaves(leaves).root.toString('hex'))
    const nodes = await (k as any)
      .selectFrom('audit_log_nodes')
      .selectAll()
      .where('org_id', '=', 'acme')
      .execute()
    // Stored as their 32 bytes since 0018.
    const read = readerOf(nodes.map((n: any) => ({ level: n.level, index: n.idx, hash: n.hash })))
    for (let i = 0; i < 13; i++) {
      verifyInclusion(i, 13, leaves[i], inclusionProof(i, 13, read), Buffer.from(log.root, 'hex'))
    }
    const lion = await (k as any)
      .selectFrom('audit_logs')
      .selectAll()
      .where('org_id', '=', 'lion')
      .executeTakeFirst()
    expect(lion.size).toBe(1)
  })
})
