import type { TrustBundle } from '../../../../src/contract/rwa.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import { logKeyOf } from '../../audit-log/service.js'
import { issuerKeyFromRow } from '../issuers/from-row.js'
import { allIssuersWithKeys } from '../issuers/queries.js'
import { listIssuers, listRemovedIssuers } from '../jurisdictions/queries.js'

/**
 * The organization's trust anchors (docs/verification.md, "The trust bundle"): the proof keys
 * (retired ones included, with their validity) and each jurisdiction's issuer DID. An auditor saves it once (`rwa trust-bundle >
 * trust.json`) and verifies credentials, attestations and proofs offline against it: a signature by a
 * key outside it does not hold. A jurisdiction keeps its did:key for life: an issuer is valid from the
 * id's first registration, with no end while it is registered, and until its removal once removed
 * (listed still, with `removed_at`: what named it before keeps verifying). The trusted issuers (outside
 * providers: docs/issuers.md, "In the trust bundle") are listed with every key their DID ever had,
 * removed ones included, so the attestations they signed verify offline too.
 */
export async function trustBundle(ctx: AppContext, principal: Principal): Promise<TrustBundle> {
  const proof_keys = await ctx.signingKeys.proofKeys()
  const live = await listIssuers(ctx.db, principal.orgId)
  const removed = await listRemovedIssuers(ctx.db, principal.orgId)
  const issuers: TrustBundle['issuers'] = [
    ...live.map((j) => ({
      jurisdiction_id: j.jurisdiction_id,
      issuer_did: j.issuer_did,
      valid_from: j.issuer_since ?? j.created_at,
      valid_until: null,
    })),
    ...removed.map((j) => ({
      jurisdiction_id: j.jurisdiction_id,
      issuer_did: j.issuer_did,
      valid_from: j.valid_from,
      valid_until: j.removed_at,
      removed_at: j.removed_at,
    })),
  ]
  return {
    org_id: principal.orgId,
    generated_at: isoTimestamp(ctx.clock.now()),
    proof_keys,
    issuers: issuers.sort((a, b) => (a.jurisdiction_id < b.jurisdiction_id ? -1 : 1)),
    log_key: await logKeyOf(ctx, principal.orgId),
    external_issuers: (await allIssuersWithKeys(ctx.db, principal.orgId)).map(({ row, keys }) => ({
      issuer_id: row.issuer_id,
      did: row.did,
      keys: keys.map(issuerKeyFromRow),
      requirements: JSON.parse(row.requirements) as Record<string, string[]>,
      jurisdictions: JSON.parse(row.jurisdictions) as string[],
      status: row.status as 'active' | 'suspended' | 'removed',
      valid_until: row.valid_until,
    })),
  }
}
