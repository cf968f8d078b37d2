import type { Kysely, Migration } from 'kysely'

/**
 * Governance: jurisdictions (with their signing keys), trust relations, credentials, the DIDs each
 * organization has introduced, attestations, tokens with their holdings and history, transfers,
 * compliance proofs, and the service's proof-signing key. Every row but the service key carries
 * `org_id`, and every list index starts with it.
 */
export const governance: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('rwa_service_keys')
      .addColumn('kid', 'text', (c) => c.primaryKey())
      .addColumn('purpose', 'text', (c) => c.notNull().unique())
      .addColumn('private_key', 'text', (c) => c.notNull())
      .addColumn('public_x', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('jurisdictions')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('jurisdiction_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('regulatory_body', 'text', (c) => c.notNull())
      .addColumn('frameworks', 'text', (c) => c.notNull())
      .addColumn('credential_types', 'text', (c) => c.notNull())
      .addColumn('transfer_requirements', 'text', (c) => c.notNull())
      .addColumn('issuer_did', 'text', (c) => c.notNull())
      .addColumn('private_key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('jurisdictions_pk', ['org_id', 'jurisdiction_id'])
      .execute()
    await db.schema
      .createIndex('jurisdictions_org_seq_idx')
      .on('jurisdictions')
      .columns(['org_id', 'seq'])
      .execute()

    await db.schema
      .createTable('trust_relations')
      .addColumn('trust_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('from_jurisdiction', 'text', (c) => c.notNull())
      .addColumn('to_jurisdiction', 'text', (c) => c.notNull())
      .addColumn('mutual', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .execute()
    await db.schema
      .createIndex('trust_org_idx')
      .on('trust_relations')
      .columns(['org_id', 'status', 'trust_id'])
      .execute()

    await db.schema
      .createTable('credentials')
      .addColumn('credential_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('owner_did', 'text', (c) => c.notNull())
      .addColumn('property_data', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('issuer_did', 'text', (c) => c.notNull())
      .addColumn('issued_at', 'text', (c) => c.notNull())
      .addColumn('valid_until', 'text')
      .addColumn('revoked_at', 'text')
      .addColumn('revocation_reason', 'text')
      .addColumn('vc_jwt', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('credentials_org_idx')
      .on('credentials')
      .columns(['org_id', 'credential_id'])
      .execute()
    await db.schema
      .createIndex('credentials_jurisdiction_idx')
      .on('credentials')
      .columns(['org_id', 'jurisdiction', 'credential_id'])
      .execute()
    await db.schema
      .createIndex('credentials_owner_idx')
      .on('credentials')
      .columns(['org_id', 'owner_did', 'credential_id'])
      .execute()
    await db.schema
      .createIndex('credentials_status_idx')
      .on('credentials')
      .columns(['org_id', 'status', 'credential_id'])
      .execute()

    await db.schema
      .createTable('rwa_dids')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('did', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('rwa_dids_pk', ['org_id', 'did'])
      .execute()

    await db.schema
      .createTable('attestations')
      .addColumn('attestation_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('subject_did', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('attester', 'text', (c) => c.notNull())
      .addColumn('credential_id', 'text')
      .addColumn('evidence', 'text')
      .addColumn('issuer_did', 'text', (c) => c.notNull())
      .addColumn('issued_at', 'text', (c) => c.notNull())
      .addColumn('valid_until', 'text')
      .addColumn('vc_jwt', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('attestations_org_idx')
      .on('attestations')
      .columns(['org_id', 'attestation_id'])
      .execute()
    await db.schema
      .createIndex('attestations_jurisdiction_idx')
      .on('attestations')
      .columns(['org_id', 'jurisdiction', 'attestation_id'])
      .execute()
    await db.schema
      .createIndex('attestations_credential_idx')
      .on('attestations')
      .columns(['org_id', 'credential_id', 'attestation_id'])
      .execute()
    await db.schema
      .createIndex('attestations_subject_idx')
      .on('attestations')
      .columns(['org_id', 'subject_did', 'type', 'attestation_id'])
      .execute()
    await db.schema
      .createIndex('attestations_type_idx')
      .on('attestations')
      .columns(['org_id', 'type', 'attestation_id'])
      .execute()

    await db.schema
      .createTable('tokens')
      .addColumn('token_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('credential_id', 'text', (c) => c.notNull().unique())
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('owner_did', 'text', (c) => c.notNull())
      .addColumn('symbol', 'text')
      .addColumn('total_supply', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('tokens_org_idx').on('tokens').columns(['org_id', 'token_id']).execute()
    await db.schema
      .createIndex('tokens_jurisdiction_idx')
      .on('tokens')
      .columns(['org_id', 'jurisdiction', 'token_id'])
      .execute()
    await db.schema
      .createIndex('tokens_owner_idx')
      .on('tokens')
      .columns(['org_id', 'owner_did', 'token_id'])
      .execute()
    await db.schema
      .createIndex('tokens_status_idx')
      .on('tokens')
      .columns(['org_id', 'status', 'token_id'])
      .execute()

    await db.schema
      .createTable('holdings')
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('holder_did', 'text', (c) => c.notNull())
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('amount', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('holdings_pk', ['token_id', 'holder_did', 'jurisdiction'])
      .execute()

    await db.schema
      .createTable('token_events')
      .addColumn('event_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('details', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('token_events_token_idx')
      .on('token_events')
      .columns(['token_id', 'event_id'])
      .execute()

    await db.schema
      .createTable('transfers')
      .addColumn('transfer_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('from_jurisdiction', 'text', (c) => c.notNull())
      .addColumn('to_jurisdiction', 'text', (c) => c.notNull())
      .addColumn('sender_did', 'text', (c) => c.notNull())
      .addColumn('recipient_did', 'text', (c) => c.notNull())
      .addColumn('amount', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('proof_id', 'text', (c) => c.notNull())
      .addColumn('compliance_details', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('transfers_org_idx')
      .on('transfers')
      .columns(['org_id', 'transfer_id'])
      .execute()
    await db.schema
      .createIndex('transfers_token_idx')
      .on('transfers')
      .columns(['org_id', 'token_id', 'transfer_id'])
      .execute()
    await db.schema
      .createIndex('transfers_status_idx')
      .on('transfers')
      .columns(['org_id', 'status', 'transfer_id'])
      .execute()
    await db.schema
      .createIndex('transfers_from_idx')
      .on('transfers')
      .columns(['org_id', 'from_jurisdiction', 'transfer_id'])
      .execute()
    await db.schema
      .createIndex('transfers_to_idx')
      .on('transfers')
      .columns(['org_id', 'to_jurisdiction', 'transfer_id'])
      .execute()

    await db.schema
      .createTable('proofs')
      .addColumn('proof_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('transfer_id', 'text', (c) => c.notNull().unique())
      .addColumn('facts', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('jws', 'text', (c) => c.notNull())
      .addColumn('kid', 'text', (c) => c.notNull())
      .execute()
  },
}
