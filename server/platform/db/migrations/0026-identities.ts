import type { Kysely, Migration } from 'kysely'

/**
 * Investors (docs/identities.md): who holds, not only which address.
 * - `identities`: one row per investor of an organization, its ISO 3166-1 alpha-2 `country` and its
 *   optional `category`; `seq` orders the list newest first (an identity id may be chosen by people and
 *   then does not sort by time).
 * - `identity_dids`: the DIDs of each identity; a DID belongs to at most one identity of an
 *   organization (the primary key), and a removed DID's row is deleted, freeing it for another.
 */
export const identities: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('identities')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('identity_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'text', (c) => c.notNull().unique())
      .addColumn('country', 'text', (c) => c.notNull())
      .addColumn('category', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('identities_pk', ['org_id', 'identity_id'])
      .execute()
    await db.schema
      .createIndex('identities_org_seq_idx')
      .on('identities')
      .columns(['org_id', 'seq'])
      .execute()
    await db.schema
      .createIndex('identities_org_country_idx')
      .on('identities')
      .columns(['org_id', 'country'])
      .execute()
    await db.schema
      .createTable('identity_dids')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('did', 'text', (c) => c.notNull())
      .addColumn('identity_id', 'text', (c) => c.notNull())
      .addColumn('added_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('identity_dids_pk', ['org_id', 'did'])
      .execute()
    await db.schema
      .createIndex('identity_dids_identity_idx')
      .on('identity_dids')
      .columns(['org_id', 'identity_id'])
      .execute()
  },
}
