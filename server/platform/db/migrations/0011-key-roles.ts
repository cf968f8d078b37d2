import { type Kysely, type Migration, sql } from 'kysely'

/**
 * Least privilege on API keys (docs/keys.md, "Roles"), as Unkey stores it: the key's own row says what it may
 * do and until when, so authentication reads one row as before.
 * - `roles`: a JSON array of role names; every key that exists is an owner, as every key was.
 * - `expires_at`: when the key stops working (null: never).
 * - `retires_at` and `replaced_by`: set by a reroll, the end of the overlap during which the old key
 *   still works and the key that replaces it. `revoked_at` stays the moment of a revocation alone.
 */
export const keyRoles: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('api_keys')
      .addColumn('roles', 'text', (c) => c.notNull().defaultTo(sql`'["owner"]'`))
      .execute()
    for (const column of ['expires_at', 'retires_at', 'replaced_by']) {
      await db.schema.alterTable('api_keys').addColumn(column, 'text').execute()
    }
  },
}
