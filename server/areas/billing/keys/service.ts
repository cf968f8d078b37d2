import type { Selectable } from 'kysely'
import type {
  ApiKeyRecord,
  CreateKeyRequest,
  CreateKeyResponse,
  KeySelfResponse,
  ListKeysResponse,
  RerollKeyRequest,
  RerollKeyResponse,
  RevokeKeyResponse,
} from '../../../../src/contract/billing.js'
import { FREE_TRIAL_DAYS } from '../../../../src/contract/limits.js'
import { DEFAULT_ROLES, type Role, rolesInOrder } from '../../../../src/contract/roles.js'
import { generateApiKey, hashApiKey, keyPrefixOf } from '../../../pipeline/auth/api-keys.js'
import {
  ADMIN_ORG_ID,
  assertOrgAccess,
  isAdminKey,
  orgActedOn,
  type Principal,
} from '../../../pipeline/auth/principal.js'
import type { KnownOrg } from '../../../platform/caches/auth-cache.js'
import { rolesOfRow, storedRoles } from '../../../platform/caches/stored-roles.js'
import { DAY_MS, isoTimestamp } from '../../../platform/clock.js'
import type { AppContext } from '../../../pipeline/context.js'
import type { ApiKeysTable } from '../../../platform/db/schema.js'
import { ApiError } from '../../../platform/errors.js'
import { entitlementOf } from '../../../platform/limits/entitlement.js'
import {
  ensureOrganization,
  lockOrganization,
  startTrialOnce,
} from '../../../platform/organizations/queries.js'
import { organizationOr404, trialEndsAtOf } from '../subscriptions/service.js'
import { cancelPendingOfPrincipal } from '../../approvals/queries.js'
import { cancellationReason, cancelledEvent } from '../../approvals/rules.js'
import type { Executor } from '../../../platform/db/queries.js'
import {
  expiredAt,
  keyStateAt,
  LAST_ADMIN_MIN_OVERLAP_SECONDS,
  lastAdminVerdict,
  predecessorsInOverlap,
  principalOf,
  rolesNotGrantable,
} from './key-rules.js'
import {
  chainKeys,
  findKeyRow,
  unrevokedKeys,
  insertApiKey,
  listKeyRows,
  markKeyRerolled,
  markKeyRevoked,
} from './queries.js'

export const KEY_WARNING = 'Store this API key now: it is shown only once and cannot be retrieved again.'

/**
 * Creates an API key (an owner's call: the route table says so). The first key of a new organization
 * creates the organization; the first key created with `start_trial` starts the organization's one
 * 14-day trial. The key has the roles asked for (an owner without them), never one its creator lacks,
 * and works until `expires_at` if one is given. The admin key names the organization: a key of its
 * own organization is another admin key, which nobody should get by leaving a flag out.
 */
export async function createKey(
  ctx: AppContext,
  principal: Principal,
  input: CreateKeyRequest,
): Promise<CreateKeyResponse> {
  if (principal.isAdmin && input.org_id === undefined) {
    throw new ApiError(
      'org_id_required',
      'The admin key must name the organization of the key it creates: org_id (org_id "admin" makes another admin key)',
      { errors: [{ path: 'org_id', message: 'Required with the admin key' }] },
    )
  }
  const orgId = orgActedOn(principal, input.org_id)
  const roles = rolesInOrder(input.roles ?? DEFAULT_ROLES)
  assertGrantable(principal, roles)
  const now = ctx.clock.now()
  const expiresAt = input.expires_at === undefined ? null : futureInstant(input.expires_at, now)
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
      roles: storedRoles(roles),
      expires_at: expiresAt,
    })
    ctx.record({
      orgId,
      action: 'key.created',
      target: { type: 'key', id: keyId },
      after: {
        name: input.name,
        key_prefix: keyPrefixOf(apiKey),
        start_trial: input.start_trial ?? false,
        roles,
        expires_at: expiresAt,
      },
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
    roles,
    expires_at: expiresAt,
    warning: KEY_WARNING,
  }
}

/** Refuses a grant of roles the caller lacks (403 `role_required`, naming them). */
function assertGrantable(principal: Principal, roles: readonly Role[]): void {
  const missing = rolesNotGrantable(principal.roles, roles)
  if (missing.length > 0) {
    throw new ApiError(
      'role_required',
      `A key cannot grant roles it lacks: this key has ${principal.roles.join(', ')}, not ${missing.join(', ')}`,
      { context: { roles: ['owner', ...missing], key_roles: principal.roles } },
    )
  }
}

/** `expires_at` as stored (the API's own timestamp form), refused unless it is after `now`. */
function futureInstant(timestamp: string, now: number): string {
  const at = Date.parse(timestamp)
  if (at <= now) {
    throw new ApiError(
      'expires_at_not_future',
      `expires_at ${timestamp} is not in the future (now is ${isoTimestamp(now)})`,
      {
        context: { expires_at: timestamp, now: isoTimestamp(now) },
        errors: [{ path: 'expires_at', message: 'Must be in the future' }],
      },
    )
  }
  return isoTimestamp(at)
}

