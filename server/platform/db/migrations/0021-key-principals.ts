import type { Kysely, Migration } from 'kysely'

/**
 * Four eyes by principal (docs/accountability.md, "Four eyes"):
 * - `api_keys.principal_id`: the first key of a reroll chain, set on every key rerolled from it (a
 *   reroll of a reroll too). Null on a key no reroll made: it is its own principal. Existing
 *   chains get theirs here, walked through `replaced_by`.
 * - `approvals.requester_expires_at`: the requesting key's `expires_at` (a reroll keeps it, so it is
 *   the principal's), copied when the approval is made: a pending approval reads `cancelled` once it
 *   has passed, with no write. Existing approvals get their requester's here.
 */
export const keyPrincipals: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: the schema as it is here, not the current one.
  async up(db: Kysely<any>) {
    await db.schema.alterTable('api_keys').addColumn('principal_id', 'text').execute()
    await db.schema.createIndex('api_keys_principal_idx').on('api_keys').column('principal_id').execute()
    await db.schema.alterTable('approvals').addColumn('requester_expires_at', 'text').execute()

    const rerolled: Array<{ key_id: string; replaced_by: string }> = await db
      .selectFrom('api_keys')
      .select(['key_id', 'replaced_by'])
      .where('replaced_by', 'is not', null)
      .execute()
    const previous = new Map(rerolled.map((k) => [k.replaced_by, k.key_id]))
    for (const successor of previous.keys()) {
      let root = successor
      while (previous.has(root)) root = previous.get(root)!
      await db.updateTable('api_keys').set({ principal_id: root }).where('key_id', '=', successor).execute()
    }

    await db
      .updateTable('approvals')
      .set((eb) => ({
        requester_expires_at: eb
          .selectFrom('api_keys')
          .select('api_keys.expires_at')
          .whereRef('api_keys.key_id', '=', 'approvals.requested_by'),
      }))
      .execute()
  },
}
