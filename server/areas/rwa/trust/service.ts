import type {
  EstablishTrustRequest,
  ListTrustQuery,
  ListTrustResponse,
  RevokeTrustResponse,
  TrustPair,
  TrustRelation,
} from '../../../../src/contract/rwa.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import type { Executor } from '../../../platform/db/queries.js'
import { ApiError, constraintViolationOf } from '../../../platform/errors.js'
import { jurisdictionOr404 } from '../jurisdictions/queries.js'
import { listPage } from '../owned.js'
import { trustFromRow } from './from-row.js'
import {
  findActiveTrustBetween,
  insertTrust,
  listTrust as listTrustRows,
  markTrustRevoked,
} from './queries.js'

/** Establishes trust from one jurisdiction to another (both ways when mutual); one relation per pair. */
export async function establishTrust(
  ctx: AppContext,
  principal: Principal,
  input: EstablishTrustRequest,
): Promise<TrustRelation> {
  const orgId = principal.orgId
  const row = {
    trust_id: ctx.ids.next('trust'),
    org_id: orgId,
    from_jurisdiction: input.from_jurisdiction,
    to_jurisdiction: input.to_jurisdiction,
    mutual: input.mutual ? 1 : 0,
    status: 'active',
    created_at: isoTimestamp(ctx.clock.now()),
    revoked_at: null,
  }
  const refuseExisting = async (db: Executor) => {
    const existing = await findActiveTrustBetween(db, orgId, input.from_jurisdiction, input.to_jurisdiction)
    if (!existing) return
    const shape = existing.mutual
      ? 'mutual'
      : `one-way from ${existing.from_jurisdiction} to ${existing.to_jurisdiction}`
    throw new ApiError(
      'trust_exists',
      `Trust between ${input.from_jurisdiction} and ${input.to_jurisdiction} already exists (${existing.trust_id}, ${shape}); revoke it first to change it`,
      {
        context: {
          trust_id: existing.trust_id,
          from_jurisdiction: existing.from_jurisdiction,
          to_jurisdiction: existing.to_jurisdiction,
          mutual: existing.mutual === 1,
        },
      },
    )
  }
  await ctx.db
    .transaction()
    .execute(async (trx) => {
      await jurisdictionOr404(trx, orgId, input.from_jurisdiction, 'key share')
      await jurisdictionOr404(trx, orgId, input.to_jurisdiction, 'key share')
      await refuseExisting(trx)
      await insertTrust(trx, row)
      ctx.record({
        orgId,
        action: 'trust.established',
        target: { type: 'trust', id: row.trust_id },
        after: {
          from_jurisdiction: row.from_jurisdiction,
          to_jurisdiction: row.to_jurisdiction,
          mutual: row.mutual === 1,
        },
      })
    })
    .catch(async (error) => {
      // Established at the same moment through another instance: the partial unique index refused it.
      if (constraintViolationOf(error) !== 'unique') throw error
      await refuseExisting(ctx.db)
      throw new ApiError(
        'trust_exists',
        `Trust between ${input.from_jurisdiction} and ${input.to_jurisdiction} already exists`,
        { context: { from_jurisdiction: input.from_jurisdiction, to_jurisdiction: input.to_jurisdiction } },
      )
    })
  return trustFromRow(row)
}

/** Revokes the active relation carrying trust from `from` to `to` (a mutual one in either order). */
export async function revokeTrust(
  ctx: AppContext,
  principal: Principal,
  pair: TrustPair,
): Promise<RevokeTrustResponse> {
  const revoked_at = isoTimestamp(ctx.clock.now())
  return ctx.db.transaction().execute(async (trx) => {
    const row = await findActiveTrustBetween(
      trx,
      principal.orgId,
      pair.from_jurisdiction,
      pair.to_jurisdiction,
    )
    const matches = row && (row.mutual === 1 || row.from_jurisdiction === pair.from_jurisdiction)
    if (!row || !matches) {
      const other = row
        ? ` (there is one from ${row.from_jurisdiction} to ${row.to_jurisdiction}: ${row.trust_id})`
        : ''
      throw new ApiError(
        'trust_not_found',
        `No active trust from ${pair.from_jurisdiction} to ${pair.to_jurisdiction}${other}`,
        { context: { ...pair, ...(row ? { other_trust_id: row.trust_id } : {}) } },
      )
    }
    if (!(await markTrustRevoked(trx, row.trust_id, revoked_at))) {
      throw new ApiError(
        'trust_not_found',
        `No active trust from ${pair.from_jurisdiction} to ${pair.to_jurisdiction}: ${row.trust_id} was revoked just now`,
        { context: { ...pair, trust_id: row.trust_id } },
      )
    }
    ctx.record({
      orgId: principal.orgId,
      action: 'trust.revoked',
      target: { type: 'trust', id: row.trust_id },
    })
    return {
      status: 'revoked' as const,
      trust_id: row.trust_id,
      from_jurisdiction: row.from_jurisdiction,
      to_jurisdiction: row.to_jurisdiction,
      mutual: row.mutual === 1,
      revoked_at,
    }
  })
}

export async function listTrust(
  ctx: AppContext,
  principal: Principal,
  query: ListTrustQuery,
): Promise<ListTrustResponse> {
  return listPage('trust_relations', await listTrustRows(ctx.db, principal.orgId, query), trustFromRow)
}
