import type { AuditEvent } from '../contract/audit.js'
import { canonicalJson } from '../proof/verify.js'
import { type Hash, hashLeaf } from './merkle.js'

/*
 * A log's leaves (docs/governance.md, "The verifiable log"): each audit event, as the API answers it,
 * in RFC 8785 canonical JSON, without its `log_index` (the index is the leaf's position, not part of
 * what it commits to).
 */

/** The bytes a leaf commits to: the event's canonical JSON without `log_index`. */
export function leafData(event: AuditEvent & { log_index?: number | undefined }): string {
  const { log_index: _position, ...rest } = event
  return canonicalJson(rest, `audit event ${event.event_id}`)
}

/** JSON text as `canonicalJson` writes it: what a stored event's `actor` and `changes` must be for its leaf. */
export type CanonicalJsonText = string & { readonly canonicalJson: true }

/** `value` as canonical JSON text, typed as such. */
export const canonicalText = (value: unknown, what?: string): CanonicalJsonText =>
  canonicalJson(value, what) as CanonicalJsonText

/**
 * An audit event as a write stores it: its `actor` and `changes` already canonical JSON text (what
 * `canonicalJson` gives), the rest strings.
 */
export interface StoredAuditEvent {
  event_id: string
  org_id: string
  at: string
  actor: CanonicalJsonText
  request_id: string | null
  action: string
  target_type: string
  target_id: string
  /** `{ before, after }`, or null when the change recorded none. */
  changes: CanonicalJsonText | null
}

/**
 * `leafData` of a stored event, written around its canonical `actor` and `changes` texts instead of
 * parsing them back and serializing them again: the same text, since canonical JSON parsed and
 * canonicalized is itself (the members in RFC 8785 order, each string as JSON.stringify escapes it, as
 * `canonicalJson` does). The write path's leaf (docs/performance.md, "Seventh pass: the leaf from its
 * stored texts").
 */
export function leafDataOfStored(event: StoredAuditEvent): string {
  const changes = event.changes === null ? '' : `,"changes":${event.changes}`
  return (
    `{"action":${JSON.stringify(event.action)},"actor":${event.actor},"at":${JSON.stringify(event.at)}${changes}` +
    `,"event_id":${JSON.stringify(event.event_id)},"org_id":${JSON.stringify(event.org_id)}` +
    `,"request_id":${JSON.stringify(event.request_id)}` +
    `,"target":{"id":${JSON.stringify(event.target_id)},"type":${JSON.stringify(event.target_type)}}}`
  )
}

/** The RFC 9162 leaf hash of an audit event. */
export const eventLeafHash = (event: AuditEvent & { log_index?: number | undefined }): Hash =>
  hashLeaf(leafData(event))
