import { Migrator } from 'kysely'
import { describe, expect, it } from 'vitest'
import { migrations } from '../../../server/platform/db/migrations/index.js'
import { emptyDatabasePerTest } from '../../support/empty-database.js'

/*
 * Migration 0009 on credentials written before title deeds were unique: every active credential gets
 * its title deed key, except older duplicates (same organization, jurisdiction and deed, compared
 * trimmed and case-insensitive), which stay active as they were with a null key; the newest holds the
 * key and blocks a new issue. Attestations become active; proofs keep no issuers (version 1).
 */

const openEmpty = emptyDatabasePerTest()

const credential = (
  id: string,
  org: string,
  jurisdiction: string,
  deed: string,
  at: string,
  status = 'active',
) => ({
  credential_id: id,
  org_id: org,
  jurisdiction,
  owner_did: 'did:web:o',
  property_data: JSON.stringify({ address: 'a', type: 't', value_usd: 1, title_deed: deed }),
  status,
  issuer_did: 'did:key:z',
  issued_at: at,
  valid_until: null,
  revoked_at: status === 'revoked' ? at : null,
  revocation_reason: null,
  vc_jwt: 'x.y.z',
  status_list_id: null,
  status_list_index: null,
})

describe('migration 0009 (verification)', () => {
  it('keys the newest active credential of a deed; older duplicates stay active with no key', async () => {
    const k = await openEmpty()
    const migrator = new Migrator({ db: k, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0008-summary-columns')).error).toBeUndefined()
    const rows = [
      credential('cred_1', 'acme', 'US', 'SF-1', '2026-01-01T00:00:00.000Z'),
      credential('cred_2', 'acme', 'US', ' sf-1', '2026-01-03T00:00:00.000Z'),
      credential('cred_3', 'acme', 'US', 'SF-1 ', '2026-01-02T00:00:00.000Z'),
      credential('cred_4', 'acme', 'US', 'SF-1', '2026-01-04T00:00:00.000Z', 'revoked'),
      credential('cred_5', 'acme', 'SG', 'SF-1', '2026-01-01T00:00:00.000Z'),
      credential('cred_6', 'lion', 'US', 'SF-1', '2026-01-01T00:00:00.000Z'),
      credential('cred_7', 'acme', 'US', 'SF-2', '2026-01-01T00:00:00.000Z'),
    ]
    await k
      .insertInto('credentials')
      .values(rows as never)
      .execute()
    expect((await migrator.migrateToLatest()).error).toBeUndefined()

    const keys = await k
      .selectFrom('credentials')
      .select(['credential_id', 'status', 'title_deed_key'])
      .orderBy('credential_id')
      .execute()
    expect(keys).toEqual([
      { credential_id: 'cred_1', status: 'active', title_deed_key: null },
      { credential_id: 'cred_2', status: 'active', title_deed_key: 'sf-1' },
      { credential_id: 'cred_3', status: 'active', title_deed_key: null },
      { credential_id: 'cred_4', status: 'revoked', title_deed_key: null },
      { credential_id: 'cred_5', status: 'active', title_deed_key: 'sf-1' },
      { credential_id: 'cred_6', status: 'active', title_deed_key: 'sf-1' },
      { credential_id: 'cred_7', status: 'active', title_deed_key: 'sf-2' },
    ])
    // The index holds: a second active row of a keyed deed is refused.
    await expect(
      k
        .insertInto('credentials')
        .values({
          ...credential('cred_8', 'acme', 'US', 'SF-2', '2026-02-01T00:00:00.000Z'),
          title_deed_key: 'sf-2',
        } as never)
        .execute(),
    ).rejects.toThrow()
  })
})
