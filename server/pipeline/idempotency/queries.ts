import type { Selectable } from 'kysely'
import type { IdempotencyKeysTable } from '../../platform/db/accountability-schema.js'
import type { Executor } from '../../platform/db/queries.js'

/** Every query of the organizations' Idempotency-Keys. */

export type IdempotencyRow = Selectable<IdempotencyKeysTable>

/** What a claim records of the request: it must be the same for a replay. */
export interface IdempotentRequest {
  method: string
  path: string
  body_hash: string
}

/**
 * Claims a key for a request now running (`in_flight`), committed at once; false when the organization
 * holds that key already (the row is then read to decide). Never fails on the conflict, so it can run
 * inside any transaction.
 */
export async function claimKey(
  db: Executor,
  orgId: string,
  key: string,
  request: IdempotentRequest,
  createdAt: string,
  expiresAt: string,
): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values({
      org_id: orgId,
      key,
      ...request,
      state: 'in_flight',
      status: null,
      headers: null,
      body: null,
      created_at: createdAt,
      expires_at: expiresAt,
    })
    .onConflict((oc) => oc.columns(['org_id', 'key']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
}

export function findKey(db: Executor, orgId: string, key: string): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('key', '=', key)
    .executeTakeFirst()
}

/**
 * Forgets the organization's keys whose 24 h are over (a claim does, once per instance and organization
 * every few minutes, so the table holds about a day of keys), and with them the one about to be claimed
 * again if it is one of them.
 */
export async function deleteExpiredKeys(db: Executor, orgId: string, now: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('org_id', '=', orgId).where('expires_at', '<=', now).execute()
}

/**
 * Takes over a claim left in flight since `since` (its request died before answering): conditional, so
 * of two requests taking it over at once one wins.
 */
export async function takeOverKey(
  db: Executor,
  orgId: string,
  key: string,
  since: string,
  createdAt: string,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ created_at: createdAt })
    .where('org_id', '=', orgId)
    .where('key', '=', key)
    .where('state', '=', 'in_flight')
    .where('created_at', '=', since)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * Stores the answer of the request that claimed the key at `claimedAt`; false when that claim is no
 * longer its own (taken over after a minute by a retry, while this request was merely slow).
 */
export async function storeAnswer(
  db: Executor,
  orgId: string,
  key: string,
  claimedAt: string,
  answer: { status: number; headers: string; body: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', ...answer })
    .where('org_id', '=', orgId)
    .where('key', '=', key)
    .where('state', '=', 'in_flight')
    .where('created_at', '=', claimedAt)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Releases a claim whose request had no answer worth keeping (a 5xx, a 429): it may be retried. */
export async function releaseKey(db: Executor, orgId: string, key: string, claimedAt: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('org_id', '=', orgId)
    .where('key', '=', key)
    .where('state', '=', 'in_flight')
    .where('created_at', '=', claimedAt)
    .execute()
}