/**
 * The keys of an organization, newest first, masked to their prefix. An organization nothing has named
 * yet has none, like its usage and subscription (organizations are implicit: README.md, "Billing endpoints").
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
  const now = ctx.clock.now()
  const tier = entitlementOf(org, now).tier
  const keys = (await listKeyRows(ctx.db, orgId)).map((row) => keyRecordOf(row, org, tier, now))
  return { keys, total: keys.length }
}

/** A key as the API answers it (masked: never the raw key), at `now`. */
export function keyRecordOf(
  row: Selectable<ApiKeysTable>,
  org: KnownOrg,
  tier: ApiKeyRecord['tier'],
  now: number,
): ApiKeyRecord {
  return {
    key_id: row.key_id,
    key_prefix: row.key_prefix,
    org_id: row.org_id,
    tier,
    name: row.name,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    ...keyStateAt(row, now),
    trial_ends_at: trialEndsAtOf(org),
    roles: rolesOfRow(row.roles),
    expires_at: row.expires_at,
  }
}

/**
 * Revokes a key for good. Another organization's key is reported as unknown. When the key is its
 * principal's current one (not rerolled into another), the principal is done: the approvals it asked
 * for that are still pending are cancelled in the same write, one `approval.cancelled` event each, so
 * the list and the audit log say so from this moment (docs/accountability.md, "Four eyes"). A rerolled
 * key revoked during its overlap only ends the overlap: its successor carries the principal on. Either
 * way the keys it replaced that still work inside their overlap are revoked with it (a `key.revoked`
 * each, `revoked_with` naming it): a stolen key rerolled and then revoked leaves none of its secrets
 * working.
 */
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
  const revokedWith: string[] = []
  await ctx.db.transaction().execute(async (trx) => {
    revokedWith.length = 0
    const found = await findKeyRow(trx, keyId)
    if (!found || (!principal.isAdmin && found.org_id !== principal.orgId)) {
      throw new ApiError('key_not_found', `No API key with id ${keyId}`, { context: { key_id: keyId } })
    }
    // Two admin keys revoked at once on two instances must not both pass the last-key check; and read
    // again under the lock: a reroll on another instance may have gone first (then its successor
    // carries the principal on).
    await lockOrganization(trx, found.org_id)
    const row = (await findKeyRow(trx, keyId)) ?? found
    if (keyStateAt(row, now).revoked) throw alreadyRevoked()
    await assertNotLastAdminKey(
      trx,
      row,
      now,
      null,
      `This is the last active admin key; create another admin key (one that works for at least ${LAST_ADMIN_MIN_OVERLAP_SECONDS} s more) before revoking it`,
    )
    if (!(await markKeyRevoked(trx, keyId, isoTimestamp(now)))) throw alreadyRevoked()
    ctx.record({ orgId: row.org_id, action: 'key.revoked', target: { type: 'key', id: keyId } })
    // The keys it replaced that still work inside their overlap go with it.
    for (const before of predecessorsInOverlap(await chainKeys(trx, principalOf(row)), keyId, now)) {
      if (!(await markKeyRevoked(trx, before.key_id, isoTimestamp(now)))) continue
      revokedWith.push(before.key_id)
      ctx.record({
        orgId: row.org_id,
        action: 'key.revoked',
        target: { type: 'key', id: before.key_id },
        after: { revoked_with: keyId },
      })
    }
    if (row.replaced_by === null) {
      const cancelled = await cancelPendingOfPrincipal(trx, row.org_id, principalOf(row), {
        decided_by: principal.keyId,
        decided_at: isoTimestamp(now),
        reason: cancellationReason(keyId),
      })
      for (const approval of cancelled) {
        ctx.record({
          orgId: row.org_id,
          action: 'approval.cancelled',
          target: { type: 'approval', id: approval.approval_id },
          after: cancelledEvent(approval, keyId),
        })
      }
    }
  })
  for (const id of [keyId, ...revokedWith]) ctx.invalidate({ kind: 'key-revoked', keyId: id })
  return { status: 'revoked', key_id: keyId }
}

/**
 * Refuses (409 `last_admin_key`) to take away the operator's last lasting admin key (`lastAdminVerdict`):
 * revoking it (`overlapSeconds` null), or rerolling it with an overlap under 5 minutes (the new key is in
 * the answer alone; lost, and a retry replays `api_key: null`, nobody could act as admin again unless
 * the old key still works for long enough to make another). Call it under the organization's lock.
 */
async function assertNotLastAdminKey(
  trx: Executor,
  row: Selectable<ApiKeysTable>,
  now: number,
  overlapSeconds: number | null,
  detail: string,
): Promise<void> {
  const withRoles = <K extends { roles: string }>(k: K) => ({ ...k, roles: rolesOfRow(k.roles) })
  if (!isAdminKey(row.org_id, rolesOfRow(row.roles))) return
  const others = (await unrevokedKeys(trx, ADMIN_ORG_ID))
    .filter((k) => k.key_id !== row.key_id)
    .map(withRoles)
  if (lastAdminVerdict(withRoles(row), others, now, overlapSeconds) === 'ok') return
  throw new ApiError('last_admin_key', detail, {
    context: { key_id: row.key_id, min_overlap_seconds: LAST_ADMIN_MIN_OVERLAP_SECONDS },
  })
}

