/*
 * Trusted issuers (migration 0024, docs/issuers.md). Part of schema.ts's `Database`.
 */

/** An outside issuer an organization trusts; kept when removed. */
export interface IssuersTable {
  org_id: string
  issuer_id: string
  /** Orders the list, newest first (`iss_…`). */
  seq: string
  name: string
  did: string
  /** JSON object: requirement → the VC types that meet it. */
  requirements: string
  /** JSON array of jurisdiction ids. */
  jurisdictions: string
  status: string
  valid_until: string | null
  created_at: string
  updated_at: string
  /** When its DID was last resolved. */
  resolved_at: string
}

/** A key an issuer's DID listed, kept for life. */
export interface IssuerKeysTable {
  org_id: string
  issuer_id: string
  /** `<did>#<fragment>`. */
  kid: string
  /** JSON of the OKP Ed25519 public JWK. */
  jwk: string
  first_seen_at: string
  /** When it was no longer in the DID document; null while it is. */
  retired_at: string | null
}

/** A trusted issuer's credential, submitted as an attestation. */
export interface ExternalAttestationsTable {
  attestation_id: string
  org_id: string
  issuer_id: string
  issuer_did: string
  subject_did: string
  /** The requirement it meets. */
  type: string
  /** JSON array: the VC's `type`. */
  vc_types: string
  vc_jwt: string
  /** SHA-256 of vc_jwt, hex. */
  vc_sha256: string
  valid_from: string | null
  valid_until: string | null
  /** JSON of the signed `credentialStatus`, or null. */
  credential_status: string | null
  /** `active`, `revoked` or `suspended`, as the issuer's lists last said. */
  status: string
  submitted_at: string
}

/** A status list of an issuer as last fetched for an organization, and the last failure since. */
export interface IssuerStatusListsTable {
  org_id: string
  url: string
  /** The status list credential as served; null until one was fetched. */
  list_jwt: string | null
  fetched_at: string | null
  /** The last failed fetch after `fetched_at`, and why; null when the last fetch succeeded. */
  failed_at: string | null
  failure: string | null
}
