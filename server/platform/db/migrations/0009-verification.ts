import { type Kysely, type Migration, sql } from 'kysely'

/**
 * Verification that cannot be fooled (docs/verification.md):
 * - `credentials.title_deed_key`: the credential's title deed as compared for uniqueness (trimmed,
 *   Unicode NFC, lower case), and the partial unique index `credentials_title_deed_uq` over
 *   (org_id, jurisdiction, title_deed_key) of active credentials: one property, one live credential.
 *   Existing duplicates are not revoked: of the active credentials of one organization, jurisdiction and
 *   title deed, the newest (issued_at, then credential_id) takes the key and blocks a new issue; the
 *   older ones keep a null key and stay active as they were (docs/verification.md shows the query that
 *   lists them, for an operator to revoke what should not be live).
 * - `attestations.status`, `revoked_at`, `revocation_reason`: an attestation can be revoked.
 * - `proofs.issuers`: the jurisdictions' issuer DIDs a version-2 transfer proof signs (its other facts
 *   are the transfer row's, migration 0006); null for version-1 proofs, which verify as they are.
 *
 * The key is computed here by the same rule as `titleDeedKey` (written out again so that a later change
 * of the live function cannot change what this migration did).
 */
const keyOf = (titleDeed: string): string => titleDeed.trim().normalize('NFC').toLowerCase()

const BATCH = 500

export const verification: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('credentials').addColumn('title_deed_key', 'text').execute()
    await db.schema
      .alterTable('attestations')
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
      .execute()
    await db.schema.alterTable('attestations').addColumn('revoked_at', 'text').execute()
    await db.schema.alterTable('attestations').addColumn('revocation_reason', 'text').execute()
    await db.schema.alterTable('proofs').addColumn('issuers', 'text').execute()

    // Oldest first within each (org, jurisdiction): each active credential takes its key from the
    // older ones, so the newest ends up holding it.
    let after: { org_id: string; jurisdiction: string; issued_at: string; credential_id: string } | undefined
    for (;;) {
      const page = await sql<{
        credential_id: string
        org_id: string
        jurisdiction: string
        property_data: string
        issued_at: string
      }>`
        select credential_id, org_id, jurisdiction, property_data, issued_at from credentials
        where status = 'active' ${
          after
            ? sql`and (org_id, jurisdiction, issued_at, credential_id) > (${after.org_id}, ${after.jurisdiction}, ${after.issued_at}, ${after.credential_id})`
            : sql``
        }
        order by org_id, jurisdiction, issued_at, credential_id limit ${BATCH}`.execute(db)
      if (page.rows.length === 0) break
      for (const row of page.rows) {
        const deed = (JSON.parse(row.property_data) as { title_deed?: unknown }).title_deed
        if (typeof deed !== 'string') continue
        await sql`update credentials set title_deed_key = null
          where org_id = ${row.org_id} and jurisdiction = ${row.jurisdiction} and title_deed_key = ${keyOf(deed)}
          and status = 'active'`.execute(db)
        await sql`update credentials set title_deed_key = ${keyOf(deed)}
          where credential_id = ${row.credential_id}`.execute(db)
      }
      after = page.rows[page.rows.length - 1]
    }

    await sql`
      create unique index credentials_title_deed_uq on credentials (org_id, jurisdiction, title_deed_key)
        where status = 'active' and title_deed_key is not null`.execute(db)
  },
}
