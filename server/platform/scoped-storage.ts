import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * An `AsyncLocalStorage` whose cost is paid only while one of its scopes runs. On Node 20 a storage
 * that ran once keeps async_hooks' init and promise hooks on for the rest of the process: every promise
 * and every native resource anyone creates afterwards (a socket write, a file write) calls them, though
 * most requests never enter a scope. That was 20 % of the CPU of `GET /console/billing/pricing`
 * (docs/performance.md, "The request path, issue 41"). Here the storage is disabled again once its
 * last running scope has settled, and enabled by the next `run`.
 *
 * What a scope's flow reads (`getStore`) is the same as with a plain storage while the scope runs.
 * Work a scope started and left running after the scope settled reads no store once the storage is
 * disabled, where a plain storage would give it the scope's (a write already committed, a connection
 * already released): no caller here reads it then.
 */
export class ScopedStorage<T> {
  private readonly storage = new AsyncLocalStorage<T>()
  private running = 0

  getStore(): T | undefined {
    return this.storage.getStore()
  }

  /** Runs `fn` with `store` as the store of its flow, until the promise it returns settles. */
  async run<R>(store: T, fn: () => Promise<R>): Promise<R> {
    this.running++
    try {
      return await this.storage.run(store, fn)
    } finally {
      if (--this.running === 0) this.storage.disable()
    }
  }

  /** Runs `fn` (its synchronous part, and what it awaits) with no store. */
  exit<R>(fn: () => R): R {
    return this.storage.exit(fn)
  }

  /** Whether the storage is enabled: one of its scopes is running (for tests). */
  get active(): boolean {
    return this.running > 0
  }
}
