import type { Generated } from 'kysely'
import type {
  KeyCustodyTable,
  RwaServiceKeysTable,
  JurisdictionsTable,
  RemovedJurisdictionsTable,
  TrustRelationsTable,
  CredentialsTable,
  RwaDidsTable,
  AttestationsTable,
  TokensTable,
  HoldingsTable,
  HolderFreezesTable,
  StatusListsTable,
  StatusListRevocationsTable,
  StatusListSuspensionsTable,
  TokenEventsTable,
  TransfersTable,
  ProofsTable,
} from './governance-schema.js'
import type {
  TokenEventCountsTable,
  TransferCountsTable,
  TransferDailyVolumesTable,
} from './counters-schema.js'
import type {
  ApprovalPoliciesTable,
  ApprovalsTable,
  AuditEventsTable,
  AuditLogNodesTable,
  AuditLogTilesTable,
  AuditLogsTable,
  IdempotencyKeysTable,
} from './accountability-schema.js'
import type {
  EventsTable,
  JobLeasesTable,
  ScheduledEventMarksTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from './events-schema.js'
import type { ConsoleSessionsTable } from './console-schema.js'
import type {
  ExternalAttestationsTable,
  IssuerKeysTable,
  IssuersTable,
  IssuerStatusListsTable,
} from './issuers-schema.js'
import type { IdentitiesTable, IdentityDidsTable } from './identities-schema.js'
import type { HoldingReceiptsTable, TransferWindowVolumesTable } from './supply-schema.js'

/**
 * The tables, as kysely sees them. Timestamps are ISO 8601 strings in UTC and dates `YYYY-MM-DD`,
 * which sort correctly as text on every dialect; booleans are 0/1 integers.
 */
export interface Database {
  organizations: OrganizationsTable
  api_keys: ApiKeysTable
  subscriptions: SubscriptionsTable
  usage_daily: UsageDailyTable
  processed_events: ProcessedEventsTable
  rwa_service_keys: RwaServiceKeysTable
  key_custody: KeyCustodyTable
  jurisdictions: JurisdictionsTable
  removed_jurisdictions: RemovedJurisdictionsTable
  trust_relations: TrustRelationsTable
  credentials: CredentialsTable
  rwa_dids: RwaDidsTable
  attestations: AttestationsTable
  tokens: TokensTable
  holdings: HoldingsTable
  token_events: TokenEventsTable
  transfers: TransfersTable
  proofs: ProofsTable
  holder_freezes: HolderFreezesTable
  status_lists: StatusListsTable
  status_list_revocations: StatusListRevocationsTable
  status_list_suspensions: StatusListSuspensionsTable
  transfer_counts: TransferCountsTable
  token_event_counts: TokenEventCountsTable
  transfer_daily_volumes: TransferDailyVolumesTable
  audit_events: AuditEventsTable
  audit_logs: AuditLogsTable
  audit_log_nodes: AuditLogNodesTable
  audit_log_tiles: AuditLogTilesTable
  idempotency_keys: IdempotencyKeysTable
  events: EventsTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
  scheduled_event_marks: ScheduledEventMarksTable
  job_leases: JobLeasesTable
  approval_policies: ApprovalPoliciesTable
  approvals: ApprovalsTable
  console_sessions: ConsoleSessionsTable
  issuers: IssuersTable
  issuer_keys: IssuerKeysTable
  external_attestations: ExternalAttestationsTable
  issuer_status_lists: IssuerStatusListsTable
  identities: IdentitiesTable
  identity_dids: IdentityDidsTable
  transfer_window_volumes: TransferWindowVolumesTable
  holding_receipts: HoldingReceiptsTable
}

export interface OrganizationsTable {
  org_id: string
  created_at: string
  /** Set once, by the organization's first key created with `start_trial`. */
  trial_ends_at: string | null
  /** When the payment provider was asked, after the trial ended, whether a subscription is active. */
  trial_checked_at: string | null
}

export interface ApiKeysTable {
  key_id: string
  org_id: string
  /** SHA-256 of the raw key, hex. The raw key itself is never stored. */
  key_hash: string
  key_prefix: string
  name: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
  /** The key's roles, a JSON array (0011); every key made before roles existed is `["owner"]`. */
  roles: Generated<string>
  /** When the key stops working; null: never. */
  expires_at: string | null
  /** Set by a reroll: the end of the overlap, after which the key reads revoked (reason `rerolled`). */
  retires_at: string | null
  /** Set by a reroll: the key that replaces this one. */
  replaced_by: string | null
  /**
   * The first key of its reroll chain, on every key rerolled from it (0021); null on a key that was
   * not rerolled from another: it is its own principal (`principalOf`).
   */
  principal_id: string | null
}

export interface SubscriptionsTable {
  org_id: string
  tier: string
  status: string
  /** Which payment provider recorded it: `local`, `stripe`, or `operator` for the admin organization. */
  provider: string
  payment_subscription_id: string | null
  payment_customer_id: string | null
  payment_price_id: string | null
  current_period_start: string | null
  current_period_end: string | null
  cancel_at_period_end: number
  /** Provider-side time of the state applied last, so older webhook events cannot roll it back. */
  provider_updated_at: string | null
  updated_at: string
}

export interface UsageDailyTable {
  org_id: string
  date: string
  request_count: Generated<number>
  dids_created: Generated<number>
  skills_registered: Generated<number>
}

/** Payment-provider events already applied, by event id, so a redelivery is acknowledged and skipped. */
export interface ProcessedEventsTable {
  event_id: string
  provider: string
  type: string
  processed_at: string
}

// The governance tables (migration 0002 and after) are in governance-schema.ts.
export type * from './governance-schema.js'
