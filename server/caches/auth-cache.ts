import type { Tier } from '../../src/contract/limits.js'
import type { Db } from '../db/database.js'
import type { PlanState } from '../limits/entitlement.js'
import { findOrganizationPlan } from '../organizations/queries.js'
import { findKeyByHash } from './queries.js'

/** What authentication needs to know of a key, cached by the hash of the raw key. */
export interface KnownKey {
  keyId: string
  orgId: string
  revoked: boolean
}

/** What authentication needs to know of an organization. */
export interface KnownOrg extends PlanState {
  orgId: string
  /** Whether the payment provider was asked, after the trial ended, for an active subscription. */
  trialChecked: boolean
}

/**
 * What authentication reads on every request, kept in the process so an authenticated request
 * normally reads nothing from the database. Every change to a key, an organization or a subscription
 * is followed by `forgetOrg` or `markRevoked` (through the app's invalidation, on every instance).
 */
export interface AuthCache {
  keyByHash(hash: string): Promise<KnownKey | undefined>
  org(orgId: string): Promise<KnownOrg | undefined>
  /** Drops the cached state of an organization after its trial or subscription changed. */
  forgetOrg(orgId: string): void
  markRevoked(keyId: string): void
}

/** The embedded auth cache: maps in memory in front of the database. */
export class InMemoryAuthCache implements AuthCache {
  private readonly keysByHash = new Map<string, KnownKey>()
  private readonly keysById = new Map<string, KnownKey>()
  private readonly orgs = new Map<string, KnownOrg>()
  /** Bumped by forgetOrg, so a read that raced with a change does not cache what it read before it. */
  private generation = 0

  constructor(private readonly db: Db) {}

  async keyByHash(hash: string): Promise<KnownKey | undefined> {
    const cached = this.keysByHash.get(hash)
    if (cached) return cached
    const row = await findKeyByHash(this.db, hash)
    if (!row) return undefined
    const key: KnownKey = { keyId: row.key_id, orgId: row.org_id, revoked: row.revoked_at !== null }
    this.keysByHash.set(hash, key)
    this.keysById.set(key.keyId, key)
    return key
  }

  async org(orgId: string): Promise<KnownOrg | undefined> {
    const cached = this.orgs.get(orgId)
    if (cached) return cached
    const generation = this.generation
    const row = await findOrganizationPlan(this.db, orgId)
    if (!row) return undefined
    const org: KnownOrg = {
      orgId: row.org_id,
      trialEndsAt: row.trial_ends_at === null ? null : Date.parse(row.trial_ends_at),
      trialChecked: row.trial_checked_at !== null,
      subscription: row.tier && row.status ? { tier: row.tier as Tier, status: row.status } : null,
    }
    if (generation === this.generation) this.orgs.set(orgId, org)
    return org
  }

  forgetOrg(orgId: string): void {
    this.generation++
    this.orgs.delete(orgId)
  }

  markRevoked(keyId: string): void {
    const key = this.keysById.get(keyId)
    if (key) key.revoked = true
  }
}
