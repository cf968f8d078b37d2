/*
 * The counters kept beside the rows (migration 0007), each updated in the same transaction as the row
 * it counts, so that a request reads a count instead of counting
 * (docs/performance.md, "Cost as the data grows"). Part of schema.ts's `Database`.
 */

/** Transfers of an organization per token, status and route: a list's exact total sums a few of these. */
export interface TransferCountsTable {
  org_id: string
  token_id: string
  status: string
  from_jurisdiction: string
  to_jurisdiction: string
  n: number
}

/** Events in a token's governance history. */
export interface TokenEventCountsTable {
  token_id: string
  n: number
}

/** A sender's approved units of a token on a UTC day (`YYYY-MM-DD`): rule daily_volume_per_holder. */
export interface TransferDailyVolumesTable {
  token_id: string
  sender_did: string
  day: string
  volume: number
}
