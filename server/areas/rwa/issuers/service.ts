import type {
  Issuer,
  ListIssuersQuery,
  ListIssuersResponse,
  RegisterIssuerRequest,
  UpdateIssuerRequest,
} from '../../../../src/contract/issuers.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import { isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import type { Executor } from '../../../platform/db/queries.js'
import { ApiError, constraintViolationOf } from '../../../platform/errors.js'
import { findJurisdictions, requirementNamesOf } from '../jurisdictions/queries.js'
import { notFound } from '../../../platform/errors.js'
import { issuerFromRow } from './from-row.js'
import { changesNothing, type KeyChanges, reconcileKeys } from './keys.js'
import {
  findIssuer,
  insertIssuer,
  insertKeys,
  issuerOr404,
  keysOf,
  keysOfIssuers,
  listIssuers as listIssuerRows,
  setKeysRetired,
  updateIssuer as updateIssuerRow,
} from './queries.js'
import { type ResolvedKey, resolveIssuerDid, Unresolvable } from './resolve.js'

/*
 * The trusted issuers registry (docs/issuers.md): register, read, change, suspend, remove, and resolve
 * again. An issuer's DID is resolved when it is registered and refreshed; its keys are kept for life.
 */

/** Resolves a DID now, or the 422 saying why it cannot be. */
async function resolveOr422(ctx: AppContext, did: string): Promise<ResolvedKey[]> {
  try {
    return await resolveIssuerDid(did, { allowHttp: ctx.allowHttpIssuers })
  } catch (error) {
    if (!(error instanceof Unresolvable)) throw error
    throw unresolvable(did, error.message)
  }
}

const unresolvable = (did: string, reason: string) =>
  new ApiError('issuer_unresolvable', `Issuer DID ${did} cannot be resolved: ${reason}`, {
    context: { did, reason },
  })

/** Requirements a jurisdiction of the organization lists, and jurisdictions it has: or the refusal. */
async function checkScope(
  db: Executor,
  orgId: string,
  requirements: Record<string, string[]> | undefined,
  jurisdictions: string[] | undefined,
): Promise<void> {
  if (jurisdictions) {
    const found = new Set(
      (await findJurisdictions(db, orgId, jurisdictions, 'key share')).map((j) => j.jurisdiction_id),
    )
    const missing = jurisdictions.find((j) => !found.has(j))
    if (missing !== undefined) throw notFound('jurisdiction', missing)
  }
  if (requirements) {
    const known = await requirementNamesOf(db, orgId)
    const unknown = Object.keys(requirements).filter((r) => !known.has(r))
    if (unknown.length > 0) {
      throw new ApiError(
        'unknown_requirement',
        `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a requirement any jurisdiction lists: list ${unknown.length === 1 ? 'it' : 'them'} in a jurisdiction's transfer_requirements first${known.size > 0 ? ` (listed: ${[...known].sort().join(', ')})` : ''}`,
        {
          context: { unknown, known: [...known].sort() },
          errors: unknown.map((r) => ({
            path: `requirements.${r}`,
            message: 'not a requirement any jurisdiction lists',
          })),
        },
      )
    }
  }
}

function checkValidUntil(ctx: AppContext, validUntil: string | null | undefined): void {
  if (validUntil && Date.parse(validUntil) <= ctx.clock.now()) {
    throw new ApiError('valid_until_not_future', `valid_until ${validUntil} is not in the future`, {
      context: { valid_until: validUntil },
      errors: [{ path: 'valid_until', message: 'must be in the future' }],
    })
  }
}

async function readIssuer(db: Executor, orgId: string, id: string): Promise<Issuer> {
  const row = await issuerOr404(db, orgId, id)
  return issuerFromRow(row, await keysOf(db, orgId, id))
}

