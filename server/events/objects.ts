import { keyRecordOf } from '../billing/keys/service.js'
import { organizationOf, subscriptionOf } from '../billing/subscriptions/service.js'
import { findKeyRow } from '../billing/keys/queries.js'
import type { AppContext } from '../context.js'
import type { Executor } from '../db/queries.js'
import { entitlementOf } from '../limits/entitlement.js'
import { findAttestation } from '../rwa/attestations/queries.js'
import { attestationFromRow } from '../rwa/attestations/from-row.js'
import { findCredential } from '../rwa/credentials/queries.js'
import { credentialFromRow } from '../rwa/credentials/from-row.js'
import { findJurisdiction } from '../rwa/jurisdictions/queries.js'
import { jurisdictionFromRow } from '../rwa/jurisdictions/from-row.js'
import { tokenDetail } from '../rwa/tokens/service.js'
import { withLogIndex } from '../rwa/transfers/service.js'
import { findProof, findTransfer } from '../rwa/transfers/queries.js'
import { proofFromRow, transferFromRow } from '../rwa/transfers/from-row.js'
import { findTrustRelation } from '../rwa/trust/queries.js'
import { trustFromRow } from '../rwa/trust/from-row.js'

/*
 * An event's `data.object` is the record as the API answers it (docs/webhooks.md): what `GET` on it answers
 * at the moment of the change, read in the write's own transaction once the services are done with it.
 * So no service shapes an event of its own, as none writes an audit event of its own: a change names
 * its record (`target`), and this reads it back. Never a raw key or secret: a key reads as its masked
 * record, as `GET /console/billing/keys` lists it.
 */

type Loader = (ctx: AppContext, db: Executor, orgId: string, id: string) => Promise<unknown>

const LOADERS: Record<string, Loader> = {
  jurisdiction: async (_ctx, db, orgId, id) => {
    const row = await findJurisdiction(db, orgId, id)
    // Removed: the record is gone, and the removal's answer is what the API said about it.
    return row ? jurisdictionFromRow(row) : { status: 'removed', jurisdiction_id: id }
  },
  trust: async (_ctx, db, orgId, id) => {
    const row = await findTrustRelation(db, orgId, id)
    return row && trustFromRow(row)
  },
  credential: async (_ctx, db, orgId, id) => {
    const row = await findCredential(db, orgId, id)
    return row && credentialFromRow(row)
  },
  attestation: async (_ctx, db, orgId, id) => {
    const row = await findAttestation(db, orgId, id)
    return row && attestationFromRow(row)
  },
  token: (_ctx, db, orgId, id) => tokenDetail(db, orgId, id),
  transfer: async (ctx, db, orgId, id) => {
    const row = await findTransfer(db, orgId, id)
    if (!row) return undefined
    const proof = await findProof(db, orgId, row.proof_id)
    // The proof's log_index is its transfer's audit event's, appended just before in the same write;
    // the transfer names it too, as GET does.
    const withIndex = proof ? await withLogIndex(ctx, orgId, proofFromRow(proof, row)) : undefined
    return {
      ...transferFromRow(row),
      ...(withIndex?.log_index === undefined ? {} : { log_index: withIndex.log_index }),
      ...(withIndex ? { proof: withIndex } : {}),
    }
  },
  key: async (ctx, db, _orgId, id) => {
    const row = await findKeyRow(db, id)
    if (!row) return undefined
    const org = await organizationOf(ctx, row.org_id)
    const now = ctx.clock.now()
    return keyRecordOf(row, org, entitlementOf(org, now).tier, now)
  },
  subscription: (ctx, _db, orgId) => subscriptionOf(ctx, orgId),
}

/**
 * The API record a change's target reads as now; `fallback` (the change's own `after`) for a kind of
 * record with no reader or a record gone.
 */
export async function apiObjectOf(
  ctx: AppContext,
  db: Executor,
  orgId: string,
  target: { type: string; id: string },
  fallback: unknown,
): Promise<unknown> {
  const load = LOADERS[target.type]
  const object = load ? await load(ctx, db, orgId, target.id) : undefined
  return object ?? fallback ?? { id: target.id }
}
