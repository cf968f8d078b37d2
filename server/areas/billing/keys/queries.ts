import type { Insertable } from 'kysely'
import type { Executor } from '../../../platform/db/queries.js'
import type { ApiKeysTable } from '../../../platform/db/schema.js'

/** Every query of API keys. Only the SHA-256 of a raw key is ever stored. */

export async function insertApiKey(db: Executor, row: Insertable<ApiKeysTable>): Promise<void> {
  await db.insertInto('api_keys').values(row).execute()
}

/** An organization's keys, newest first. */
export function listKeyRows(db: Executor, orgId: string) {
  return db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).orderBy('key_id', 'desc').execute()
}

export function findKeyRow(db: Executor, keyId: string) {
  return db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst()
}

/** Whether the organization has any key (revoked ones included). */
export async function hasAnyKey(db: Executor, orgId: string): Promise<boolean> {
  const row = await db.selectFrom('api_keys').select('key_id').where('org_id', '=', orgId).executeTakeFirst()
  return row !== undefined
}

/** The keys of an organization not revoked by a revocation, with what decides whether they still work. */
export function unrevokedKeys(db: Executor, orgId: string) {
  return db
    .selectFrom('api_keys')
    .select(['key_id', 'org_id', 'roles', 'revoked_at', 'retires_at', 'expires_at', 'principal_id'])
    .where('org_id', '=', orgId)
    .where('revoked_at', 'is', null)
    .execute()
}

/** Every key of a principal's reroll chain (`principalOf`), with what links and ends them. */
export function chainKeys(db: Executor, principalId: string) {
  return db
    .selectFrom('api_keys')
    .select(['key_id', 'replaced_by', 'revoked_at', 'retires_at'])
    .where((eb) => eb.or([eb('principal_id', '=', principalId), eb('key_id', '=', principalId)]))
    .execute()
}

/**
 * The current key of a principal (`principalOf`): the one of its reroll chain not rerolled. Undefined
 * only for an id no key has.
 */
export function currentKeyOf(db: Executor, principalId: string) {
  return db
    .selectFrom('api_keys')
    .select(['key_id', 'revoked_at', 'expires_at'])
    .where((eb) => eb.or([eb('principal_id', '=', principalId), eb('key_id', '=', principalId)]))
    .where('replaced_by', 'is', null)
    .executeTakeFirst()
}

/** Revokes a key unless it already is; false when it was (another request revoked it first). */
export async function markKeyRevoked(db: Executor, keyId: string, revokedAt: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('key_id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/**
 * Marks a key rerolled: it works until `retiresAt`, and `replacedBy` replaces it. False when it is
 * revoked or rerolled already (another request got there first).
 */
export async function markKeyRerolled(
  db: Executor,
  keyId: string,
  retiresAt: string,
  replacedBy: string,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ retires_at: retiresAt, replaced_by: replacedBy })
    .where('key_id', '=', keyId)
    .where('revoked_at', 'is', null)
    .where('retires_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Every key with its organization's trial and subscription, for the billing overview. */
export function keysWithSubscription(db: Executor) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('organizations as o', 'o.org_id', 'k.org_id')
    .leftJoin('subscriptions as s', 's.org_id', 'k.org_id')
    .select(['k.revoked_at', 'k.retires_at', 'o.trial_ends_at', 's.tier', 's.status'])
    .execute()
}
