import { keyRecords } from './areas/billing/keys/records.js'
import { subscriptionRecords } from './areas/billing/subscriptions/records.js'
import type { AggregateRecords } from './pipeline/context.js'
import { attestationRecords } from './areas/rwa/attestations/records.js'
import { credentialRecords } from './areas/rwa/credentials/records.js'
import { identityRecords } from './areas/rwa/identities/records.js'
import { issuerRecords } from './areas/rwa/issuers/records.js'
import { jurisdictionRecords } from './areas/rwa/jurisdictions/records.js'
import { tokenRecords } from './areas/rwa/tokens/records.js'
import { transferRecords } from './areas/rwa/transfers/records.js'
import { trustRecords } from './areas/rwa/trust/records.js'

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
  identityRecords,
  tokenRecords,
  transferRecords,
  keyRecords,
  subscriptionRecords,
]
