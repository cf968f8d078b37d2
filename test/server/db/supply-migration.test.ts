import { Migrator } from 'kysely'
import { describe, expect, it } from 'vitest'
import { migrations } from '../../../server/platform/db/migrations/index.js'
import { emptyDatabasePerTest } from '../../support/empty-database.js'

/*
 * Migration 0027 on tokens written before mint and burn: each token's `supply` is the sum of its
 * holdings (its total_supply, since transfers only move units); a token whose holdings are gone reads 0.
 */

const openEmpty = emptyDatabasePerTest()

const token = (id: string, total: number) => ({
  token_id: id,
  org_id: 'acme',
  credential_id: `cred_${id}`,
  jurisdiction: 'US',
  owner_did: 'did:web:acme:alice',
  symbol: null,
  total_supply: total,
  status: 'active',
  created_at: '2026-01-01T00:00:00.000Z',
  rules: null,
})

describe('migration 0027 (supply rules)', () => {
  it("backfills each token's supply from its holdings and starts the counts empty", async () => {
    const k = await openEmpty()
    const migrator = new Migrator({ db: k, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0026-identities')).error).toBeUndefined()
    await k
      .insertInto('tokens')
      .values([token('tok_a', 1000), token('tok_b', 50)] as never)
      .execute()
    await k
      .insertInto('holdings')
      .values([
        {
          token_id: 'tok_a',
          holder_did: 'did:web:acme:alice',
          jurisdiction: 'US',
          amount: 700,
          frozen_amount: 0,
        },
        {
          token_id: 'tok_a',
          holder_did: 'did:web:lion:bob',
          jurisdiction: 'SG',
          amount: 300,
          frozen_amount: 10,
        },
      ] as never)
      .execute()
    expect((await migrator.migrateTo('0027-supply-rules')).error).toBeUndefined()
    const rows = await k
      .selectFrom('tokens' as never)
      .select(['token_id', 'supply'] as never)
      .orderBy('token_id' as never)
      .execute()
    expect(rows.map((r: any) => [r.token_id, Number(r.supply)])).toEqual([
      ['tok_a', 1000],
      ['tok_b', 0],
    ])
    for (const table of ['transfer_window_volumes', 'holding_receipts']) {
      expect(
        await k
          .selectFrom(table as never)
          .selectAll()
          .execute(),
      ).toEqual([])
    }
  })
})
