import { AT, LATER, KEY_ID } from './billing-examples.js'
import {
  type Attestation,
  type CanTransferResponse,
  type ComplianceDetails,
  type Credential,
  type CredentialStatusEntry,
  type ForcedTransferRequest,
  type MintRequest,
  type BurnRequest,
  type FreezeRequest,
  type FreezeState,
  type Holding,
  NO_RULES,
  type RecoverRequest,
  type RecoveryResult,
  type SetTokenRulesRequest,
  type TransferSummary,
  type Jurisdiction,
  type Jwks,
  type RotatedSigningKey,
  type Proof,
  type RegisterJurisdictionRequest,
  type RequestTransferRequest,
  type RevokeTrustResponse,
  type SubmitAttestationRequest,
  type TokenDetail,
  type Transfer,
  type TransferDetail,
  type TrustRelation,
  type TrustBundle,
} from './rwa.js'

/*
 * One worked example of every request body and main response, as the OpenAPI document and the
 * reference page at /docs show them: organization `acme` moves 250 units of a tokenized Austin office
 * building from the US to Singapore. Typed by the contract, and checked against its schemas by
 * Redocly's lint of the served document.
 */

const CREDENTIAL_ID = 'cred_01M8420DESXZV8X28W2ZQWTKA9'
const KYC_ID = 'att_01M8420DEYWPM74A7PQK1HJXRN'
const TITLE_ID = 'att_01M8420DF35H44SQ7AGYH3ZC2H'
const TOKEN_ID = 'tok_01M8420DF5B1B94XW7AYVF6AZG'
const TRANSFER_ID = 'tx_01M8420DF62C692V22HSFZ69VM'
const PROOF_ID = 'prf_01M8420DF7WEBPB1HPXJYQ4P62'
const TRUST_ID = 'trust_01M8420DEQ777SH9P061Q4JTSR'
const US_DID = 'did:key:z6Mkp85iYE6F1AFcv2MGbzruFjg3giDSBrYVB7Fs1NqCCRVD'
const SG_DID = 'did:key:z6MkjoinPzAwnDLeKytHddyeph4DRQbWQ8eSh8yDxriuZ8Xy'
const ALICE = 'did:web:acme:alice'
const BOB = 'did:web:acme:bob'
const VC_JWT =
  'eyJhbGciOiJFZERTQSIsInR5cCI6InZjK2p3dCJ9.eyJpc3MiOiJkaWQ6a2V5Ono2TWtwODVpWUU2RjFBRmN2Mk1HYnpydUZqZzNnaURTQnJZVkI3RnMxTnFDQ1JWRCJ9.ns70Oxag1stHCwlaJCv7nBjUDc4mrSJNdPeCgzebL72QJwtasXyvbuFBhlT15IzRrKFYwNwLIZTMNq9k86SpCg'
const PROOF_KID = 'VmR6U-ZVK8mFnWxGJsgPbR8Q7qgOS9_3_whifyApDJA'

// ── Governance ──────────────────────────────────────────────────────────────

/** The configuration of the US jurisdiction (everything a register sets but its id). */
const usConfig = {
  name: 'United States',
  regulatory_body: 'SEC',
  frameworks: ['Reg D'],
  credential_types: ['PropertyOwnership', 'RegulatoryAttestation'],
  transfer_requirements: ['kyc', 'aml', 'title_verification'],
  external_only: [],
}

export const registerJurisdictionRequestExample: RegisterJurisdictionRequest = {
  jurisdiction_id: 'US',
  ...usConfig,
}

export const updateJurisdictionRequestExample: Omit<RegisterJurisdictionRequest, 'jurisdiction_id'> = {
  ...usConfig,
  frameworks: ['Reg D', 'Reg S'],
}

export const jurisdictionExample: Jurisdiction = {
  jurisdiction_id: 'US',
  ...usConfig,
  issuer_did: US_DID,
  created_at: AT,
  updated_at: AT,
}

