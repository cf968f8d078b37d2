import { type Role, roleSchema, rolesInOrder } from '../../../src/contract/roles.js'

/** The `roles` column of a key: its roles as a JSON array, in the order of `ROLES`, each once. */
export const storedRoles = (roles: Iterable<Role>): string => JSON.stringify(rolesInOrder(roles))

/**
 * The roles of a stored key. A name this version does not know (written by a newer one) grants
 * nothing, and a column that holds no role at all reads as no role: never more than was stored.
 */
export function rolesOfRow(column: string): Role[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(column)
  } catch {
    return []
  }
  if (!Array.isArray(parsed)) return []
  return rolesInOrder(parsed.flatMap((name) => (roleSchema.safeParse(name).success ? [name as Role] : [])))
}
