/*
 * Investors (migration 0026, docs/identities.md). Part of schema.ts's `Database`.
 */

/** An investor of an organization: its country and category, over one or more DIDs. */
export interface IdentitiesTable {
  org_id: string
  /** `idn_…`, or the id its creator chose. */
  identity_id: string
  /** Orders the list, newest first (`idn_…`). */
  seq: string
  /** ISO 3166-1 alpha-2, upper case. */
  country: string
  /** retail, professional, accredited, qualified or institutional; null when not said. */
  category: string | null
  created_at: string
  updated_at: string
}

/** A DID of an identity; a DID belongs to at most one identity of an organization. */
export interface IdentityDidsTable {
  org_id: string
  did: string
  identity_id: string
  added_at: string
}