export const establishTrustRequestExample = { from_jurisdiction: 'US', to_jurisdiction: 'SG', mutual: true }

export const trustPairExample = { from_jurisdiction: 'US', to_jurisdiction: 'SG' }

export const trustRelationExample: TrustRelation = {
  trust_id: TRUST_ID,
  from_jurisdiction: 'US',
  to_jurisdiction: 'SG',
  mutual: true,
  status: 'active',
  created_at: AT,
  revoked_at: null,
}

export const revokeTrustResponseExample: RevokeTrustResponse = {
  status: 'revoked',
  trust_id: TRUST_ID,
  from_jurisdiction: 'US',
  to_jurisdiction: 'SG',
  mutual: true,
  revoked_at: LATER,
}

const STATUS_LIST_US = 'https://rwa.example.com/console/rwa/status/sl_01M8420DE8N3M2BQ5Y9K7XW1TQ'
const STATUS_LIST_SG = 'https://rwa.example.com/console/rwa/status/sl_01M8420DEAZ4R6W2H8P3N5QV0J'

const SUSPENSION_LIST_US = 'https://rwa.example.com/console/rwa/status/sl_01M8420DE9K4T7Q2W6R1Y3ZB5N'
const SUSPENSION_LIST_SG = 'https://rwa.example.com/console/rwa/status/sl_01M8420DEBH2V5N8C4J6M0XR7P'

const entryOf = (
  list: string,
  index: number,
  purpose: CredentialStatusEntry['statusPurpose'],
): CredentialStatusEntry => ({
  id: `${list}#${index}`,
  type: 'BitstringStatusListEntry',
  statusPurpose: purpose,
  statusListIndex: String(index),
  statusListCredential: list,
})

/**
 * A credentialStatus: bit `index` of a jurisdiction's revocation list, and the same bit of its
 * suspension list.
 */
const statusEntry = (list: string, suspensionList: string, index: number): CredentialStatusEntry[] => [
  entryOf(list, index, 'revocation'),
  entryOf(suspensionList, index, 'suspension'),
]

export const issueCredentialRequestExample = {
  jurisdiction: 'US',
  owner_did: ALICE,
  property_data: {
    address: '600 Congress Ave, Austin, TX',
    type: 'commercial',
    value_usd: 48_500_000,
    title_deed: 'TX-TRAVIS-2019-004512',
  },
}

export const credentialExample: Credential = {
  credential_id: CREDENTIAL_ID,
  type: 'PropertyOwnership',
  ...issueCredentialRequestExample,
  status: 'active',
  issuer_did: US_DID,
  issued_at: AT,
  valid_until: null,
  revoked_at: null,
  revocation_reason: null,
  vc_jwt: VC_JWT,
  credential_status: statusEntry(STATUS_LIST_US, SUSPENSION_LIST_US, 48_213),
}

export const revokeCredentialRequestExample = { reason: 'Title transferred outside the platform' }

export const revokedCredentialExample: Credential = {
  ...credentialExample,
  status: 'revoked',
  revoked_at: LATER,
  revocation_reason: revokeCredentialRequestExample.reason,
}

export const suspendRequestExample = { reason: 'Ownership disputed in court; under review' }

export const suspendedCredentialExample: Credential = { ...credentialExample, status: 'suspended' }

export const submitAttestationRequestExample: SubmitAttestationRequest = {
  jurisdiction: 'SG',
  subject_did: BOB,
  type: 'kyc',
  attester: 'Onfido',
  evidence: 'onfido:check:7f3c2a',
  valid_until: '2027-11-22T00:00:00.000Z',
}

export const attestationExample: Attestation = {
  attestation_id: KYC_ID,
  source: 'self',
  jurisdiction: 'SG',
  subject_did: BOB,
  type: 'kyc',
  attester: 'Onfido',
  credential_id: null,
  evidence: 'onfido:check:7f3c2a',
  issuer_did: SG_DID,
  issued_at: AT,
  valid_until: '2027-11-22T00:00:00.000Z',
  vc_jwt: VC_JWT,
  credential_status: statusEntry(STATUS_LIST_SG, SUSPENSION_LIST_SG, 90_127),
  status: 'active',
  revoked_at: null,
  revocation_reason: null,
}

