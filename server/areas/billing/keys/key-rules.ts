import { ROLES, type Role } from '../../../../src/contract/roles.js'
import { isAdminKey } from '../../../pipeline/auth/principal.js'

/*
 * The rules of a key's life and of what a key may hand on, free of HTTP and SQL.
 */

/**
 * The roles of `requested` a creator holding `creatorRoles` may not grant: a key never grants a role
 * it lacks, and an owner holds every role's powers. Empty when the grant is allowed.
 */
export function rolesNotGrantable(creatorRoles: readonly Role[], requested: readonly Role[]): Role[] {
  const held = new Set<Role>(creatorRoles.includes('owner') ? ROLES : creatorRoles)
  return requested.filter((role) => !held.has(role))
}

/** What a stored key reads as at `now`: revoked (by a revocation, or by a reroll whose overlap ended). */
export function keyStateAt(
  key: { revoked_at: string | null; retires_at: string | null },
  now: number,
): { revoked: boolean; revoked_reason: 'revoked' | 'rerolled' | null } {
  if (key.revoked_at !== null) return { revoked: true, revoked_reason: 'revoked' }
  if (key.retires_at !== null && now >= Date.parse(key.retires_at))
    return { revoked: true, revoked_reason: 'rerolled' }
  return { revoked: false, revoked_reason: null }
}

/** Whether a key with that `expires_at` has expired at `now`. */
export const expiredAt = (expiresAt: string | null, now: number): boolean =>
  expiresAt !== null && now >= Date.parse(expiresAt)

/**
 * The principal a key acts for: the first key of its reroll chain. A key and every key rerolled from
 * it, however many times, are one principal (four eyes compares principals, not key ids).
 */
export const principalOf = (key: { key_id: string; principal_id: string | null }): string =>
  key.principal_id ?? key.key_id

/**
 * Whether a principal still stands behind what it asked for at `now`, judged by its current key (the
 * last of its chain, the one not rerolled): revoked, or past its expiry (which a reroll keeps), it does
 * not. A key rerolled and then revoked during its overlap does not end its principal: its successor
 * carries it on.
 */
export function principalStanding(
  current: { revoked_at: string | null; expires_at: string | null },
  now: number,
): 'active' | 'revoked' | 'expired' {
  if (current.revoked_at !== null) return 'revoked'
  if (expiredAt(current.expires_at, now)) return 'expired'
  return 'active'
}

/**
 * The shortest overlap the operator's last admin key may be rerolled with, and how long another admin
 * key must still work to count as one (docs/keys.md, "The last admin key"): 5 minutes, time enough
 * for a client whose answer was lost to retry, find the replay carries no key, and make another admin
 * key with the old one. A 1 s overlap is as good as none.
 */
export const LAST_ADMIN_MIN_OVERLAP_SECONDS = 300

/**
 * Whether a key is one the operator can count on keeping for `horizonMs` from `now`: an owner key of
 * the operator organization, not revoked, not rerolled (a rerolled key stops at the end of its
 * overlap, and is alive only inside it), and not expiring within the horizon. Revoking the last of
 * them, or rerolling it with too short an overlap, would leave the operator without an admin key.
 */
export function isLastingAdminKey(
  key: {
    org_id: string
    roles: readonly Role[]
    revoked_at: string | null
    retires_at: string | null
    expires_at: string | null
  },
  now: number,
  horizonMs = 0,
): boolean {
  return (
    isAdminKey(key.org_id, key.roles) &&
    key.revoked_at === null &&
    key.retires_at === null &&
    !expiredAt(key.expires_at, now + horizonMs)
  )
}

/**
 * What taking `key` away leaves the operator (docs/keys.md, "The last admin key"): `ok` when it is no
 * lasting admin key, or another principal's admin key lasts past both the overlap and 5 minutes;
 * else `refused` for a revocation (`overlapSeconds` null) or a reroll whose overlap is under 5 minutes.
 * `others` are the operator organization's keys; the key's own chain never counts for it.
 */
export function lastAdminVerdict(
  key: Parameters<typeof isLastingAdminKey>[0] & { key_id: string; principal_id: string | null },
  others: ReadonlyArray<
    Parameters<typeof isLastingAdminKey>[0] & { key_id: string; principal_id: string | null }
  >,
  now: number,
  overlapSeconds: number | null,
): 'ok' | 'refused' {
  if (!isLastingAdminKey(key, now)) return 'ok'
  const horizonMs = Math.max(overlapSeconds ?? 0, LAST_ADMIN_MIN_OVERLAP_SECONDS) * 1000
  const principal = principalOf(key)
  const another = others.some((k) => principalOf(k) !== principal && isLastingAdminKey(k, now, horizonMs))
  if (another) return 'ok'
  return overlapSeconds !== null && overlapSeconds >= LAST_ADMIN_MIN_OVERLAP_SECONDS ? 'ok' : 'refused'
}

/**
 * The keys before `keyId` in its reroll chain (`chain`: every key of its principal) that still work at
 * `now`, inside their overlap: revoking a key revokes them with it, or a stolen key rerolled and then
 * revoked would leave the keys it replaced working until their overlaps end.
 */
export function predecessorsInOverlap<
  K extends {
    key_id: string
    replaced_by: string | null
    revoked_at: string | null
    retires_at: string | null
  },
>(chain: readonly K[], keyId: string, now: number): K[] {
  const before = new Map(chain.filter((k) => k.replaced_by !== null).map((k) => [k.replaced_by!, k]))
  const found: K[] = []
  const seen = new Set<string>([keyId])
  for (let k = before.get(keyId); k !== undefined && !seen.has(k.key_id); k = before.get(k.key_id)) {
    seen.add(k.key_id)
    if (!keyStateAt(k, now).revoked) found.push(k)
  }
  return found
}
