import type { Kysely, Migration } from 'kysely'

/**
 * A jurisdiction keeps its issuer key for life (docs/verification.md, "The trust bundle"):
 * - `removed_jurisdictions`: the key of a removed jurisdiction (its did:key and its private key, sealed
 *   as it was in the jurisdiction's row), since when it was the jurisdiction's and when it was removed.
 *   The trust bundle lists it, so what named it keeps verifying; registering the id again takes it back.
 * - `jurisdictions.issuer_since`: set on a jurisdiction registered again with its old key: the start of
 *   that key's validity (its first registration); null: its `created_at`.
 * Jurisdictions removed before this migration took their keys with them: there is nothing to keep.
 */
export const removedJurisdictions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('removed_jurisdictions')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('jurisdiction_id', 'text', (c) => c.notNull())
      .addColumn('issuer_did', 'text', (c) => c.notNull())
      .addColumn('private_key', 'text', (c) => c.notNull())
      .addColumn('valid_from', 'text', (c) => c.notNull())
      .addColumn('removed_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('removed_jurisdictions_pk', ['org_id', 'jurisdiction_id'])
      .execute()
    await db.schema.alterTable('jurisdictions').addColumn('issuer_since', 'text').execute()
  },
}