export const revokeAttestationRequestExample = { reason: 'The KYC check was found to be forged' }

export const revokedAttestationExample: Attestation = {
  ...attestationExample,
  status: 'revoked',
  revoked_at: LATER,
  revocation_reason: revokeAttestationRequestExample.reason,
}

export const suspendedAttestationExample: Attestation = { ...attestationExample, status: 'suspended' }

export const tokenizeRequestExample = { credential_id: CREDENTIAL_ID, total_supply: 1000, symbol: 'ATX' }

export const tokenExample: TokenDetail = {
  token_id: TOKEN_ID,
  credential_id: CREDENTIAL_ID,
  jurisdiction: 'US',
  owner_did: ALICE,
  symbol: 'ATX',
  total_supply: 1000,
  supply: 1000,
  status: 'active',
  rules: { ...NO_RULES, max_balance_per_holder: 500, max_holders: { SG: 50 } },
  holdings: [
    { holder_did: ALICE, jurisdiction: 'US', amount: 750, frozen_amount: 0, frozen: false },
    { holder_did: BOB, jurisdiction: 'SG', amount: 250, frozen_amount: 0, frozen: false },
  ],
  holdings_total: 2,
  created_at: AT,
  governance_history_total: 2,
  frozen_holders: [],
  frozen_holders_total: 0,
  governance_history: [
    {
      event: 'tokenized',
      at: AT,
      details: {
        credential_id: CREDENTIAL_ID,
        total_supply: 1000,
        holder_did: ALICE,
        jurisdiction: 'US',
        actor_key_id: KEY_ID,
      },
    },
    {
      event: 'transfer_approved',
      at: LATER,
      details: {
        transfer_id: TRANSFER_ID,
        proof_id: PROOF_ID,
        from_jurisdiction: 'US',
        to_jurisdiction: 'SG',
        sender_did: ALICE,
        recipient_did: BOB,
        amount: 250,
        actor_key_id: KEY_ID,
      },
    },
  ],
}

export const newTokenExample: TokenDetail = {
  ...tokenExample,
  rules: NO_RULES,
  holdings: [{ holder_did: ALICE, jurisdiction: 'US', amount: 1000, frozen_amount: 0, frozen: false }],
  holdings_total: 1,
  governance_history: tokenExample.governance_history.slice(0, 1),
  governance_history_total: 1,
}

export const holdingExample: Holding = {
  holder_did: BOB,
  jurisdiction: 'SG',
  amount: 250,
  frozen_amount: 100,
  frozen: false,
}

export const setTokenRulesRequestExample: SetTokenRulesRequest = {
  max_balance_per_holder: 500,
  max_holders: { SG: 50 },
  lockup_until: '2027-01-01T00:00:00.000Z',
  country_allow: ['US', 'SG'],
  max_ownership_percent: 10,
  reason: 'Offering memorandum, section 4',
}

export const tokenActionRequestExample = { reason: 'Corporate action: stock split record date' }

export const freezeRequestExample: FreezeRequest = {
  holder_did: BOB,
  jurisdiction: 'SG',
  amount: 100,
  reason: 'Court order 2026-77',
}

export const freezeStateExample: FreezeState = {
  token_id: TOKEN_ID,
  holder_did: BOB,
  frozen: false,
  holdings: [holdingExample],
}

export const forcedTransferRequestExample: ForcedTransferRequest = {
  from_did: BOB,
  from_jurisdiction: 'SG',
  to_did: ALICE,
  to_jurisdiction: 'US',
  amount: 100,
  reason: 'Court order 2026-77',
}

export const mintRequestExample: MintRequest = {
  to_did: BOB,
  jurisdiction: 'SG',
  amount: 200,
  reason: 'Second subscription round, allocation 14',
}

