/**
 * A change that process-local caches must forget: an organization's plan (trial, tier, subscription,
 * payment answers), a revoked key, a key changed otherwise (a reroll ended its life), the service's
 * signing keys (a rotation), or everything
 * (after messages may have been missed).
 */
export type Invalidation =
  | { kind: 'org'; orgId: string }
  | { kind: 'key-revoked'; keyId: string }
  | { kind: 'key-changed'; keyId: string }
  /** The proof key was rotated: the cached signing keys are stale. */
  | { kind: 'signing-keys' }
  /** An organization's webhook endpoints changed: the cached list of its enabled ones is stale. */
  | { kind: 'webhooks'; orgId: string }
  /**
   * Not a cache to forget but news: an organization's events were committed (its event streams read
   * them now, server/areas/events/stream.ts). A stream that misses it reads them at its next poll.
   */
  | { kind: 'events'; orgId: string }
  | { kind: 'all' }

/**
 * Carries invalidations from the instance that made a change to every other instance sharing the
 * database. The instance that made the change applies it itself before publishing, so a bus only
 * delivers other instances' messages to `subscribe`rs, plus `{ kind: 'all' }` when it reconnects after
 * an outage during which messages may have been lost.
 */
export interface InvalidationBus {
  publish(message: Invalidation): void
  subscribe(listener: (message: Invalidation) => void): void
  /** Resolves when messages can be published and received now; rejects saying why (readiness checks). */
  ping(): Promise<void>
  close(): Promise<void>
}

/** One instance alone (the embedded SQLite server): there is no one else to tell. */
export const localInvalidationBus = (): InvalidationBus => ({
  publish() {},
  subscribe() {},
  ping: async () => {},
  close: async () => {},
})
