import type { Kysely, Migration } from 'kysely'

/**
 * Trusted issuers (docs/issuers.md): the outside providers whose credentials an organization accepts.
 * - `issuers`: one row per issuer of an organization, kept when removed (`status` `removed`), so that
 *   its id stays bound to its DID and what it issued keeps naming it. `requirements` (a JSON object of
 *   requirement to VC types) and `jurisdictions` (a JSON array) are JSON text; `seq` orders the list
 *   (issuer ids are chosen by people and do not sort by time); `resolved_at` is when the DID was last
 *   resolved.
 * - `issuer_keys`: every Ed25519 key an issuer's DID ever listed, kept for life: a key gone from the
 *   DID document gets `retired_at` and still verifies what was signed before it.
 * - `external_attestations`: the credentials of trusted issuers submitted as attestations, the VC-JWT
 *   verbatim (`vc_sha256` its SHA-256, hex, one per organization), the requirement it meets (`type`), its
 *   VC types and signed `credentialStatus` (JSON text), and its status as the issuer's lists last said.
 *   Their ids share the `att_` space of the organization's own attestations.
 * - `issuer_status_lists`: each status list of an issuer as last fetched for the organization (the
 *   VC-JWT as served, when), and the last failure to fetch it since: what every instance's evaluations
 *   read, so that one fetch serves them all.
 * - `jurisdictions.external_only`: the requirements (a JSON array) a jurisdiction accepts only from
 *   trusted issuers' attestations; every jurisdiction had none.
 */
export const trustedIssuers: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('issuers')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('issuer_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('did', 'text', (c) => c.notNull())
      .addColumn('requirements', 'text', (c) => c.notNull())
      .addColumn('jurisdictions', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('valid_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('resolved_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('issuers_pk', ['org_id', 'issuer_id'])
      .execute()
    await db.schema.createIndex('issuers_org_seq_idx').on('issuers').columns(['org_id', 'seq']).execute()
    await db.schema.createIndex('issuers_org_did_idx').on('issuers').columns(['org_id', 'did']).execute()
    await db.schema
      .createTable('issuer_keys')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('issuer_id', 'text', (c) => c.notNull())
      .addColumn('kid', 'text', (c) => c.notNull())
      .addColumn('jwk', 'text', (c) => c.notNull())
      .addColumn('first_seen_at', 'text', (c) => c.notNull())
      .addColumn('retired_at', 'text')
      .addPrimaryKeyConstraint('issuer_keys_pk', ['org_id', 'issuer_id', 'kid'])
      .execute()
    await db.schema
      .createTable('external_attestations')
      .addColumn('attestation_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('issuer_id', 'text', (c) => c.notNull())
      .addColumn('issuer_did', 'text', (c) => c.notNull())
      .addColumn('subject_did', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('vc_types', 'text', (c) => c.notNull())
      .addColumn('vc_jwt', 'text', (c) => c.notNull())
      .addColumn('vc_sha256', 'text', (c) => c.notNull())
      .addColumn('valid_from', 'text')
      .addColumn('valid_until', 'text')
      .addColumn('credential_status', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('submitted_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('external_attestations_vc_uq')
      .on('external_attestations')
      .columns(['org_id', 'vc_sha256'])
      .unique()
      .execute()
    await db.schema
      .createIndex('external_attestations_subject_idx')
      .on('external_attestations')
      .columns(['org_id', 'subject_did', 'type'])
      .execute()
    await db.schema
      .createTable('issuer_status_lists')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('list_jwt', 'text')
      .addColumn('fetched_at', 'text')
      .addColumn('failed_at', 'text')
      .addColumn('failure', 'text')
      .addPrimaryKeyConstraint('issuer_status_lists_pk', ['org_id', 'url'])
      .execute()
    await db.schema
      .alterTable('jurisdictions')
      .addColumn('external_only', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute()
  },
}
