import type { Kysely, Migration } from 'kysely'

/**
 * The console's sessions (docs/console.md, "Security model"): an API key exchanged for a session that
 * lives in an HttpOnly cookie. Kept in the database so that every instance honours a session and its
 * end at once.
 * - `secret_hash`: SHA-256 (hex) of the cookie's secret; the secret itself is never stored.
 * - `key_id`: the key the session acts as (its roles, limits and revocation are the key's).
 * - `expires_at`: 8 h after sign-in, or the key's own expiry if sooner; `ended_at` is set by sign-out.
 */
export const consoleSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('console_sessions')
      .addColumn('session_id', 'text', (c) => c.primaryKey())
      .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .execute()
  },
}
