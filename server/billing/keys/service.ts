import type {
  ApiKeyRecord,
  CreateKeyRequest,
  CreateKeyResponse,
  ListKeysResponse,
  RevokeKeyResponse,
} from '../../../src/contract/billing.js'
import { FREE_TRIAL_DAYS } from '../../../src/contract/limits.js'
import { generateApiKey, hashApiKey, keyPrefixOf } from '../../auth/api-keys.js'
import { ADMIN_ORG_ID, assertOrgAccess, type Principal } from '../../auth/principal.js'
import { DAY_MS, isoTimestamp } from '../../clock.js'
import type { AppContext } from '../../context.js'
import { ApiError } from '../../errors.js'
import { entitlementOf } from '../../limits/entitlement.js'
import { ensureOrganization, lockOrganization, startTrialOnce } from '../../organizations/queries.js'
import { organizationOr404, trialEndsAtOf } from '../subscriptions/service.js'
import { countActiveKeys, findKeyRow, insertApiKey, listKeyRows, markKeyRevoked } from './queries.js'

export const KEY_WARNING = 'Store this API key now: it is shown only once and cannot be retrieved again.'

/**
 * Creates an API key. The first key of a new organization creates the organization; the first key
 * created with `start_trial` starts the organization's one 14-day trial.
 */
export async function createKey(
  ctx: AppContext,
  principal: Principal,
  input: CreateKeyRequest,
): Promise<CreateKeyResponse> {
  const orgId = input.org_id ?? principal.orgId
  assertOrgAccess(principal, orgId)
  const now = ctx.clock.now()
  const apiKey = generateApiKey()
  const keyId = ctx.ids.next('key')
  const createdAt = isoTimestamp(now)

  await ctx.db.transaction().execute(async (trx) => {
    await ensureOrganization(trx, orgId, now)
    await lockOrganization(trx, orgId)
    if (input.start_trial) await startTrialOnce(trx, orgId, isoTimestamp(now + FREE_TRIAL_DAYS * DAY_MS))
    await insertApiKey(trx, {
      key_id: keyId,
      org_id: orgId,
      key_hash: hashApiKey(apiKey),
      key_prefix: keyPrefixOf(apiKey),
      name: input.name,
      created_at: createdAt,
      last_used_at: null,
      revoked_at: null,
    })
    ctx.record({
      orgId,
      action: 'key.created',
      target: { type: 'key', id: keyId },
      after: { name: input.name, key_prefix: keyPrefixOf(apiKey), start_trial: input.start_trial ?? false },
    })
  })
  ctx.invalidate({ kind: 'org', orgId })
  const org = await organizationOr404(ctx, orgId)

  return {
    api_key: apiKey,
    key_id: keyId,
    key_prefix: keyPrefixOf(apiKey),
    org_id: orgId,
    tier: entitlementOf(org, now).tier,
    name: input.name,
    created_at: createdAt,
    trial_ends_at: trialEndsAtOf(org),
    warning: KEY_WARNING,
  }
}

/**
 * The keys of an organization, newest first, masked to their prefix. An organization nothing has named
 * yet has none (§8: organizations are implicit, like its usage and subscription).
 */
export async function listKeys(
  ctx: AppContext,
  principal: Principal,
  orgId = principal.orgId,
): Promise<ListKeysResponse> {
  assertOrgAccess(principal, orgId)
  const org = await ctx.authCache.org(orgId)
  if (!org) return { keys: [], total: 0 }
  await ctx.meter.flush()
  const tier = entitlementOf(org, ctx.clock.now()).tier
  const keys: ApiKeyRecord[] = (await listKeyRows(ctx.db, orgId)).map((row) => ({
    key_id: row.key_id,
    key_prefix: row.key_prefix,
    org_id: row.org_id,
    tier,
    name: row.name,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked: row.revoked_at !== null,
    trial_ends_at: trialEndsAtOf(org),
  }))
  return { keys, total: keys.length }
}

/** Revokes a key for good. Another organization's key is reported as unknown. */
export async function revokeKey(
  ctx: AppContext,
  principal: Principal,
  keyId: string,
): Promise<RevokeKeyResponse> {
  const now = ctx.clock.now()
  const alreadyRevoked = () =>
    new ApiError('key_already_revoked', `API key ${keyId} is already revoked; revocation is permanent`, {
      context: { key_id: keyId },
    })
  await ctx.db.transaction().execute(async (trx) => {
    const row = await findKeyRow(trx, keyId)
    if (!row || (!principal.isAdmin && row.org_id !== principal.orgId)) {
      throw new ApiError('key_not_found', `No API key with id ${keyId}`, { context: { key_id: keyId } })
    }
    if (row.revoked_at !== null) throw alreadyRevoked()
    // Two admin keys revoked at once on two instances must not both pass the last-key check.
    await lockOrganization(trx, row.org_id)
    if (row.org_id === ADMIN_ORG_ID && (await countActiveKeys(trx, ADMIN_ORG_ID)) <= 1) {
      throw new ApiError(
        'last_admin_key',
        'This is the last active admin key; create another admin key before revoking it',
        { context: { key_id: keyId } },
      )
    }
    if (!(await markKeyRevoked(trx, keyId, isoTimestamp(now)))) throw alreadyRevoked()
    ctx.record({ orgId: row.org_id, action: 'key.revoked', target: { type: 'key', id: keyId } })
  })
  ctx.invalidate({ kind: 'key-revoked', keyId })
  return { status: 'revoked', key_id: keyId }
}
