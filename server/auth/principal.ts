import { ApiError } from '../errors.js'
import type { Entitlement } from '../limits/entitlement.js'

/** The operator organization: its keys are admin keys. */
export const ADMIN_ORG_ID = 'admin'

/** Who is calling: the key, its organization, and what that organization may do now. */
export interface Principal {
  keyId: string
  orgId: string
  isAdmin: boolean
  entitlement: Entitlement
}

/**
 * The Hono environment of every route: `requestId` is set for every request (from `X-Request-Id`),
 * `principal` once a key is authenticated.
 */
export type AppEnv = { Variables: { principal: Principal; requestId: string } }

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
