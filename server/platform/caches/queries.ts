import type { Executor } from '../db/queries.js'

/** The key stored under a raw key's SHA-256, if any. */
export function findKeyByHash(db: Executor, hash: string) {
  return db
    .selectFrom('api_keys')
    .select(['key_id', 'org_id', 'revoked_at', 'roles', 'expires_at', 'retires_at'])
    .where('key_hash', '=', hash)
    .executeTakeFirst()
}
