import { ROLES, type Role } from '../../../src/contract/roles.js'

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
