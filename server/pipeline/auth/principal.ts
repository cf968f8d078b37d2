import type { Role } from '../../../src/contract/roles.js'
import { ApiError } from '../../platform/errors.js'
import type { Entitlement } from '../../platform/limits/entitlement.js'

/** The operator organization: its keys are admin keys. */
export const ADMIN_ORG_ID = 'admin'

/** Who is calling: the key, its roles, its organization, and what that organization may do now. */
export interface Principal {
  keyId: string
  orgId: string
  /** The key's roles (docs/keys.md, "Roles"); the route table's declarations are enforced against them. */
  roles: readonly Role[]
  /** An owner key of the operator organization: it acts on every organization. */
  isAdmin: boolean
  entitlement: Entitlement
}

/**
 * Whether a key of `orgId` with `roles` is an admin key: a key of the operator organization with the
 * owner role. A key of that organization with lesser roles is a member key of it, and no more.
 */
export const isAdminKey = (orgId: string, roles: readonly Role[]): boolean =>
  orgId === ADMIN_ORG_ID && roles.includes('owner')

/**
 * The Hono environment of every route: `requestId` is set for every request (from `X-Request-Id`),
 * `principal` once a key is authenticated.
 */
export type AppEnv = { Variables: { principal: Principal; requestId: string } }

/**
 * The organization a request acts on: the one it names (`org_id`), else the key's own; a member key
 * naming another is refused (403).
 */
export function orgActedOn(principal: Principal, named: string | undefined): string {
  const orgId = named ?? principal.orgId
  assertOrgAccess(principal, orgId)
  return orgId
}

/** Refuses a member key acting on another organization (403); the admin key acts on any. */
export function assertOrgAccess(principal: Principal, orgId: string): void {
  if (!principal.isAdmin && principal.orgId !== orgId) {
    throw new ApiError(
      'other_organization',
      `This API key belongs to organization ${principal.orgId} and cannot act on ${orgId}`,
      { context: { org_id: orgId, key_org_id: principal.orgId } },
    )
  }
}
