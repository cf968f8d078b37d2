import { AsyncLocalStorage } from 'node:async_hooks'

/*
 * Every ScopedStorage is a slot of one AsyncLocalStorage. On Node 20 each enabled storage's hook runs
 * for every promise the process makes (its store copied onto the promise), so a write, which ran inside
 * three storages (its scope, its held connection, its round of outside work), paid three copies on each
 * of its ~190 promises; one storage whose store holds all three slots pays one (docs/performance.md,
 * "Tenth pass: one storage for the three scopes").
 */
const shared = new AsyncLocalStorage<readonly unknown[]>()
let slots = 0
/** Scopes of any slot running now: the storage is disabled when the last one settles. */
let running = 0

/**
 * An `AsyncLocalStorage` whose cost is paid only while one of its scopes runs. On Node 20 a storage
 * that ran once keeps async_hooks' init and promise hooks on for the rest of the process: every promise
 * and every native resource anyone creates afterwards (a socket write, a file write) calls them, though
 * most requests never enter a scope. That was 20 % of the CPU of `GET /console/billing/pricing`
 * (docs/performance.md, "The request path, issue 41"). Here the storage is disabled again once the last
 * running scope of every ScopedStorage has settled, and enabled by the next `run`.
 *
 * What a scope's flow reads (`getStore`) is the same as with a plain storage of its own while the scope
 * runs, whatever scopes of other ScopedStorages it runs inside or starts. Work a scope started and left
 * running after the scope settled reads the scope's stores while a scope of any slot runs, as with a
 * plain storage, and none once no scope runs (a write already committed, a connection already
 * released): no caller here reads them then. What runs after a write (its `afterCommit` callbacks,
 * the webhook worker they wake) starts after the write's scope has returned, and a limit's event leaves
 * the write and its connection (`exit`) before it writes.
 */
export class ScopedStorage<T> {
  private readonly slot = slots++
  private runningHere = 0

  getStore(): T | undefined {
    return shared.getStore()?.[this.slot] as T | undefined
  }

  /** Runs `fn` with `store` as the store of its flow, until the promise it returns settles. */
  async run<R>(store: T, fn: () => Promise<R>): Promise<R> {
    const stores = shared.getStore()?.slice() ?? []
    stores[this.slot] = store
    running++
    this.runningHere++
    try {
      return await shared.run(stores, fn)
    } finally {
      this.runningHere--
      if (--running === 0) shared.disable()
    }
  }

  /** Runs `fn` (its synchronous part, and what it awaits) with no store of this slot. */
  exit<R>(fn: () => R): R {
    const current = shared.getStore()
    if (current?.[this.slot] === undefined) return fn()
    const stores = current.slice()
    stores[this.slot] = undefined
    return shared.run(stores, fn)
  }

  /** Whether one of this storage's scopes is running (for tests). */
  get active(): boolean {
    return this.runningHere > 0
  }

  /**
   * Whether the one storage under every ScopedStorage is enabled, its hooks on (for tests: Node 20's
   * AsyncLocalStorage keeps it in its `enabled` field).
   */
  static get enabled(): boolean {
    return (shared as unknown as { enabled: boolean }).enabled
  }
}
