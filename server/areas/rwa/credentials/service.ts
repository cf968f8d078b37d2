import {
  type Credential,
  type IssueCredentialRequest,
  type ListCredentialsQuery,
  type ListCredentialsResponse,
  PROPERTY_OWNERSHIP,
  type RevokeCredentialRequest,
  titleDeedKey,
} from '../../../../src/contract/rwa.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import type { AppContext } from '../../../pipeline/context.js'
import { isoTimestamp, utcDate } from '../../../platform/clock.js'
import { ownTransaction } from '../../../platform/db/held-connection.js'
import type { Executor } from '../../../platform/db/queries.js'
import { ApiError, constraintViolationOf } from '../../../platform/errors.js'
import { addUsage } from '../../../platform/metering/queries.js'
import { lockOrganization } from '../../../platform/organizations/queries.js'
import { recordTokenEvent } from '../history/history.js'
import { assertAccepts, issuanceTimes, signIssued } from '../issuance.js'
import { jurisdictionOr404 } from '../jurisdictions/queries.js'
import { listPage } from '../owned.js'
import { assignStatusEntry, revokeStatusEntry } from '../status-lists/service.js'
import { credentialFromRow, credentialFromRowWithStatus } from './from-row.js'
import {
  countDids,
  credentialOr404,
  findActiveByTitleDeed,
  freezeTokenBackedBy,
  insertCredential,
  insertDid,
  isKnownDid,
  listCredentials as listCredentialRows,
  markCredentialRevoked,
} from './queries.js'

/**
 * 409 `title_deed_in_use` when an active credential of the jurisdiction has that title deed (compared
 * trimmed, case-insensitive): one property, one live credential
 * (docs/verification.md, "One property, one live credential").
 */
async function assertTitleDeedFree(
  db: Executor,
  orgId: string,
  jurisdiction: string,
  titleDeed: string,
): Promise<void> {
  const existing = await findActiveByTitleDeed(db, orgId, jurisdiction, titleDeedKey(titleDeed))
  if (!existing) return
  const theirs = (JSON.parse(existing.property_data) as { title_deed: string }).title_deed
  throw new ApiError(
    'title_deed_in_use',
    `Title deed ${titleDeed} of ${jurisdiction} is already that of active credential ${existing.credential_id}: one property has one live credential. Revoke it first if this one replaces it`,
    {
      context: {
        credential_id: existing.credential_id,
        jurisdiction,
        title_deed: titleDeed,
        existing_title_deed: theirs,
      },
      errors: [{ path: 'property_data.title_deed', message: `in use by ${existing.credential_id}` }],
    },
  )
}

/**
 * Issues a property credential signed by the jurisdiction's key. An owner DID new to the organization
 * counts against `max_dids` and in the day's `dids_created`, in the same transaction. A title deed an
 * active credential of the jurisdiction already has is 409 `title_deed_in_use`; of two concurrent
 * issues of one deed (on any instance), the partial unique index lets one through.
 */
