import type { Selectable } from 'kysely'
import type {
  Attestation,
  ComplianceDetails,
  Credential,
  GovernanceEvent,
  Holding,
  Jurisdiction,
  Proof,
  PropertyData,
  Token,
  TokenDetail,
  Transfer,
  TrustRelation,
} from '../../src/contract/rwa.js'
import type {
  AttestationsTable,
  CredentialsTable,
  HoldingsTable,
  JurisdictionsTable,
  ProofsTable,
  TokenEventsTable,
  TokensTable,
  TransfersTable,
  TrustRelationsTable,
} from '../db/schema.js'
import { proofFacts } from '../../src/proof/verify.js'

/*
 * Rows to API records. The private key column of a jurisdiction is read here and dropped: no record
 * ever carries it.
 */

export function jurisdictionRecord(row: Selectable<JurisdictionsTable>): Jurisdiction {
  return {
    jurisdiction_id: row.jurisdiction_id,
    name: row.name,
    regulatory_body: row.regulatory_body,
    frameworks: JSON.parse(row.frameworks),
    credential_types: JSON.parse(row.credential_types),
    transfer_requirements: JSON.parse(row.transfer_requirements),
    issuer_did: row.issuer_did,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

export function trustRecord(row: Selectable<TrustRelationsTable>): TrustRelation {
  return {
    trust_id: row.trust_id,
    from_jurisdiction: row.from_jurisdiction,
    to_jurisdiction: row.to_jurisdiction,
    mutual: row.mutual === 1,
    status: row.status as TrustRelation['status'],
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  }
}

export function credentialRecord(row: Selectable<CredentialsTable>): Credential {
  return {
    credential_id: row.credential_id,
    type: 'PropertyOwnership',
    jurisdiction: row.jurisdiction,
    owner_did: row.owner_did,
    property_data: JSON.parse(row.property_data) as PropertyData,
    status: row.status as Credential['status'],
    issuer_did: row.issuer_did,
    issued_at: row.issued_at,
    valid_until: row.valid_until,
    revoked_at: row.revoked_at,
    revocation_reason: row.revocation_reason,
    vc_jwt: row.vc_jwt,
  }
}

export function attestationRecord(row: Selectable<AttestationsTable>): Attestation {
  return {
    attestation_id: row.attestation_id,
    jurisdiction: row.jurisdiction,
    subject_did: row.subject_did,
    type: row.type,
    attester: row.attester,
    credential_id: row.credential_id,
    evidence: row.evidence,
    issuer_did: row.issuer_did,
    issued_at: row.issued_at,
    valid_until: row.valid_until,
    vc_jwt: row.vc_jwt,
  }
}

export function tokenRecord(row: Selectable<TokensTable>, holdings: Selectable<HoldingsTable>[]): Token {
  return {
    token_id: row.token_id,
    credential_id: row.credential_id,
    jurisdiction: row.jurisdiction,
    owner_did: row.owner_did,
    symbol: row.symbol,
    total_supply: row.total_supply,
    status: row.status as Token['status'],
    holdings: holdings
      .filter((h) => h.token_id === row.token_id)
      .map((h): Holding => ({ holder_did: h.holder_did, jurisdiction: h.jurisdiction, amount: h.amount })),
    created_at: row.created_at,
  }
}

export function tokenDetailRecord(
  row: Selectable<TokensTable>,
  holdings: Selectable<HoldingsTable>[],
  events: Selectable<TokenEventsTable>[],
): TokenDetail {
  return {
    ...tokenRecord(row, holdings),
    governance_history: events.map(
      (e): GovernanceEvent => ({
        event: e.event as GovernanceEvent['event'],
        at: e.at,
        details: JSON.parse(e.details),
      }),
    ),
  }
}

export function transferRecord(row: Selectable<TransfersTable>): Transfer {
  return {
    transfer_id: row.transfer_id,
    status: row.status as Transfer['status'],
    proof_id: row.proof_id,
    compliance_details: JSON.parse(row.compliance_details) as ComplianceDetails,
    token_id: row.token_id,
    from_jurisdiction: row.from_jurisdiction,
    to_jurisdiction: row.to_jurisdiction,
    sender_did: row.sender_did,
    recipient_did: row.recipient_did,
    amount: row.amount,
    created_at: row.created_at,
  }
}

/** The stored canonical facts (keys sorted) back in the documented field order, plus the signature. */
export function proofRecord(row: Selectable<ProofsTable>): Proof {
  return { ...proofFacts(JSON.parse(row.facts)), digest: row.digest, jws: row.jws, kid: row.kid }
}