export const burnRequestExample: BurnRequest = {
  from_did: BOB,
  jurisdiction: 'SG',
  amount: 50,
  reason: 'Redemption 2026-12',
}

export const recoverRequestExample: RecoverRequest = {
  lost_did: BOB,
  new_did: 'did:web:acme:bob-2',
  reason: 'Lost keys, ticket 881',
}

export const recoveryResultExample: RecoveryResult = {
  lost_did: BOB,
  new_did: 'did:web:acme:bob-2',
  moved: [{ ...holdingExample, holder_did: 'did:web:acme:bob-2' }],
  proof_id: PROOF_ID,
  log_index: 43,
}

export const requestTransferRequestExample: RequestTransferRequest = {
  token_id: TOKEN_ID,
  from_jurisdiction: 'US',
  to_jurisdiction: 'SG',
  recipient_did: BOB,
  amount: 250,
}

const complianceExample: ComplianceDetails = {
  source_requirements: ['kyc', 'aml', 'title_verification'],
  target_requirements: ['kyc', 'aml', 'investor_qualification'],
  all_satisfied: true,
  checks: [
    {
      requirement: 'token_active',
      jurisdiction: 'US',
      satisfied: true,
      evidence: TOKEN_ID,
      reason: `token ${TOKEN_ID} is active`,
    },
    {
      requirement: 'credential_valid',
      jurisdiction: 'US',
      satisfied: true,
      evidence: CREDENTIAL_ID,
      reason: `credential ${CREDENTIAL_ID} is active`,
    },
    {
      requirement: 'sufficient_holding',
      jurisdiction: 'US',
      satisfied: true,
      evidence: null,
      reason: `sender ${ALICE} holds 1000 of ${TOKEN_ID} in US; 250 requested`,
    },
    {
      requirement: 'holder_not_frozen',
      jurisdiction: 'US',
      satisfied: true,
      evidence: null,
      reason: `neither sender ${ALICE} nor recipient ${BOB} is frozen for ${TOKEN_ID}`,
    },
    {
      requirement: 'trust',
      jurisdiction: 'SG',
      satisfied: true,
      evidence: TRUST_ID,
      reason: `SG trusts US (mutual relation ${TRUST_ID})`,
    },
    {
      requirement: 'rule:max_balance_per_holder',
      jurisdiction: 'SG',
      satisfied: true,
      evidence: 'rules.max_balance_per_holder=500',
      reason: `recipient ${BOB} would hold 250 of ${TOKEN_ID} across jurisdictions, within max_balance_per_holder 500`,
    },
    {
      requirement: 'title_verification',
      jurisdiction: 'US',
      satisfied: true,
      evidence: TITLE_ID,
      reason: `title_verification of credential ${CREDENTIAL_ID} attested by US in ${TITLE_ID}`,
    },
    {
      requirement: 'kyc',
      jurisdiction: 'SG',
      satisfied: true,
      evidence: KYC_ID,
      reason: `kyc of recipient ${BOB} attested by SG in ${KYC_ID}`,
    },
  ],
}

export const transferExample: Transfer = {
  transfer_id: TRANSFER_ID,
  status: 'approved',
  proof_id: PROOF_ID,
  compliance_details: complianceExample,
  token_id: TOKEN_ID,
  from_jurisdiction: 'US',
  to_jurisdiction: 'SG',
  sender_did: ALICE,
  recipient_did: BOB,
  amount: 250,
  created_at: LATER,
  reason: null,
  log_index: 41,
}

export const transferSummaryExample: TransferSummary = {
  ...(({ reason: _, log_index: _i, ...transfer }) => transfer)(transferExample),
  compliance_details: {
    source_requirements: complianceExample.source_requirements,
    target_requirements: complianceExample.target_requirements,
    all_satisfied: true,
  },
}

export const canTransferResponseExample: CanTransferResponse = {
  allowed: true,
  compliance_details: complianceExample,
}

