import type { Insertable } from 'kysely'
import type { Executor } from '../db/queries.js'
import type { RwaServiceKeysTable } from '../db/schema.js'

/** The service's own signing key for `purpose` (`proof`), if it was created. */
export function findServiceKey(db: Executor, purpose: string) {
  return db.selectFrom('rwa_service_keys').selectAll().where('purpose', '=', purpose).executeTakeFirst()
}

/** Stores a service key unless one of its purpose exists already (then the stored one wins). */
export async function insertServiceKeyIfAbsent(
  db: Executor,
  row: Insertable<RwaServiceKeysTable>,
): Promise<void> {
  await db
    .insertInto('rwa_service_keys')
    .values(row)
    .onConflict((oc) => oc.column('purpose').doNothing())
    .execute()
}

/** Every service key of `purpose`, retired ones included, oldest first. */
export function listServiceKeys(db: Executor, purpose: string) {
  return db
    .selectFrom('rwa_service_keys')
    .select(['kid', 'public_x', 'created_at'])
    .where('purpose', '=', purpose)
    .orderBy('created_at')
    .execute()
}
