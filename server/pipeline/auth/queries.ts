import type { Insertable } from 'kysely'
import type { ConsoleSessionsTable } from '../../platform/db/console-schema.js'
import type { Executor } from '../../platform/db/queries.js'

/*
 * The console's sessions (docs/console.md, "Security model"), as authentication reads them and the
 * session endpoints write them.
 */

/** The session whose cookie secret hashes to `secretHash`, with the hash of the key it acts as. */
export function findSessionBySecretHash(db: Executor, secretHash: string) {
  return db
    .selectFrom('console_sessions')
    .innerJoin('api_keys', 'api_keys.key_id', 'console_sessions.key_id')
    .select([
      'console_sessions.session_id',
      'console_sessions.org_id',
      'console_sessions.key_id',
      'console_sessions.created_at',
      'console_sessions.expires_at',
      'console_sessions.ended_at',
      'api_keys.key_hash',
    ])
    .where('console_sessions.secret_hash', '=', secretHash)
    .executeTakeFirst()
}

export async function insertSession(db: Executor, row: Insertable<ConsoleSessionsTable>): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute()
}

/**
 * Forgets the organization's sessions that expired before `now` (ended or not): a cookie of one is
 * refused all the same, as unknown (`session_ended`), and the audit log keeps their sign-in and sign-out.
 */
export async function deleteExpiredSessions(db: Executor, orgId: string, now: string): Promise<number> {
  const result = await db
    .deleteFrom('console_sessions')
    .where('org_id', '=', orgId)
    .where('expires_at', '<', now)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Ends a session that has not ended yet; false when it already had (a second sign-out). */
export async function endSession(db: Executor, sessionId: string, endedAt: string): Promise<boolean> {
  const result = await db
    .updateTable('console_sessions')
    .set({ ended_at: endedAt })
    .where('session_id', '=', sessionId)
    .where('ended_at', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