export const forcedTransferExample: Transfer = {
  ...transferExample,
  status: 'forced',
  log_index: 42,
  ...{
    from_jurisdiction: 'SG',
    to_jurisdiction: 'US',
    sender_did: BOB,
    recipient_did: ALICE,
    amount: 100,
  },
  compliance_details: {
    source_requirements: [],
    target_requirements: ['kyc'],
    all_satisfied: true,
    checks: [
      {
        requirement: 'kyc',
        jurisdiction: 'US',
        satisfied: true,
        evidence: KYC_ID,
        reason: `kyc of recipient ${ALICE} attested by SG in ${KYC_ID} (recognised through trust from SG)`,
      },
    ],
  },
  reason: 'Court order 2026-77',
}

export const proofExample: Proof = {
  proof_id: PROOF_ID,
  transfer_id: TRANSFER_ID,
  token_id: TOKEN_ID,
  decision: 'approved',
  evaluated_at: LATER,
  transfer: {
    from_jurisdiction: 'US',
    to_jurisdiction: 'SG',
    sender_did: ALICE,
    recipient_did: BOB,
    amount: 250,
  },
  compliance_details: complianceExample,
  digest: 'da45c1552c9d92eb15042be549d0c85975dece65948670eca1e04d017be2b25a',
  jws: 'eyJhbGciOiJFZERTQSIsImtpZCI6IlZtUjZVLVpWSzhtRm5XeEdKc2dQYlI4UTdxZ09TOV8zX3doaWZ5QXBESkEiLCJ0eXAiOiJyd2EtcHJvb2YrandzIn0.eyJhbW91bnQiOjI1MH0.Hj02VsZARy-WDou7f7Ysm12v34XZskAQP_eSyT5E-SwCJlfcy9ksUkCNR90PNrvOts7dEux1KIda5cDjAIkMCQ',
  kid: PROOF_KID,
}

export const transferDetailExample: TransferDetail = { ...transferExample, proof: proofExample }

export const jwksExample: Jwks = {
  keys: [
    {
      kty: 'OKP',
      crv: 'Ed25519',
      x: 'EbM9yoXCsnzW4KFJAVU80cgne44y3fDZkjJwO6PniUU',
      kid: PROOF_KID,
      alg: 'EdDSA',
      use: 'sig',
    },
  ],
}

/** The proof key a rotation made (the example JWKS's key retired at LATER). */
export const rotatedSigningKeyExample: RotatedSigningKey = {
  kid: 'pVb8qh3Kx2bD1bFYl1c0xq7oZbS6n8T5kq0u3rXy7wE',
  valid_from: LATER,
  retired: { kid: PROOF_KID, retired_at: LATER },
}

export const trustBundleExample: TrustBundle = {
  org_id: 'acme',
  generated_at: LATER,
  proof_keys: {
    keys: jwksExample.keys.map((key) => ({ ...key, valid_from: AT, valid_until: null })),
  },
  issuers: [
    { jurisdiction_id: 'SG', issuer_did: SG_DID, valid_from: AT, valid_until: null },
    { jurisdiction_id: 'US', issuer_did: US_DID, valid_from: AT, valid_until: null },
  ],
  external_issuers: [
    {
      issuer_id: 'acme-kyc',
      did: 'did:web:kyc.example.com',
      keys: [
        {
          kid: 'did:web:kyc.example.com#key-1',
          jwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' },
          first_seen_at: AT,
          retired_at: null,
        },
      ],
      requirements: { kyc: ['KYCCredential'] },
      jurisdictions: ['US'],
      status: 'active',
      valid_until: null,
    },
  ],
}

/** A one-item page of a governance list whose next page starts after `cursor`. */
export const pageExample = <P extends string, T>(plural: P, item: T, cursor: string | null = null) =>
  ({ [plural]: [item], total: 1, next_cursor: cursor }) as { [K in P]: T[] } & {
    total: number
    next_cursor: string | null
  }