/**
 * Rerolls a key (an owner's call): a new raw key with the same organization, name, roles and expiry,
 * answered once. The old key keeps working for `overlap_seconds`, then reads revoked (reason
 * `rerolled`); every instance learns of it through the invalidation, and the clock does the rest.
 */
export async function rerollKey(
  ctx: AppContext,
  principal: Principal,
  keyId: string,
  input: RerollKeyRequest,
): Promise<RerollKeyResponse> {
  const now = ctx.clock.now()
  const apiKey = generateApiKey()
  const newKeyId = ctx.ids.next('key')
  const createdAt = isoTimestamp(now)
  const retiresAt = isoTimestamp(now + (input.overlap_seconds ?? 0) * 1000)
  const alreadyRerolled = (replacedBy: string | null) =>
    new ApiError(
      'key_already_rerolled',
      `API key ${keyId} was rerolled already${replacedBy ? ` (by ${replacedBy})` : ''}; reroll the key that replaced it`,
      { context: { key_id: keyId, replaced_by: replacedBy } },
    )

  const old = await ctx.db.transaction().execute(async (trx) => {
    const found = await findKeyRow(trx, keyId)
    if (!found || (!principal.isAdmin && found.org_id !== principal.orgId)) {
      throw new ApiError('key_not_found', `No API key with id ${keyId}`, { context: { key_id: keyId } })
    }
    // Read again under the organization's lock: a revocation or reroll on another instance went first.
    await lockOrganization(trx, found.org_id)
    const row = (await findKeyRow(trx, keyId)) ?? found
    if (row.revoked_at !== null) {
      throw new ApiError('key_already_revoked', `API key ${keyId} is revoked; revocation is permanent`, {
        context: { key_id: keyId },
      })
    }
    if (row.retires_at !== null) throw alreadyRerolled(row.replaced_by)
    if (expiredAt(row.expires_at, now)) {
      throw new ApiError(
        'key_already_expired',
        `API key ${keyId} expired at ${row.expires_at}; create a new key instead`,
        { context: { key_id: keyId, expired_at: row.expires_at } },
      )
    }
    await assertNotLastAdminKey(
      trx,
      row,
      now,
      input.overlap_seconds ?? 0,
      `This is the last active admin key: reroll it with an overlap of at least ${LAST_ADMIN_MIN_OVERLAP_SECONDS} s (overlap_seconds), so that it keeps working long enough to make another admin key should the answer with the new key be lost, or create another admin key first`,
    )
    await insertApiKey(trx, {
      key_id: newKeyId,
      org_id: row.org_id,
      key_hash: hashApiKey(apiKey),
      key_prefix: keyPrefixOf(apiKey),
      name: row.name,
      created_at: createdAt,
      last_used_at: null,
      revoked_at: null,
      roles: row.roles,
      expires_at: row.expires_at,
      // The same principal: four eyes does not take the new key for a second pair of eyes.
      principal_id: principalOf(row),
    })
    if (!(await markKeyRerolled(trx, keyId, retiresAt, newKeyId))) throw alreadyRerolled(null)
    ctx.record({
      orgId: row.org_id,
      action: 'key.rerolled',
      target: { type: 'key', id: keyId },
      before: { revoked_at: null, replaced_by: null },
      after: { revoked_at: retiresAt, replaced_by: newKeyId, new_key_prefix: keyPrefixOf(apiKey) },
    })
    return row
  })
  ctx.invalidate({ kind: 'key-changed', keyId })
  const org = await organizationOr404(ctx, old.org_id)

  return {
    api_key: apiKey,
    key_id: newKeyId,
    key_prefix: keyPrefixOf(apiKey),
    org_id: old.org_id,
    tier: entitlementOf(org, now).tier,
    name: old.name,
    created_at: createdAt,
    trial_ends_at: trialEndsAtOf(org),
    roles: rolesOfRow(old.roles),
    expires_at: old.expires_at,
    warning: KEY_WARNING,
    previous_key_id: keyId,
    previous_key_revoked_at: retiresAt,
  }
}

/** The calling key as it sees itself: its organization, roles, plan and expiry (`rwa whoami`). */
export async function getKeySelf(ctx: AppContext, principal: Principal): Promise<KeySelfResponse> {
  const row = await findKeyRow(ctx.db, principal.keyId)
  const org = await organizationOr404(ctx, principal.orgId)
  if (!row) throw new ApiError('key_unknown', 'Unknown API key')
  return {
    key_id: row.key_id,
    key_prefix: row.key_prefix,
    name: row.name,
    org_id: row.org_id,
    admin: principal.isAdmin,
    roles: [...principal.roles],
    tier: principal.entitlement.tier,
    limits: principal.entitlement.limits,
    trial_ends_at: trialEndsAtOf(org),
    expires_at: row.expires_at,
  }
}
