import { API_KEY_PATTERN } from '../src/contract/billing.js'
import { generateApiKey, hashApiKey, keyPrefixOf } from './pipeline/auth/api-keys.js'
import { ADMIN_ORG_ID } from './pipeline/auth/principal.js'
import { isoTimestamp } from './platform/clock.js'
import { hasAnyKey, insertApiKey } from './areas/billing/keys/queries.js'
import { findKeyByHash } from './platform/caches/queries.js'
import type { AppContext } from './pipeline/context.js'
import { ensureOrganization, lockOrganization, upsertSubscription } from './platform/organizations/queries.js'
import { runWrite } from './pipeline/writes/run-write.js'

type EnsuredAdminKey = { created: boolean; printable: string | null; presetIgnored: boolean }

/**
 * Makes sure the operator organization (`admin`, enterprise) has an admin key. On a database without
 * one it stores `presetKey` (from RWA_ADMIN_KEY) or a new key, and returns the new key so the caller
 * prints it once; returns null when an admin key already existed or the preset one was used.
 * `presetIgnored` says that a preset key was given but the database already had admin keys and none of
 * them is that key, so the caller can say it was not applied. Instances starting together on a new
 * database make one admin key: the check and the insert run under the operator organization's row lock.
 */
export async function ensureAdminKey(ctx: AppContext, presetKey?: string): Promise<EnsuredAdminKey> {
  if (presetKey !== undefined && !API_KEY_PATTERN.test(presetKey)) {
    throw new Error('RWA_ADMIN_KEY must have the key format: rwa_live_ followed by 43 base64url characters')
  }
  const existing = async (): Promise<EnsuredAdminKey> => {
    const preset = presetKey === undefined ? undefined : await findKeyByHash(ctx.db, hashApiKey(presetKey))
    const presetInUse = preset?.org_id === ADMIN_ORG_ID && preset.revoked_at === null
    return { created: false, printable: null, presetIgnored: presetKey !== undefined && !presetInUse }
  }
  if (await hasAnyKey(ctx.db, ADMIN_ORG_ID)) return existing()

  const apiKey = presetKey ?? generateApiKey()
  const now = ctx.clock.now()
  // A write of the server's own: the key's creation is in the operator organization's audit log.
  const origin = { actor: { system: 'bootstrap' as const }, requestId: null }
  const created = await runWrite(ctx, origin, () =>
    ctx.db.transaction().execute(async (trx) => {
      await ensureOrganization(trx, ADMIN_ORG_ID, now)
      await lockOrganization(trx, ADMIN_ORG_ID)
      // Another instance starting at the same moment may have made it while this one waited for the lock.
      if (await hasAnyKey(trx, ADMIN_ORG_ID)) return false
      await upsertSubscription(
        trx,
        ADMIN_ORG_ID,
        {
          tier: 'enterprise',
          status: 'active',
          provider: 'operator',
          payment_subscription_id: null,
          payment_customer_id: null,
          payment_price_id: null,
          current_period_start: null,
          current_period_end: null,
          cancel_at_period_end: 0,
          provider_updated_at: null,
        },
        now,
      )
      const keyId = ctx.ids.next('key')
      await insertApiKey(trx, {
        key_id: keyId,
        org_id: ADMIN_ORG_ID,
        key_hash: hashApiKey(apiKey),
        key_prefix: keyPrefixOf(apiKey),
        name: 'admin',
        created_at: isoTimestamp(now),
        last_used_at: null,
        revoked_at: null,
      })
      ctx.record({
        orgId: ADMIN_ORG_ID,
        action: 'key.created',
        target: { type: 'key', id: keyId },
        after: {
          name: 'admin',
          key_prefix: keyPrefixOf(apiKey),
          start_trial: false,
          roles: ['owner'],
          expires_at: null,
          preset: presetKey !== undefined,
        },
      })
      return true
    }),
  )
  if (!created) return existing()
  return { created: true, printable: presetKey === undefined ? apiKey : null, presetIgnored: false }
}
