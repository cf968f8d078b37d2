import type { Kysely, Migration } from 'kysely'

/**
 * Trusted issuers (docs/issuers.md): the outside providers whose credentials an organization accepts.
 * - `issuers`: one row per issuer of an organization, kept when removed (`status` `removed`), so that
 *   its id stays bound to its DID and what it issued keeps naming it. `requirements` (a JSON object of
 *   requirement to VC types) and `jurisdictions` (a JSON array) are JSON text; `seq` orders the list
 *   (issuer ids are chosen by people and do not sort by time); `resolved_at` is when the DID was last
 *   resolved.
 * - `issuer_keys`: every Ed25519 key an issuer's DID ever listed, kept for life: a key gone from the
 *   DID document gets `retired_at` and still verifies what was signed before it.
 */
export const trustedIssuers: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('issuers')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('issuer_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('did', 'text', (c) => c.notNull())
      .addColumn('requirements', 'text', (c) => c.notNull())
      .addColumn('jurisdictions', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('valid_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('resolved_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('issuers_pk', ['org_id', 'issuer_id'])
      .execute()
    await db.schema.createIndex('issuers_org_seq_idx').on('issuers').columns(['org_id', 'seq']).execute()
    await db.schema.createIndex('issuers_org_did_idx').on('issuers').columns(['org_id', 'did']).execute()
    await db.schema
      .createTable('issuer_keys')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('issuer_id', 'text', (c) => c.notNull())
      .addColumn('kid', 'text', (c) => c.notNull())
      .addColumn('jwk', 'text', (c) => c.notNull())
      .addColumn('first_seen_at', 'text', (c) => c.notNull())
      .addColumn('retired_at', 'text')
      .addPrimaryKeyConstraint('issuer_keys_pk', ['org_id', 'issuer_id', 'kid'])
      .execute()
  },
}
