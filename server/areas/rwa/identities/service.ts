import type {
  ChangeIdentityDidsRequest,
  CreateIdentityRequest,
  Identity,
  ListIdentitiesQuery,
  ListIdentitiesResponse,
  UpdateIdentityRequest,
} from '../../../../src/contract/identities.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import type { AppContext } from '../../../pipeline/context.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { Executor } from '../../../platform/db/queries.js'
import { ApiError, constraintViolationOf, invalidFields } from '../../../platform/errors.js'
import { identityFromRow } from './from-row.js'
import { didInUse } from './refusals.js'
import { didsChange, firstClaimedElsewhere } from './membership.js'
import {
  deleteIdentityDids,
  didsOfIdentities,
  didsOfIdentity,
  findIdentity,
  identitiesOfDids,
  identityOr404,
  insertIdentity,
  insertIdentityDids,
  listIdentities as listIdentityRows,
  updateIdentity as updateIdentityRow,
} from './queries.js'

/*
 * Investors' identities (docs/identities.md): create, read, change the country or category, add and
 * remove DIDs. A DID belongs to at most one identity of an organization: the primary key of
 * `identity_dids` decides between two writes claiming it at once.
 */

const identityExists = (id: string) =>
  new ApiError('identity_exists', `Identity ${id} exists already`, { context: { identity_id: id } })

/** Raised inside a transaction when the primary key refused a DID: mapped to 409 once rolled back. */
class DidClaimed extends Error {}

/** Adds DIDs; a unique violation (another write claimed one meanwhile) becomes `DidClaimed`. */
async function claimDids(trx: Executor, orgId: string, identityId: string, dids: string[], now: string) {
  await insertIdentityDids(trx, orgId, identityId, dids, now).catch((error) => {
    throw constraintViolationOf(error) === 'unique' ? new DidClaimed() : error
  })
}

/** Refuses (409) a DID of `dids` that is in an identity other than `identityId`. */
async function refuseDidsElsewhere(trx: Executor, orgId: string, identityId: string, dids: string[]) {
  const taken = firstClaimedElsewhere(await identitiesOfDids(trx, orgId, dids), dids, identityId)
  if (taken) throw didInUse(taken.did, taken.identity_id)
}

/**
 * After a write lost a race for a DID (rolled back): the 409 naming the DID now taken, as read once
 * the winner committed.
 */
async function lostRace(
  ctx: AppContext,
  orgId: string,
  identityId: string,
  dids: string[],
): Promise<ApiError> {
  const taken = firstClaimedElsewhere(await identitiesOfDids(ctx.db, orgId, dids), dids, identityId)
  return taken ? didInUse(taken.did, taken.identity_id) : didInUse(dids[0] ?? '', null)
}

export async function createIdentity(
  ctx: AppContext,
  principal: Principal,
  input: CreateIdentityRequest,
): Promise<Identity> {
  const orgId = principal.orgId
  const now = isoTimestamp(ctx.clock.now())
  const seq = ctx.ids.next('idn')
  const identityId = input.identity_id ?? seq
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      if (await findIdentity(trx, orgId, identityId)) throw identityExists(identityId)
      await refuseDidsElsewhere(trx, orgId, identityId, input.dids)
      const row = {
        org_id: orgId,
        identity_id: identityId,
        seq,
        country: input.country,
        category: input.category ?? null,
        created_at: now,
        updated_at: now,
      }
      await insertIdentity(trx, row).catch((error) => {
        // The same id created at the same moment by another request.
        throw constraintViolationOf(error) === 'unique' ? identityExists(identityId) : error
      })
      await claimDids(trx, orgId, identityId, input.dids, now)
      const identity = identityFromRow(row, input.dids)
      ctx.record({
        orgId,
        action: 'identity.created',
        target: { type: 'identity', id: identityId },
        after: { dids: identity.dids, country: identity.country, category: identity.category },
        answer: () => identity,
      })
      return identity
    })
  } catch (error) {
    if (error instanceof DidClaimed) throw await lostRace(ctx, orgId, identityId, input.dids)
    throw error
  }
}

export async function getIdentity(ctx: AppContext, principal: Principal, id: string): Promise<Identity> {
  const row = await identityOr404(ctx.db, principal.orgId, id)
  return identityFromRow(row, await didsOfIdentity(ctx.db, principal.orgId, id))
}

export async function listIdentities(
  ctx: AppContext,
  principal: Principal,
  query: ListIdentitiesQuery,
): Promise<ListIdentitiesResponse> {
  const page = await listIdentityRows(ctx.db, principal.orgId, query)
  const dids = await didsOfIdentities(
    ctx.db,
    principal.orgId,
    page.rows.map((r) => r.identity_id),
  )
  return {
    identities: page.rows.map((row) => identityFromRow(row, dids.get(row.identity_id) ?? [])),
    total: page.total,
    next_cursor: page.next_cursor,
  }
}

/** Replaces the country or category given. */
export async function updateIdentity(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: UpdateIdentityRequest,
): Promise<Identity> {
  const orgId = principal.orgId
  const updated_at = isoTimestamp(ctx.clock.now())
  return ctx.db.transaction().execute(async (trx) => {
    const row = await identityOr404(trx, orgId, id, 'update')
    const changes = {
      ...(input.country !== undefined ? { country: input.country } : {}),
      ...(input.category !== undefined ? { category: input.category } : {}),
      updated_at,
    }
    await updateIdentityRow(trx, orgId, id, changes)
    const dids = await didsOfIdentity(trx, orgId, id)
    const before = identityFromRow(row, dids)
    const after = identityFromRow({ ...row, ...changes }, dids)
    ctx.record({
      orgId,
      action: 'identity.updated',
      target: { type: 'identity', id },
      before: { country: before.country, category: before.category },
      after: { country: after.country, category: after.category },
      answer: () => after,
    })
    return after
  })
}

/**
 * Adds and removes DIDs. A DID to add that is the identity's already stays; one of another identity is
 * 409 `did_in_use`; one to remove that is not the identity's is 400 naming `remove`; the identity keeps
 * at least one DID.
 */
export async function changeIdentityDids(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: ChangeIdentityDidsRequest,
): Promise<Identity> {
  const orgId = principal.orgId
  const now = isoTimestamp(ctx.clock.now())
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      // Locked: two changes of one identity's DIDs run one after the other (it keeps one DID).
      const row = await identityOr404(trx, orgId, id, 'update')
      const current = await didsOfIdentity(trx, orgId, id)
      const change = didsChange(current, input)
      if (change.problem) throw invalidFields('body', [change.problem])
      await refuseDidsElsewhere(trx, orgId, id, change.added)
      await deleteIdentityDids(trx, orgId, id, change.removed)
      await claimDids(trx, orgId, id, change.added, now)
      await updateIdentityRow(trx, orgId, id, { updated_at: now })
      const identity = identityFromRow({ ...row, updated_at: now }, change.dids)
      ctx.record({
        orgId,
        action: 'identity.dids_changed',
        target: { type: 'identity', id },
        before: { dids: current },
        after: { dids: change.dids, added: change.added, removed: change.removed },
        answer: () => identity,
      })
      return identity
    })
  } catch (error) {
    if (error instanceof DidClaimed) throw await lostRace(ctx, orgId, id, input.add)
    throw error
  }
}
