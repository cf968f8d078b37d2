/**
 * A change that process-local caches must forget: an organization's plan (trial, tier, subscription,
 * payment answers) or a revoked key.
 */
export type Invalidation = { kind: 'org'; orgId: string } | { kind: 'key-revoked'; keyId: string }

/**
 * Carries invalidations from the instance that made a change to every other instance sharing the
 * database. The instance that made the change applies it itself before publishing, so a bus only
 * delivers other instances' messages to `subscribe`rs.
 */
export interface InvalidationBus {
  publish(message: Invalidation): void
  subscribe(listener: (message: Invalidation) => void): void
  close(): Promise<void>
}

/** One instance alone (the embedded SQLite server): there is no one else to tell. */
export const localInvalidationBus = (): InvalidationBus => ({
  publish() {},
  subscribe() {},
  close: async () => {},
})
