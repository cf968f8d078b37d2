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
 * Whether a key is one the operator can count on keeping: an unexpired owner key of the operator
 * organization, not revoked and not rerolled (a rerolled key stops at the end of its overlap). Revoking
 * the last of them, or rerolling it with no overlap, would leave the operator without an admin key.
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
): boolean {
  return (
    isAdminKey(key.org_id, key.roles) &&
    key.revoked_at === null &&
    key.retires_at === null &&
    !expiredAt(key.expires_at, now)
  )
}
