import type { Generated } from 'kysely'

/*
 * The governance tables (migration 0002 and after), as kysely sees them; `Database` in schema.ts lists
 * them with the billing tables.
 */

// ── Governance (migration 0002) ─────────────────────────────────────────────
// JSON-valued columns hold JSON text. Private keys are PKCS#8 DER sealed under the master key
// (server/platform/signing/master-key.ts: `rwa-aes256gcm-v1:` + base64url), bound to their row, and never leave
// the server; a database from before migration 0013 held them as plain base64 until its first start.

/**
 * The service's own signing keys (`proof`): one active per purpose, and the retired ones (migration
 * 0013), kept so what they signed keeps verifying.
 */
export interface RwaServiceKeysTable {
  kid: string
  purpose: string
  private_key: string
  /** base64url of the raw 32-byte Ed25519 public key (the JWK `x`). */
  public_x: string
  created_at: string
  /** When a rotation replaced it; null for the key that signs now. */
  retired_at: string | null
}

/** The master key's check value (migration 0013): a start with another master key is refused. */
export interface KeyCustodyTable {
  name: string
  check_value: string
  created_at: string
}

export interface JurisdictionsTable {
  org_id: string
  jurisdiction_id: string
  /** Time-sortable id of the row, for newest-first paging (jurisdiction ids are chosen by users). */
  seq: string
  name: string
  regulatory_body: string
  frameworks: string
  credential_types: string
  transfer_requirements: string
  issuer_did: string
  private_key: string
  created_at: string
  updated_at: string
  /**
   * Registered again with the key of an earlier registration of its id (0022): since when that key is
   * the jurisdiction's. Null: since `created_at`.
   */
  issuer_since: string | null
  /** JSON array: requirements met only by trusted issuers' attestations (migration 0024). */
  external_only: Generated<string>
}

/**
 * The key of a removed jurisdiction (0022), kept for the trust bundle and for the id's next
 * registration: its private key sealed as it was in the jurisdiction's row (the same additional data).
 */
export interface RemovedJurisdictionsTable {
  org_id: string
  jurisdiction_id: string
  issuer_did: string
  private_key: string
  /** Since when the key was the jurisdiction's: its first registration. */
  valid_from: string
  removed_at: string
}

export interface TrustRelationsTable {
  trust_id: string
  org_id: string
  from_jurisdiction: string
  to_jurisdiction: string
  mutual: number
  status: string
  created_at: string
  revoked_at: string | null
}

export interface CredentialsTable {
  credential_id: string
  org_id: string
  jurisdiction: string
  owner_did: string
  property_data: string
  status: string
  issuer_did: string
  issued_at: string
  valid_until: string | null
  revoked_at: string | null
  revocation_reason: string | null
  vc_jwt: string
  /** Its entry in a status list (migration 0004); null for a credential issued before. */
  status_list_id: string | null
  status_list_index: number | null
  /**
   * The title deed as compared for uniqueness (trimmed, NFC, lower case; migration 0009): unique among
   * the active credentials of a jurisdiction. Null for an older duplicate the migration left active.
   */
  title_deed_key: string | null
  /** Set while suspended (migration 0025); `status` stays `active` meanwhile. */
  suspended_at: Generated<string | null>
  suspension_reason: Generated<string | null>
}

/** Every owner DID an organization has introduced with a credential: what `max_dids` caps. */
export interface RwaDidsTable {
  org_id: string
  did: string
  created_at: string
}

export interface AttestationsTable {
  attestation_id: string
  org_id: string
  jurisdiction: string
  subject_did: string
  type: string
  attester: string
  credential_id: string | null
  evidence: string | null
  issuer_did: string
  issued_at: string
  valid_until: string | null
  vc_jwt: string
  status_list_id: string | null
  status_list_index: number | null
  /** `active` or `revoked` (migration 0009). */
  status: Generated<string>
  revoked_at: string | null
  revocation_reason: string | null
  /** Set while suspended (migration 0025); `status` stays `active` meanwhile. */
  suspended_at: Generated<string | null>
  suspension_reason: Generated<string | null>
}

export interface TokensTable {
  token_id: string
  org_id: string
  credential_id: string
  jurisdiction: string
  owner_did: string
  symbol: string | null
  total_supply: number
  /** The units in existence, the sum of its holdings: moves with mints and burns (migration 0027). */
  supply: number
  /** `active`, `paused` (by an agent) or `frozen` (its credential revoked). */
  status: string
  created_at: string
  /** JSON of the transfer rules (migration 0004); null when none were ever set. */
  rules: string | null
}

/** How much of a token a DID holds in a jurisdiction; rows at zero are deleted. */
export interface HoldingsTable {
  token_id: string
  holder_did: string
  jurisdiction: string
  amount: number
  /** Units an agent froze (migration 0004); never more than `amount`. */
  frozen_amount: Generated<number>
}

/** A whole-holder freeze of a token: the holder can neither send nor receive it. */
export interface HolderFreezesTable {
  token_id: string
  holder_did: string
  org_id: string
  frozen_at: string
}

/**
 * A W3C Bitstring Status List of one issuing jurisdiction: `capacity` entries, `used` of them assigned
 * (entry n at index permute(perm_key, n)); `version` counts revocations, for the ETag.
 */
export interface StatusListsTable {
  list_id: string
  org_id: string
  jurisdiction_id: string
  capacity: number
  used: number
  perm_key: string
  version: number
  created_at: string
  updated_at: string
  /** `revocation` or `suspension` (migration 0025). */
  purpose: Generated<string>
  /** A revocation list's sibling suspension list (same capacity, same indexes); null until made. */
  suspension_list_id: Generated<string | null>
}

/** The set bits of a status list: one row per revoked entry. */
export interface StatusListRevocationsTable {
  list_id: string
  status_index: number
  revoked_at: string
}

/** The set bits of a suspension list: one row per suspended entry, deleted on reinstatement. */
export interface StatusListSuspensionsTable {
  list_id: string
  status_index: number
  suspended_at: string
}

export interface TokenEventsTable {
  event_id: string
  org_id: string
  token_id: string
  event: string
  at: string
  details: string
}

export interface TransfersTable {
  transfer_id: string
  org_id: string
  token_id: string
  from_jurisdiction: string
  to_jurisdiction: string
  sender_did: string
  recipient_did: string
  amount: number
  status: string
  proof_id: string
  created_at: string
  /** Why an agent forced it (status `forced`); null otherwise. */
  reason: string | null
  /**
   * The evaluation's three summary fields as JSON (`source_requirements`, `target_requirements`,
   * `all_satisfied`): all a list item shows of it (migration 0008).
   */
  compliance_summary: string
  /** The evaluation's checks as JSON: the detail and the proof add them to the summary. */
  compliance_checks: string
}

/**
 * A compliance proof: `facts` is the canonical JSON the JWS signs, null for a transfer's proof (its
 * transfer row holds them, migration 0006); `jws` is stored without its payload (`header..signature`).
 */
export interface ProofsTable {
  proof_id: string
  org_id: string
  /** Null for a proof that is not about one transfer (a recovery). */
  transfer_id: string | null
  facts: string | null
  digest: string
  jws: string
  kid: string
  /**
   * JSON of the jurisdiction_id → issuer_did map a version-2 transfer proof signs (migration 0009);
   * null for a version-1 proof and for a proof whose `facts` are stored.
   */
  issuers: string | null
}
