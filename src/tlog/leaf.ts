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

/** The RFC 9162 leaf hash of an audit event. */
export const eventLeafHash = (event: AuditEvent & { log_index?: number | undefined }): Hash =>
  hashLeaf(leafData(event))
