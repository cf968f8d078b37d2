import type { Insertable } from 'kysely'
import { compiledOnce } from '../db/compiled-query.js'
import { type Executor, type RowLock, withLock } from '../db/queries.js'
import type { RwaServiceKeysTable } from '../db/schema.js'
import { SEALED_PREFIX } from './master-key.js'

/**
 * The service's active signing key for `purpose` (`proof`), if it was created. With `lock` (PostgreSQL),
 * held until the transaction ends: `update` by a rotation, `key share` by a proof being signed, so a
 * rotation waits for the proofs signed with the key it retires.
 */
export async function findServiceKey(db: Executor, purpose: string, lock?: RowLock) {
  const [row] = await activeServiceKeyBy[lock ?? 'none'](db, purpose)
  return row
}

/** Compiled once per lock: every proof reads its key in its transaction. */
const activeServiceKey = (lock: RowLock | undefined) =>
  compiledOnce((db: Executor, purpose: string) =>
    withLock(
      db,
      db
        .selectFrom('rwa_service_keys')
        .selectAll()
        .where('purpose', '=', purpose)
        .where('retired_at', 'is', null),
      lock,
    ),
  )
const activeServiceKeyBy = {
  none: activeServiceKey(undefined),
  update: activeServiceKey('update'),
  'key share': activeServiceKey('key share'),
}

/** Retires the active key `kid` at `at` (a rotation). */
export async function retireServiceKey(db: Executor, kid: string, at: string): Promise<void> {
  await db
    .updateTable('rwa_service_keys')
    .set({ retired_at: at })
    .where('kid', '=', kid)
    .where('retired_at', 'is', null)
    .execute()
}

/** Stores a new active service key (a rotation, after retiring the one it replaces). */
export async function insertServiceKey(db: Executor, row: Insertable<RwaServiceKeysTable>): Promise<void> {
  await db.insertInto('rwa_service_keys').values(row).execute()
}

/** Stores a service key unless an active one of its purpose exists already (then the stored one wins). */
export async function insertServiceKeyIfAbsent(
  db: Executor,
  row: Insertable<RwaServiceKeysTable>,
): Promise<void> {
  await db
    .insertInto('rwa_service_keys')
    .values(row)
    .onConflict((oc) => oc.column('purpose').where('retired_at', 'is', null).doNothing())
    .execute()
}

/** Every service key of `purpose`, retired ones included, oldest first. */
export function listServiceKeys(db: Executor, purpose: string) {
  return db
    .selectFrom('rwa_service_keys')
    .select(['kid', 'public_x', 'created_at', 'retired_at'])
    .where('purpose', '=', purpose)
    .orderBy('created_at')
    .orderBy('kid')
    .execute()
}

// ── Custody (server/custody.ts) ─────────────────────────────────────

const CHECK_NAME = 'master_key_check'

/** The master key's check value, once a start has stored it. */
export async function findKeyCheck(db: Executor): Promise<string | undefined> {
  const row = await db
    .selectFrom('key_custody')
    .select('check_value')
    .where('name', '=', CHECK_NAME)
    .executeTakeFirst()
  return row?.check_value
}

/** Stores the check value unless another instance stored one first. */
export async function insertKeyCheckIfAbsent(db: Executor, checkValue: string, at: string): Promise<void> {
  await db
    .insertInto('key_custody')
    .values({ name: CHECK_NAME, check_value: checkValue, created_at: at })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
}

/** Service keys still stored in plaintext (a database from before migration 0013). */
export function plaintextServiceKeys(db: Executor) {
  return db
    .selectFrom('rwa_service_keys')
    .select(['kid', 'purpose', 'private_key'])
    .where('private_key', 'not like', `${SEALED_PREFIX}%`)
    .execute()
}

/** Jurisdiction keys still stored in plaintext (a database from before migration 0013). */
export function plaintextJurisdictionKeys(db: Executor) {
  return db
    .selectFrom('jurisdictions')
    .select(['org_id', 'jurisdiction_id', 'issuer_did', 'private_key'])
    .where('private_key', 'not like', `${SEALED_PREFIX}%`)
    .execute()
}

/** One sealed key of each table, if any: what a start without a check value tries its master key on. */
export async function sealedKeySamples(db: Executor) {
  const service = await db
    .selectFrom('rwa_service_keys')
    .select(['kid', 'purpose', 'private_key'])
    .where('private_key', 'like', `${SEALED_PREFIX}%`)
    .limit(1)
    .executeTakeFirst()
  const jurisdiction = await db
    .selectFrom('jurisdictions')
    .select(['org_id', 'jurisdiction_id', 'issuer_did', 'private_key'])
    .where('private_key', 'like', `${SEALED_PREFIX}%`)
    .limit(1)
    .executeTakeFirst()
  return { service, jurisdiction }
}

/** Replaces a service key's stored private key, if it is still `from` (another instance may have sealed it). */
export async function replaceServiceKeyPrivate(db: Executor, kid: string, from: string, to: string) {
  await db
    .updateTable('rwa_service_keys')
    .set({ private_key: to })
    .where('kid', '=', kid)
    .where('private_key', '=', from)
    .execute()
}

/** Replaces a jurisdiction's stored private key, if it is still `from`. */
export async function replaceJurisdictionPrivate(
  db: Executor,
  key: { org_id: string; jurisdiction_id: string },
  from: string,
  to: string,
) {
  await db
    .updateTable('jurisdictions')
    .set({ private_key: to })
    .where('org_id', '=', key.org_id)
    .where('jurisdiction_id', '=', key.jurisdiction_id)
    .where('private_key', '=', from)
    .execute()
}
