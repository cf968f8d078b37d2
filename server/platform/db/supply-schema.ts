/*
 * The running counts of the supply rules (migration 0027, docs/governance.md, "Transfer rules"). Part
 * of schema.ts's `Database`.
 */

/** A sender's approved units of a token in one bucket of one `transfer_windows` window length. */
export interface TransferWindowVolumesTable {
  token_id: string
  /** `identity:<identity_id>` when the sender's DID has an identity, else `did:<did>`. */
  holder_key: string
  window_seconds: number
  /** Epoch seconds, a multiple of the bucket's length (window_seconds / 60, at least 1). */
  bucket_start: number
  volume: number
}

/** Units a holding received (mint or transfer) in one bucket of time, not yet sent on or unlocked. */
export interface HoldingReceiptsTable {
  token_id: string
  holder_did: string
  jurisdiction: string
  /** The end of the receipt's bucket, epoch seconds: its lock-up ends N days after it. */
  received_by: number
  amount: number
}
