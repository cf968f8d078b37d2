import type { Kysely, Migration } from 'kysely'

/**
 * Token governance (docs/governance.md, "Token governance"): frozen units on holdings and whole-holder
 * freezes, per-token transfer rules, the reason of an agent's forced transfer, proofs that are not about one
 * transfer (a recovery), and the W3C Bitstring Status Lists that make revocation checkable by any verifier.
 * Dialect-neutral: every statement is kysely's schema builder, so SQLite and PostgreSQL run the same.
 */
export const tokenGovernance: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: the schema as it was then, not the current one.
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('holdings')
      .addColumn('frozen_amount', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()

    // A whole-holder freeze: the holder can neither send nor receive the token, held or not.
    await db.schema
      .createTable('holder_freezes')
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('holder_did', 'text', (c) => c.notNull())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('frozen_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('holder_freezes_pk', ['token_id', 'holder_did'])
      .execute()

    // JSON of the token's rules; null before any were set.
    await db.schema.alterTable('tokens').addColumn('rules', 'text').execute()

    await db.schema.alterTable('transfers').addColumn('reason', 'text').execute()
    // The sender's approved volume of a day (rule daily_volume_per_holder).
    await db.schema
      .createIndex('transfers_sender_day_idx')
      .on('transfers')
      .columns(['token_id', 'sender_did', 'created_at'])
      .execute()

    // A recovery's proof has no transfer: transfer_id becomes nullable. Neither dialect shares an
    // ALTER COLUMN with the other, so the table is rebuilt (copy, drop, rename).
    await db.schema
      .createTable('proofs_v4')
      .addColumn('proof_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('transfer_id', 'text', (c) => c.unique())
      .addColumn('facts', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('jws', 'text', (c) => c.notNull())
      .addColumn('kid', 'text', (c) => c.notNull())
      .execute()
    await db
      .insertInto('proofs_v4')
      .columns(['proof_id', 'org_id', 'transfer_id', 'facts', 'digest', 'jws', 'kid'])
      .expression(
        db
          .selectFrom('proofs')
          .select(['proof_id', 'org_id', 'transfer_id', 'facts', 'digest', 'jws', 'kid']),
      )
      .execute()
    await db.schema.dropTable('proofs').execute()
    await db.schema.alterTable('proofs_v4').renameTo('proofs').execute()

    // One status list per issuing jurisdiction (a new one when it fills). The n-th entry of a list
    // gets index permute(perm_key, n): random-looking, never repeated; perm_key never leaves the server.
    await db.schema
      .createTable('status_lists')
      .addColumn('list_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('jurisdiction_id', 'text', (c) => c.notNull())
      .addColumn('capacity', 'integer', (c) => c.notNull())
      .addColumn('used', 'integer', (c) => c.notNull())
      .addColumn('perm_key', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('status_lists_jurisdiction_idx')
      .on('status_lists')
      .columns(['org_id', 'jurisdiction_id', 'list_id'])
      .execute()
    await db.schema
      .createTable('status_list_revocations')
      .addColumn('list_id', 'text', (c) => c.notNull())
      .addColumn('status_index', 'integer', (c) => c.notNull())
      .addColumn('revoked_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('status_list_revocations_pk', ['list_id', 'status_index'])
      .execute()
    for (const table of ['credentials', 'attestations']) {
      await db.schema.alterTable(table).addColumn('status_list_id', 'text').execute()
      await db.schema.alterTable(table).addColumn('status_list_index', 'integer').execute()
    }
  },
}