export async function issueCredential(
  ctx: AppContext,
  principal: Principal,
  input: IssueCredentialRequest,
): Promise<Credential> {
  const orgId = principal.orgId
  const times = issuanceTimes(ctx, input.valid_until, 'credential')
  const { now } = times
  const credentialId = ctx.ids.next('cred')
  const titleDeed = input.property_data.title_deed
  // Inside a write on SQLite, on the write's own transaction (ownTransaction): any failure of an
  // issuance fails its write or is undone by the savepoint around it, and SQLite's transaction stays
  // usable after the refused insert for the read that explains it (below). On PostgreSQL a savepoint.
  return ownTransaction(ctx.db, async (trx) => {
    const jurisdiction = await jurisdictionOr404(trx, orgId, input.jurisdiction, 'key share')
    assertAccepts(jurisdiction, PROPERTY_OWNERSHIP)
    await assertTitleDeedFree(trx, orgId, input.jurisdiction, titleDeed)

    // A new DID is counted under the organization's lock, so concurrent issuances (on any instance)
    // cannot together pass max_dids or introduce the same DID twice; known DIDs need no lock.
    const isNew = async () => {
      if (await isKnownDid(trx, orgId, input.owner_did)) return false
      await lockOrganization(trx, orgId)
      return !(await isKnownDid(trx, orgId, input.owner_did))
    }
    if (await isNew()) {
      const max = principal.entitlement.limits.max_dids
      if (max !== 'unlimited' && (await countDids(trx, orgId)) >= max) {
        throw new ApiError(
          'max_dids',
          `Organization ${orgId} has reached its limit of ${max} DIDs (max_dids); ${input.owner_did} would be a new one. Issue to a known owner DID or move to a higher tier`,
          { context: { org_id: orgId, max_dids: max, owner_did: input.owner_did } },
        )
      }
      await insertDid(trx, orgId, input.owner_did, now)
      await addUsage(trx, orgId, utcDate(times.nowMs), 'dids_created', 1)
    }

    const status = await assignStatusEntry(ctx, trx, orgId, input.jurisdiction, now)
    const vc_jwt = await signIssued(ctx, jurisdiction, {
      id: `urn:rwa:credential:${credentialId}`,
      type: 'PropertyOwnershipCredential',
      subject: input.owner_did,
      times,
      credentialSubject: {
        id: input.owner_did,
        jurisdiction: input.jurisdiction,
        property: input.property_data,
      },
      credentialStatus: status.credentialStatus,
    })
    const row = {
      credential_id: credentialId,
      org_id: orgId,
      jurisdiction: input.jurisdiction,
      owner_did: input.owner_did,
      property_data: JSON.stringify(input.property_data),
      status: 'active',
      issuer_did: jurisdiction.issuer_did,
      issued_at: now,
      valid_until: times.validUntil,
      revoked_at: null,
      revocation_reason: null,
      suspended_at: null,
      suspension_reason: null,
      vc_jwt,
      status_list_id: status.listId,
      status_list_index: status.index,
      title_deed_key: titleDeedKey(titleDeed),
    }
    await insertCredential(trx, row)
    // The record as GET answers it, from the row at hand: its status entry is the one just assigned
    // (nothing decodes the VC-JWT just signed), and its event carries it (no read back).
    const record = credentialFromRowWithStatus(row, status.credentialStatus)
    ctx.record({
      orgId,
      action: 'credential.issued',
      target: { type: 'credential', id: credentialId },
      after: { jurisdiction: input.jurisdiction, owner_did: input.owner_did },
      answer: () => record,
    })
    return record
  }).catch(async (error) => {
    // Issued at the same moment through another transaction: the partial unique index refused it.
    if (constraintViolationOf(error) !== 'unique') throw error
    await assertTitleDeedFree(ctx.db, orgId, input.jurisdiction, titleDeed)
    throw error
  })
}

export async function getCredential(ctx: AppContext, principal: Principal, id: string): Promise<Credential> {
  return credentialFromRow(await credentialOr404(ctx.db, principal.orgId, id))
}

export async function listCredentials(
  ctx: AppContext,
  principal: Principal,
  query: ListCredentialsQuery,
): Promise<ListCredentialsResponse> {
  const page = await listCredentialRows(ctx.db, principal.orgId, query)
  return listPage('credentials', page, credentialFromRow)
}

/**
 * Revokes a credential for good: sets its bit in its status list (so every verifier sees it on the
 * next fetch of the list) and freezes the token it backs (recorded in the token's history), in one
 * transaction. A credential issued before status lists has no bit; its record says it is revoked.
 */
export async function revokeCredential(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: RevokeCredentialRequest,
): Promise<Credential> {
  const now = isoTimestamp(ctx.clock.now())
  const reason = input.reason ?? null
  return ctx.db.transaction().execute(async (trx) => {
    const row = await credentialOr404(trx, principal.orgId, id)
    const alreadyRevoked = async () => {
      const current = await credentialOr404(trx, principal.orgId, id)
      return new ApiError(
        'credential_already_revoked',
        `Credential ${id} was already revoked at ${current.revoked_at}`,
        {
          context: { credential_id: id, revoked_at: current.revoked_at },
        },
      )
    }
    if (row.status === 'revoked') throw await alreadyRevoked()
    // Conditional: of two concurrent revocations, one changes the row and the other is a 409.
    if (!(await markCredentialRevoked(trx, id, now, reason))) throw await alreadyRevoked()
    if (row.status_list_id !== null && row.status_list_index !== null) {
      await revokeStatusEntry(trx, row.status_list_id, Number(row.status_list_index), now)
    }
    // A revoked credential freezes the token it backs, with an event in the token's history.
    const tokenId = await freezeTokenBackedBy(trx, id)
    if (tokenId !== undefined) {
      await recordTokenEvent(ctx, trx, principal.orgId, tokenId, 'credential_revoked', now, {
        credential_id: id,
        reason,
        token_status: 'frozen',
        actor_key_id: principal.keyId,
      })
    }
    ctx.record({
      orgId: principal.orgId,
      action: 'credential.revoked',
      target: { type: 'credential', id },
      after: { reason, frozen_token_id: tokenId ?? null },
    })
    return credentialFromRow({ ...row, status: 'revoked', revoked_at: now, revocation_reason: reason })
  })
}
