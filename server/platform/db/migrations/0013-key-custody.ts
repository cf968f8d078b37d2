import { type Kysely, type Migration, sql } from 'kysely'

/**
 * Key custody (README.md, "Signing keys at rest", issue 22):
 * - `key_custody`: a check value sealed under the master key, so a start with another master key is
 *   refused even on a database that holds no signing key yet (nothing else would tell).
 * - `rwa_service_keys` gains `retired_at`, and `purpose` is no longer unique: a rotated proof key stays
 *   (retired) so the proofs it signed keep verifying; one active key per purpose is a partial unique
 *   index. SQLite cannot drop a UNIQUE constraint, so the table is rebuilt (on both databases alike).
 */
export const keyCustody: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('key_custody')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('check_value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('rwa_service_keys_0013')
      .addColumn('kid', 'text', (c) => c.primaryKey())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('private_key', 'text', (c) => c.notNull())
      .addColumn('public_x', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('retired_at', 'text')
      .execute()
    // biome-ignore lint/suspicious/noExplicitAny: the schema before this migration is not typed.
    const untyped = db as Kysely<any>
    await untyped
      .insertInto('rwa_service_keys_0013')
      .columns(['kid', 'purpose', 'private_key', 'public_x', 'created_at'])
      .expression(
        untyped
          .selectFrom('rwa_service_keys')
          .select(['kid', 'purpose', 'private_key', 'public_x', 'created_at']),
      )
      .execute()
    await db.schema.dropTable('rwa_service_keys').execute()
    await db.schema.alterTable('rwa_service_keys_0013').renameTo('rwa_service_keys').execute()
    await db.schema
      .createIndex('rwa_service_keys_active_uq')
      .on('rwa_service_keys')
      .column('purpose')
      .unique()
      .where(sql.ref('retired_at'), 'is', null)
      .execute()
  },
}
