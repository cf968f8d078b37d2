import type { Clock } from '../clock.js'

/** An enabled endpoint as the outbox needs it: who it is, and the selectors it subscribes to. */
export interface EnabledEndpoint {
  webhook_id: string
  org_id: string
  /** Parsed once, when the list is cached. */
  selectors: string[]
}

/**
 * Each organization's enabled webhook endpoints, so the outbox (server/pipeline/events/outbox.ts) does not ask
 * the database on every eventful write. Per process: a change to an organization's endpoints (made,
 * deleted, disabled, enabled again) forgets its list on every instance through the invalidation bus
 * (`{ kind: 'webhooks' }`), with the shared cache TTL as the safety net for a lost message. A list read
 * while a change was being forgotten is not kept (a generation per organization), so a late read never
 * puts back what a change made stale.
 */
export class EnabledEndpointCache {
  private readonly lists = new Map<string, { at: number; endpoints: EnabledEndpoint[] }>()
  private readonly generations = new Map<string, number>()
  private generationAll = 0

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = Number.POSITIVE_INFINITY,
  ) {}

  /** The organization's enabled endpoints, read with `load` unless cached. */
  async of(orgId: string, load: () => Promise<EnabledEndpoint[]>): Promise<EnabledEndpoint[]> {
    const cached = this.lists.get(orgId)
    if (cached && this.clock.now() - cached.at < this.ttlMs) return cached.endpoints
    const generation = this.generationOf(orgId)
    const endpoints = await load()
    if (this.generationOf(orgId) === generation) this.lists.set(orgId, { at: this.clock.now(), endpoints })
    return endpoints
  }

  forget(orgId: string): void {
    this.generations.set(orgId, (this.generations.get(orgId) ?? 0) + 1)
    this.lists.delete(orgId)
  }

  forgetAll(): void {
    this.generationAll++
    this.lists.clear()
  }

  private generationOf(orgId: string): string {
    return `${this.generationAll}:${this.generations.get(orgId) ?? 0}`
  }
}
