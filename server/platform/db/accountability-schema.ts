/*
 * The accountability tables (migration 0012, docs/accountability.md): the audit log and the Idempotency-Keys
 * kept for 24 h. Part of schema.ts's `Database`.
 */

/** One change a write recorded. `actor` and `changes` are JSON text. */
export interface AuditEventsTable {
  event_id: string
  org_id: string
  at: string
  actor: string
  /** The acting key, for the `actor_key_id` filter; null when the server acted for a system. */
  actor_key_id: string | null
  request_id: string | null
  action: string
  target_type: string
  target_id: string
  changes: string | null
  /** The event's position in its organization's log (migration 0015); set by every write since. */
  log_index: number | null
}

/**
 * An organization's verifiable log (migration 0015, docs/governance.md, "The verifiable log"): its size, root
 * and compact range (hex hashes, comma-separated, largest subtree first).
 */
export interface AuditLogsTable {
  org_id: string
  size: number
  root: string
  frontier: string
}

/**
 * A complete subtree of an organization's log: level 0 is a leaf, `idx` its position in its level,
 * `hash` its 32 bytes (0018; hex text before).
 */
export interface AuditLogNodesTable {
  org_id: string
  level: number
  idx: number
  hash: Buffer
}

/**
 * A complete tile of the log (0019): leaves [256·tile, 256·tile + 256), `hashes` its levels 0 to 7's
 * 510 hashes (server/platform/audit-log/tiles.ts), copies of their `audit_log_nodes` rows read in one descent.
 */
export interface AuditLogTilesTable {
  org_id: string
  tile: number
  hashes: Buffer
}

/** An organization's Idempotency-Key: the request it came with, and its answer once it has one. */
export interface IdempotencyKeysTable {
  org_id: string
  key: string
  method: string
  path: string
  /** SHA-256 (hex) of the request body's bytes. */
  body_hash: string
  state: 'in_flight' | 'done'
  status: number | null
  /** The answer's headers to replay, JSON text. */
  headers: string | null
  body: string | null
  created_at: string
  expires_at: string
}

/** An organization's four-eyes policy (0014): `require_approval` is a JSON array of operation names. */
export interface ApprovalPoliciesTable {
  org_id: string
  require_approval: string
  updated_at: string
  updated_by: string
}

/**
 * A covered call waiting for a second key, or decided (0014). `body` and `outcome` are JSON text;
 * `status` is never `expired` (a pending row past `expires_at` reads so); `cancelled` is stored when
 * the requester's key is revoked, and read from a pending row past `requester_expires_at`.
 */
export interface ApprovalsTable {
  approval_id: string
  org_id: string
  operation: string
  target_type: string
  target_id: string
  body: string
  status: 'pending' | 'approved' | 'rejected' | 'failed' | 'cancelled'
  requested_by: string
  requested_at: string
  expires_at: string
  /** The requesting key's `expires_at` (0021): a pending approval reads cancelled once it passes. */
  requester_expires_at: string | null
  decided_by: string | null
  decided_at: string | null
  reason: string | null
  outcome: string | null
}
