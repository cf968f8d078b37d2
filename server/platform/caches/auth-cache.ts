import type { Tier } from '../../../src/contract/limits.js'
import type { Role } from '../../../src/contract/roles.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { PlanState } from '../limits/entitlement.js'
import { findOrganizationPlan } from '../organizations/queries.js'
import { rolesOfRow } from './stored-roles.js'
import { findKeyByHash } from './queries.js'

/** What authentication needs to know of a key, cached by the hash of the raw key. */
export interface KnownKey {
  keyId: string
  orgId: string
  revoked: boolean
  roles: readonly Role[]
  /** When the key stops working (ms), or null. */
  expiresAt: number | null
  /** After a reroll, when its overlap ends (ms) and the key reads revoked; otherwise null. */
  retiresAt: number | null
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
 * is followed by `forgetOrg`, `markRevoked` or `forgetKey` (through the app's invalidation, on every
 * instance). A key's expiry is part of what is cached: it needs no invalidation, the clock decides.
 */
export interface AuthCache {
  keyByHash(hash: string): Promise<KnownKey | undefined>
  org(orgId: string): Promise<KnownOrg | undefined>
  /**
   * What `keyByHash` and `org` would answer from memory, without a promise: undefined when the entry is
   * not cached (or too old), and the caller then asks them (docs/performance.md, "The request path,
   * issue 41").
   */
  cachedKey(hash: string): KnownKey | undefined
  cachedOrg(orgId: string): KnownOrg | undefined
  /** Drops the cached state of an organization after its trial or subscription changed. */
  forgetOrg(orgId: string): void
  markRevoked(keyId: string): void
  /** Drops what is cached of a key after it changed (a reroll set the end of its overlap). */
  forgetKey(keyId: string): void
  /** Drops everything (invalidations may have been missed while the bus was down). */
  forgetAll(): void
}

/**
 * How long an instance may reuse what it read when several instances share the database: the bus
 * tells every instance of a change within a second, and this bounds the damage of a lost message.
 */
export const SHARED_CACHE_TTL_MS = 30_000

interface Cached<T> {
  value: T
  /** When it was read (the app clock), for the TTL. */
  at: number
}

/**
 * Maps in memory in front of the database. With `ttlMs` (several instances), an entry older than that
 * is read again, so a missed invalidation heals by itself; without it (one instance) entries live until
 * forgotten.
 */
export class InMemoryAuthCache implements AuthCache {
  private readonly keysByHash = new Map<string, Cached<KnownKey>>()
  private readonly keysById = new Map<string, { key: KnownKey; hash: string }>()
  private readonly orgs = new Map<string, Cached<KnownOrg>>()
  /**
   * Bumped by every invalidation, so a read that raced with a change (it started before the change
   * was forgotten and finished after) does not cache what it read before it.
   */
  private generation = 0

  constructor(
    private readonly db: Db,
    private readonly options: { clock?: Clock; ttlMs?: number } = {},
  ) {}

  cachedKey(hash: string): KnownKey | undefined {
    const cached = this.keysByHash.get(hash)
    return cached && this.fresh(cached) ? cached.value : undefined
  }

  cachedOrg(orgId: string): KnownOrg | undefined {
    const cached = this.orgs.get(orgId)
    return cached && this.fresh(cached) ? cached.value : undefined
  }

  async keyByHash(hash: string): Promise<KnownKey | undefined> {
    const cached = this.keysByHash.get(hash)
    if (cached && this.fresh(cached)) return cached.value
    const generation = this.generation
    const row = await findKeyByHash(this.db, hash)
    if (!row) return undefined
    const key: KnownKey = {
      keyId: row.key_id,
      orgId: row.org_id,
      revoked: row.revoked_at !== null,
      roles: rolesOfRow(row.roles),
      expiresAt: instantOf(row.expires_at),
      retiresAt: instantOf(row.retires_at),
    }
    if (generation === this.generation) {
      this.keysByHash.set(hash, { value: key, at: this.now() })
      this.keysById.set(key.keyId, { key, hash })
    }
    return key
  }

  async org(orgId: string): Promise<KnownOrg | undefined> {
    const cached = this.orgs.get(orgId)
    if (cached && this.fresh(cached)) return cached.value
    const generation = this.generation
    const row = await findOrganizationPlan(this.db, orgId)
    if (!row) return undefined
    const org: KnownOrg = {
      orgId: row.org_id,
      trialEndsAt: row.trial_ends_at === null ? null : Date.parse(row.trial_ends_at),
      trialChecked: row.trial_checked_at !== null,
      subscription: row.tier && row.status ? { tier: row.tier as Tier, status: row.status } : null,
    }
    if (generation === this.generation) this.orgs.set(orgId, { value: org, at: this.now() })
    return org
  }

  forgetOrg(orgId: string): void {
    this.generation++
    this.orgs.delete(orgId)
  }

  markRevoked(keyId: string): void {
    this.generation++
    const cached = this.keysById.get(keyId)
    if (cached) cached.key.revoked = true
  }

  forgetKey(keyId: string): void {
    this.generation++
    const cached = this.keysById.get(keyId)
    if (!cached) return
    this.keysById.delete(keyId)
    this.keysByHash.delete(cached.hash)
  }

  forgetAll(): void {
    this.generation++
    this.keysByHash.clear()
    this.keysById.clear()
    this.orgs.clear()
  }

  private now(): number {
    return this.options.clock?.now() ?? 0
  }

  private fresh(entry: Cached<unknown>): boolean {
    const ttl = this.options.ttlMs
    return ttl === undefined || this.now() - entry.at < ttl
  }
}

const instantOf = (timestamp: string | null): number | null =>
  timestamp === null ? null : Date.parse(timestamp)
