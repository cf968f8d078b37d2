import type {
  Jurisdiction,
  ListJurisdictionsQuery,
  ListJurisdictionsResponse,
  RegisterJurisdictionRequest,
  RemoveJurisdictionResponse,
  UpdateJurisdictionRequest,
} from '../../../../src/contract/rwa.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import type { AppContext } from '../../../pipeline/context.js'
import { isoTimestamp } from '../../../platform/clock.js'
import { ApiError, constraintViolationOf, invalidFields } from '../../../platform/errors.js'
import { listPage } from '../owned.js'
import { jurisdictionFromRow } from './from-row.js'
import {
  deleteJurisdiction,
  deleteRemovedJurisdiction,
  findJurisdiction,
  findRemovedJurisdiction,
  insertJurisdiction,
  insertRemovedJurisdiction,
  jurisdictionOr404,
  jurisdictionRecordOr404,
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
  external_only,
}: Jurisdiction) => ({
  name,
  regulatory_body,
  frameworks,
  credential_types,
  transfer_requirements,
  external_only,
})

/** `external_only` names requirements of the jurisdiction's own list: 400 naming it otherwise. */
function checkExternalOnly(input: { transfer_requirements: string[]; external_only: string[] }): void {
  const stray = input.external_only.filter((r) => !input.transfer_requirements.includes(r))
  if (stray.length > 0) {
    throw invalidFields('body', [
      {
        path: 'external_only',
        message: `${stray.join(', ')} ${stray.length === 1 ? 'is' : 'are'} not in transfer_requirements`,
      },
    ])
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * Registers a jurisdiction with a new Ed25519 key; its issuer_did is that key's did:key. An id removed
 * before gets its old key back, valid since its first registration: a jurisdiction keeps its key for
 * life, so what it signed, and the proofs that name it, keep verifying against a fresh trust bundle.
 */
export async function registerJurisdiction(
  ctx: AppContext,
  principal: Principal,
  input: RegisterJurisdictionRequest,
): Promise<Jurisdiction> {
  const orgId = principal.orgId
  checkExternalOnly(input)
  const now = isoTimestamp(ctx.clock.now())
  const duplicate = () =>
    new ApiError('jurisdiction_exists', `Jurisdiction ${input.jurisdiction_id} is already registered`, {
      context: { jurisdiction_id: input.jurisdiction_id },
    })
  const row = await ctx.db
    .transaction()
    .execute(async (trx) => {
      if (await findJurisdiction(trx, orgId, input.jurisdiction_id)) throw duplicate()
      // Locked: of two registrations at once, the second finds it taken back and makes a key of its
      // own, which the primary key then refuses (a 409 below).
      const removed = await findRemovedJurisdiction(trx, orgId, input.jurisdiction_id, 'update')
      const key = removed ?? ctx.signingKeys.newIssuerKey(orgId, input.jurisdiction_id)
      const row = {
        org_id: orgId,
        jurisdiction_id: input.jurisdiction_id,
        seq: ctx.ids.next('jur'),
        name: input.name,
        regulatory_body: input.regulatory_body,
        frameworks: JSON.stringify(input.frameworks),
        credential_types: JSON.stringify(input.credential_types),
        transfer_requirements: JSON.stringify(input.transfer_requirements),
        external_only: JSON.stringify(input.external_only),
        issuer_did: key.issuer_did,
        private_key: key.private_key,
        created_at: now,
        updated_at: now,
        issuer_since: removed?.valid_from ?? null,
      }
      await insertJurisdiction(trx, row)
      if (removed) await deleteRemovedJurisdiction(trx, orgId, input.jurisdiction_id)
      ctx.record({
        orgId,
        action: 'jurisdiction.registered',
        target: { type: 'jurisdiction', id: input.jurisdiction_id },
        ...(removed ? { after: { issuer_did: removed.issuer_did, key_restored: true } } : {}),
      })
      return row
    })
    .catch((error) => {
      // The same id registered at the same moment through another instance.
      throw constraintViolationOf(error) === 'unique' ? duplicate() : error
    })
  return jurisdictionFromRow(row)
}

export function getJurisdiction(ctx: AppContext, principal: Principal, id: string): Promise<Jurisdiction> {
  return jurisdictionRecordOr404(ctx.db, principal.orgId, id).then(jurisdictionFromRow)
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
  checkExternalOnly(input)
  const updated_at = isoTimestamp(ctx.clock.now())
  return ctx.db.transaction().execute(async (trx) => {
    const row = await jurisdictionOr404(trx, principal.orgId, id)
    const changes = {
      name: input.name,
      regulatory_body: input.regulatory_body,
      frameworks: JSON.stringify(input.frameworks),
      credential_types: JSON.stringify(input.credential_types),
      transfer_requirements: JSON.stringify(input.transfer_requirements),
      external_only: JSON.stringify(input.external_only),
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

/**
 * Removes a jurisdiction nothing refers to any more (409 naming what still does). Its key is kept
 * (`removed_jurisdictions`): proofs name its issuer DID (a transfer refused into it, units that passed
 * through it), the trust bundle keeps listing it until its removal, and the id registered again gets it
 * back. Every removal keeps it, rather than only those some record names: the rule stays one line, and an
 * id is bound to one key for good.
 */
export async function removeJurisdiction(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<RemoveJurisdictionResponse> {
  await ctx.db.transaction().execute(async (trx) => {
    // Locked first: writes referring to it (key share) finish before the usage is counted, or wait.
    const row = await jurisdictionOr404(trx, principal.orgId, id, 'update')
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
    await insertRemovedJurisdiction(trx, {
      org_id: row.org_id,
      jurisdiction_id: id,
      issuer_did: row.issuer_did,
      private_key: row.private_key,
      valid_from: row.issuer_since ?? row.created_at,
      removed_at: isoTimestamp(ctx.clock.now()),
    })
    await deleteJurisdiction(trx, principal.orgId, id)
    ctx.record({
      orgId: principal.orgId,
      action: 'jurisdiction.removed',
      target: { type: 'jurisdiction', id },
    })
  })
  return { status: 'removed', jurisdiction_id: id }
}