export async function registerIssuer(
  ctx: AppContext,
  principal: Principal,
  input: RegisterIssuerRequest,
): Promise<Issuer> {
  const orgId = principal.orgId
  const now = isoTimestamp(ctx.clock.now())
  const duplicate = () =>
    new ApiError('issuer_exists', `Issuer ${input.issuer_id} is registered already`, {
      context: { issuer_id: input.issuer_id },
    })
  checkValidUntil(ctx, input.valid_until)
  return ctx.db
    .transaction()
    .execute(async (trx) => {
      const existing = await findIssuer(trx, orgId, input.issuer_id)
      if (existing) throw duplicate()
      await checkScope(trx, orgId, input.requirements, input.jurisdictions)
      const keys = await resolveOr422(ctx, input.did)
      const row = {
        org_id: orgId,
        issuer_id: input.issuer_id,
        seq: ctx.ids.next('iss'),
        name: input.name,
        did: input.did,
        requirements: JSON.stringify(input.requirements),
        jurisdictions: JSON.stringify(input.jurisdictions),
        status: 'active',
        valid_until: input.valid_until ?? null,
        created_at: now,
        updated_at: now,
        resolved_at: now,
      }
      await insertIssuer(trx, row)
      const keyRows = keys.map((k) => ({
        org_id: orgId,
        issuer_id: input.issuer_id,
        kid: k.kid,
        jwk: JSON.stringify(k.jwk),
        first_seen_at: now,
        retired_at: null,
      }))
      await insertKeys(trx, keyRows)
      const issuer = issuerFromRow(row, keyRows)
      ctx.record({
        orgId,
        action: 'issuer.registered',
        target: { type: 'issuer', id: input.issuer_id },
        after: { did: input.did, requirements: input.requirements, jurisdictions: input.jurisdictions },
        answer: () => issuer,
      })
      return issuer
    })
    .catch((error) => {
      throw constraintViolationOf(error) === 'unique' ? duplicate() : error
    })
}

export async function getIssuer(ctx: AppContext, principal: Principal, id: string): Promise<Issuer> {
  return readIssuer(ctx.db, principal.orgId, id)
}

export async function listIssuers(
  ctx: AppContext,
  principal: Principal,
  query: ListIssuersQuery,
): Promise<ListIssuersResponse> {
  const page = await listIssuerRows(ctx.db, principal.orgId, query)
  const keys = await keysOfIssuers(
    ctx.db,
    principal.orgId,
    page.rows.map((r) => r.issuer_id),
  )
  return {
    issuers: page.rows.map((row) => issuerFromRow(row, keys.get(row.issuer_id) ?? [])),
    total: page.total,
    next_cursor: page.next_cursor,
  }
}

const removedRefusal = (id: string) =>
  new ApiError('issuer_removed', `Issuer ${id} was removed; register it under another id to trust it again`, {
    context: { issuer_id: id },
  })

/** What an update may change, as the audit log shows it before and after. */
const mutable = (i: Issuer) => ({
  name: i.name,
  requirements: i.requirements,
  jurisdictions: i.jurisdictions,
  valid_until: i.valid_until,
  status: i.status,
})

/**
 * Changes the fields given. Setting `status: suspended` suspends it (`issuer.suspended`): its credentials
 * are refused and its attestations meet nothing until it is `active` again.
 */
export async function updateIssuer(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: UpdateIssuerRequest,
): Promise<Issuer> {
  const orgId = principal.orgId
  checkValidUntil(ctx, input.valid_until)
  return ctx.db.transaction().execute(async (trx) => {
    const row = await issuerOr404(trx, orgId, id, 'update')
    if (row.status === 'removed') throw removedRefusal(id)
    await checkScope(trx, orgId, input.requirements, input.jurisdictions)
    const changes = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.requirements !== undefined ? { requirements: JSON.stringify(input.requirements) } : {}),
      ...(input.jurisdictions !== undefined ? { jurisdictions: JSON.stringify(input.jurisdictions) } : {}),
      ...(input.valid_until !== undefined ? { valid_until: input.valid_until } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      updated_at: isoTimestamp(ctx.clock.now()),
    }
    await updateIssuerRow(trx, orgId, id, changes)
    const keys = await keysOf(trx, orgId, id)
    const before = issuerFromRow(row, keys)
    const after = issuerFromRow({ ...row, ...changes }, keys)
    const suspending = input.status === 'suspended' && row.status !== 'suspended'
    ctx.record({
      orgId,
      action: suspending ? 'issuer.suspended' : 'issuer.updated',
      target: { type: 'issuer', id },
      before: mutable(before),
      after: mutable(after),
    })
    return after
  })
}

