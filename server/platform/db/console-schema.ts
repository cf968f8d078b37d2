/*
 * The console's sessions (migration 0023, docs/console.md, "Security model"). Part of schema.ts's
 * `Database`.
 */

/** A console session: the key it acts as, and the hash of the secret its cookie holds. */
export interface ConsoleSessionsTable {
  session_id: string
  /** SHA-256 of the cookie's secret, hex. The secret itself is never stored. */
  secret_hash: string
  org_id: string
  key_id: string
  created_at: string
  expires_at: string
  /** Set when it was signed out; null while it lasts. */
  ended_at: string | null
}
