import { Migrator } from 'kysely'
import { describe, expect, it } from 'vitest'
import { migrations } from '../../../server/platform/db/migrations/index.js'
import { emptyDatabasePerTest } from '../../support/empty-database.js'

/*
 * Migration 0021 on keys and approvals written before four eyes compared principals: every key rerolled
 * from another (however many times) gets the first key of its chain as its principal; a key nothing
 * was rerolled into keeps none (it is its own); every approval gets its requesting key's expiry.
 */

const openEmpty = emptyDatabasePerTest()

const key = (id: string, replacedBy: string | null, expiresAt: string | null = null) => ({
  key_id: id,
  org_id: 'acme',
  key_hash: `hash-${id}`,
  key_prefix: 'rwa_live_x',
  name: id,
  created_at: '2026-01-01T00:00:00.000Z',
  last_used_at: null,
  revoked_at: null,
  expires_at: expiresAt,
  retires_at: replacedBy === null ? null : '2026-01-02T00:00:00.000Z',
  replaced_by: replacedBy,
})

const approval = (id: string, requestedBy: string) => ({
  approval_id: id,
  org_id: 'acme',
  operation: 'forced_transfer',
  target_type: 'token',
  target_id: 'tok_1',
  body: '{}',
  status: 'pending',
  requested_by: requestedBy,
  requested_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-04T00:00:00.000Z',
  decided_by: null,
  decided_at: null,
  reason: null,
  outcome: null,
})

describe('migration 0021 (key principals)', () => {
  it('gives every rerolled key the first key of its chain, and every approval its requester’s expiry', async () => {
    const k = await openEmpty()
    const migrator = new Migrator({ db: k, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0019-log-tiles')).error).toBeUndefined()
    const expiry = '2026-06-01T00:00:00.000Z'
    await k
      .insertInto('organizations')
      .values({ org_id: 'acme', created_at: '2026-01-01T00:00:00.000Z' } as never)
      .execute()
    // a → b → c (a reroll of a reroll), d alone, e → f; listed out of order on purpose.
    await k
      .insertInto('api_keys')
      .values([
        key('key_c', null, expiry),
        key('key_a', 'key_b', expiry),
        key('key_d', null),
        key('key_b', 'key_c', expiry),
        key('key_f', null),
        key('key_e', 'key_f'),
      ] as never)
      .execute()
    await k
      .insertInto('approvals')
      .values([approval('apr_1', 'key_a'), approval('apr_2', 'key_d')] as never)
      .execute()
    expect((await migrator.migrateToLatest()).error).toBeUndefined()

    const keys = await k.selectFrom('api_keys').select(['key_id', 'principal_id']).orderBy('key_id').execute()
    expect(keys).toEqual([
      { key_id: 'key_a', principal_id: null },
      { key_id: 'key_b', principal_id: 'key_a' },
      { key_id: 'key_c', principal_id: 'key_a' },
      { key_id: 'key_d', principal_id: null },
      { key_id: 'key_e', principal_id: null },
      { key_id: 'key_f', principal_id: 'key_e' },
    ])
    const approvals = await k
      .selectFrom('approvals')
      .select(['approval_id', 'requester_expires_at'])
      .orderBy('approval_id')
      .execute()
    expect(approvals).toEqual([
      { approval_id: 'apr_1', requester_expires_at: expiry },
      { approval_id: 'apr_2', requester_expires_at: null },
    ])
  })
})