/** Removes an issuer: the record and its keys stay (status `removed`), its credentials are refused. */
export async function removeIssuer(ctx: AppContext, principal: Principal, id: string): Promise<Issuer> {
  const orgId = principal.orgId
  return ctx.db.transaction().execute(async (trx) => {
    const row = await issuerOr404(trx, orgId, id, 'update')
    if (row.status === 'removed') throw removedRefusal(id)
    const changes = { status: 'removed', updated_at: isoTimestamp(ctx.clock.now()) }
    await updateIssuerRow(trx, orgId, id, changes)
    ctx.record({
      orgId,
      action: 'issuer.removed',
      target: { type: 'issuer', id },
      before: { status: row.status },
      after: { status: 'removed' },
    })
    return issuerFromRow({ ...row, ...changes }, await keysOf(trx, orgId, id))
  })
}

/** Applies a resolution's key changes to an issuer's stored keys. */
async function applyKeyChanges(
  db: Executor,
  orgId: string,
  issuerId: string,
  changes: KeyChanges,
  now: string,
): Promise<void> {
  await insertKeys(
    db,
    changes.added.map((k) => ({
      org_id: orgId,
      issuer_id: issuerId,
      kid: k.kid,
      jwk: JSON.stringify(k.jwk),
      first_seen_at: now,
      retired_at: null,
    })),
  )
  await setKeysRetired(db, orgId, issuerId, changes.retired, now)
  await setKeysRetired(db, orgId, issuerId, changes.restored, null)
}

/**
 * Applies a resolution of the issuer's DID to its stored keys: keys new to it are added, keys gone from
 * it retired, keys back in it no longer retired (`issuer.keys_changed` when any of that happened); a key
 * id that now names another key is refused (422 `issuer_unresolvable`), the keys left as they were.
 */
export async function applyResolution(
  ctx: AppContext,
  trx: Executor,
  row: { org_id: string; issuer_id: string; did: string },
  resolved: ResolvedKey[],
): Promise<void> {
  const { org_id: orgId, issuer_id: id } = row
  const known = (await keysOf(trx, orgId, id)).map((k) => ({ ...k, jwk: JSON.parse(k.jwk) }))
  let changes: KeyChanges
  try {
    changes = reconcileKeys(known, resolved)
  } catch (error) {
    if (error instanceof Unresolvable) throw unresolvable(row.did, error.message)
    throw error
  }
  const now = isoTimestamp(ctx.clock.now())
  await applyKeyChanges(trx, orgId, id, changes, now)
  await updateIssuerRow(trx, orgId, id, { resolved_at: now })
  if (!changesNothing(changes)) {
    ctx.record({
      orgId,
      action: 'issuer.keys_changed',
      target: { type: 'issuer', id },
      after: {
        added: changes.added.map((k) => k.kid),
        retired: changes.retired,
        restored: changes.restored,
      },
    })
  }
}

/** Resolves the issuer's DID again now and applies it (`applyResolution`). */
export async function refreshIssuer(ctx: AppContext, principal: Principal, id: string): Promise<Issuer> {
  const orgId = principal.orgId
  return ctx.db.transaction().execute(async (trx) => {
    const row = await issuerOr404(trx, orgId, id, 'update')
    if (row.status === 'removed') throw removedRefusal(id)
    await applyResolution(ctx, trx, row, await resolveOr422(ctx, row.did))
    return readIssuer(trx, orgId, id)
  })
}
