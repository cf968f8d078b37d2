import type { TrustBundle } from '../../../src/contract/rwa.js'
import type { Principal } from '../../auth/principal.js'
import { isoTimestamp } from '../../clock.js'
import type { AppContext } from '../../context.js'
import { logKeyOf } from '../../audit-log/service.js'
import { listIssuers } from '../jurisdictions/queries.js'

/**
 * The organization's trust anchors (docs/verification.md, "The trust bundle"): the proof keys (retired ones
 * included, with their validity) and each jurisdiction's issuer DID. An auditor saves it once (`rwa
 * trust-bundle > trust.json`) and verifies credentials, attestations and proofs offline against it: a
 * signature by a key outside it does not hold. A jurisdiction keeps its did:key for life, so an issuer is
 * valid from the jurisdiction's registration, with no end.
 */
export async function trustBundle(ctx: AppContext, principal: Principal): Promise<TrustBundle> {
  const proof_keys = await ctx.signingKeys.proofKeys()
  const issuers = await listIssuers(ctx.db, principal.orgId)
  return {
    org_id: principal.orgId,
    generated_at: isoTimestamp(ctx.clock.now()),
    proof_keys,
    issuers: issuers.map((j) => ({
      jurisdiction_id: j.jurisdiction_id,
      issuer_did: j.issuer_did,
      valid_from: j.created_at,
      valid_until: null,
    })),
    log_key: await logKeyOf(ctx, principal.orgId),
  }
}
