import { z } from 'zod'

/**
 * The roles a key may hold (docs/keys.md, "Roles"). A key has one or more; every role reads its
 * organization's records, and an operation's declaration names the roles that may call it (`roles` in
 * ./operation.ts). `owner` may call everything its organization may, keys included.
 */
export const ROLES = ['owner', 'issuer', 'agent', 'transfers', 'auditor'] as const

export type Role = (typeof ROLES)[number]

/** What each role is for, in a sentence (the CLI's help and docs/roles.md). */
export const ROLE_PURPOSE: Record<Role, string> = {
  owner: 'Everything in its organization, including its keys',
  issuer: 'Jurisdictions, trust, credentials, attestations and tokenizing',
  agent: "A token's agent: rules, pause, freezes, forced transfers and recovery",
  transfers: 'Requesting transfers',
  auditor: 'Reading only',
}

/** The roles of a key created without any: an owner, as every key was before roles existed. */
export const DEFAULT_ROLES: readonly Role[] = ['owner']

export const roleSchema = z.enum(ROLES)

/** A set of roles in the order of `ROLES`, each once. */
export const rolesInOrder = (roles: Iterable<Role>): Role[] => {
  const set = new Set(roles)
  return ROLES.filter((role) => set.has(role))
}

/** Roles as a request names them: at least one (a repeated one counts once). */
export const rolesSchema = z
  .array(roleSchema)
  .min(1)
  .max(ROLES.length)
  .describe(`Roles of the key, one or more of ${ROLES.join(', ')}`)
