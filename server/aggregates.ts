import { keyRecords } from './billing/keys/records.js'
import { subscriptionRecords } from './billing/subscriptions/records.js'
import type { AggregateRecords } from './context.js'
import { attestationRecords } from './rwa/attestations/records.js'
import { credentialRecords } from './rwa/credentials/records.js'
import { issuerRecords } from './rwa/issuers/records.js'
import { jurisdictionRecords } from './rwa/jurisdictions/records.js'
import { tokenRecords } from './rwa/tokens/records.js'
import { transferRecords } from './rwa/transfers/records.js'
import { trustRecords } from './rwa/trust/records.js'

/**
 * Every aggregate's records, as the write pipeline knows them (docs/architecture.md, "One seam for every
 * write"): the context is built with these, and a new aggregate whose changes are events adds its own.
 */
export const AGGREGATES: readonly AggregateRecords[] = [
  jurisdictionRecords,
  trustRecords,
  credentialRecords,
  attestationRecords,
  issuerRecords,
  tokenRecords,
  transferRecords,
  keyRecords,
  subscriptionRecords,
]
