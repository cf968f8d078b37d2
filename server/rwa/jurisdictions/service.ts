import type {
  Jurisdiction,
  ListJurisdictionsQuery,
  ListJurisdictionsResponse,
  RegisterJurisdictionRequest,
  RemoveJurisdictionResponse,
  UpdateJurisdictionRequest,
} from '../../../src/contract/rwa.js'
import type { Principal } from '../../auth/principal.js'
import { isoTimestamp } from '../../clock.js'
import type { AppContext } from '../../context.js'
import { ApiError, constraintViolationOf } from '../../errors.js'
import { listPage } from '../owned.js'
import { jurisdictionFromRow } from './from-row.js'
import {
  deleteJurisdiction,
  findJurisdiction,
  insertJurisdiction,
  jurisdictionOr404,
  jurisdictionUsage,
  listJurisdictions as listJurisdictionRows,
  updateJurisdiction as updateJurisdictionRow,
} from './queries.js'

/** What an update replaces, as the audit log shows it before and after. */
const mutableFields = ({
  name,
  regulatory_body,
  frameworks,
  credential_types,
  transfer_requirements,
}: Jurisdiction) => ({
  name,
  regulatory_body,
  frameworks,
  credential_types,
  transfer_requirements,
})

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** Registers a jurisdiction with a new Ed25519 key; its issuer_did is that key's did:key. */
export async function registerJurisdiction(
  ctx: AppContext,
  principal: Principal,
  input: RegisterJurisdictionRequest,
): Promise<Jurisdiction> {
  const now = isoTimestamp(ctx.clock.now())
  const key = ctx.signingKeys.newIssuerKey(principal.orgId, input.jurisdiction_id)
  const row = {
    org_id: principal.orgId,
    jurisdiction_id: input.jurisdiction_id,
    seq: ctx.ids.next('jur'),
    name: input.name,
    regulatory_body: input.regulatory_body,
    frameworks: JSON.stringify(input.frameworks),
    credential_types: JSON.stringify(input.credential_types),
    transfer_requirements: JSON.stringify(input.transfer_requirements),
    issuer_did: key.issuer_did,
    private_key: key.private_key,
    created_at: now,
    updated_at: now,
  }
  const duplicate = () =>
    new ApiError('jurisdiction_exists', `Jurisdiction ${input.jurisdiction_id} is already registered`, {
      context: { jurisdiction_id: input.jurisdiction_id },
    })
  await ctx.db
    .transaction()
    .execute(async (trx) => {
      if (await findJurisdiction(trx, principal.orgId, input.jurisdiction_id)) throw duplicate()
      await insertJurisdiction(trx, row)
      ctx.record({
        orgId: principal.orgId,
        action: 'jurisdiction.registered',
        target: { type: 'jurisdiction', id: input.jurisdiction_id },
      })
    })
    .catch((error) => {
      // The same id registered at the same moment through another instance.
      throw constraintViolationOf(error) === 'unique' ? duplicate() : error
    })
  return jurisdictionFromRow(row)
}

export async function getJurisdiction(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<Jurisdiction> {
  return jurisdictionFromRow(await jurisdictionOr404(ctx.db, principal.orgId, id))
}

export async function listJurisdictions(
  ctx: AppContext,
  principal: Principal,
  query: ListJurisdictionsQuery,
): Promise<ListJurisdictionsResponse> {
  const page = await listJurisdictionRows(ctx.db, principal.orgId, query)
  return listPage('jurisdictions', page, jurisdictionFromRow)
}

/** Replaces the mutable fields; the id, key and issuer_did never change. */
export async function updateJurisdiction(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: UpdateJurisdictionRequest,
): Promise<Jurisdiction> {
  const updated_at = isoTimestamp(ctx.clock.now())
  return ctx.db.transaction().execute(async (trx) => {
    const row = await jurisdictionOr404(trx, principal.orgId, id)
    const changes = {
      name: input.name,
      regulatory_body: input.regulatory_body,
      frameworks: JSON.stringify(input.frameworks),
      credential_types: JSON.stringify(input.credential_types),
      transfer_requirements: JSON.stringify(input.transfer_requirements),
      updated_at,
    }
    await updateJurisdictionRow(trx, principal.orgId, id, changes)
    const before = jurisdictionFromRow(row)
    const after = jurisdictionFromRow({ ...row, ...changes })
    ctx.record({
      orgId: principal.orgId,
      action: 'jurisdiction.updated',
      target: { type: 'jurisdiction', id },
      before: mutableFields(before),
      after: mutableFields(after),
    })
    return after
  })
}

/** Removes a jurisdiction nothing refers to any more (409 naming what still does). */
export async function removeJurisdiction(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<RemoveJurisdictionResponse> {
  await ctx.db.transaction().execute(async (trx) => {
    // Locked first: writes referring to it (key share) finish before the usage is counted, or wait.
    await jurisdictionOr404(trx, principal.orgId, id, 'update')
    const usage = await jurisdictionUsage(trx, principal.orgId, id)
    const uses = [
      usage.credentials > 0 && plural(usage.credentials, 'credential'),
      usage.attestations > 0 && plural(usage.attestations, 'attestation'),
      usage.tokens > 0 && plural(usage.tokens, 'token'),
      usage.holdings > 0 && plural(usage.holdings, 'token holding'),
      usage.trust > 0 && plural(usage.trust, 'active trust relation'),
    ].filter((u): u is string => typeof u === 'string')
    if (uses.length > 0) {
      // Trust can be revoked; the records of credentials, attestations and tokens stay for good.
      const permanent = usage.credentials + usage.attestations + usage.tokens + usage.holdings > 0
      const hint = permanent
        ? '; credentials, attestations and tokens keep a jurisdiction for good (they are its audit trail), so it cannot be removed'
        : '; revoke its trust relations first'
      throw new ApiError(
        'jurisdiction_in_use',
        `Jurisdiction ${id} is still in use by ${uses.join(', ')}${hint}`,
        {
          context: { jurisdiction_id: id, ...usage },
        },
      )
    }
    await deleteJurisdiction(trx, principal.orgId, id)
    ctx.record({
      orgId: principal.orgId,
      action: 'jurisdiction.removed',
      target: { type: 'jurisdiction', id },
    })
  })
  return { status: 'removed', jurisdiction_id: id }
}
