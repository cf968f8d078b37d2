import { utcDate } from '../clock.js'
import type { Db } from '../db/database.js'
import { addUsage, setKeyLastUsed } from './queries.js'

/**
 * Counts requests per organization per UTC day and remembers each key's last use, in memory, and
 * writes both to the database in one transaction per flush (every second by default, and on
 * shutdown), so a request costs no database write of its own. A crash loses at most the counts and
 * last-use times of the last flush interval. Counts are added to what is stored, and a key's last use
 * only ever moves forward, so instances sharing the database never overwrite each other's.
 */
export class UsageMeter {
  private requests = new Map<string, { orgId: string; date: string; count: number }>()
  private lastUsed = new Map<string, number>()
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> = Promise.resolve()
  /** Requests taken out of `requests` by a flush that has not finished writing them. */
  private writing = 0

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void = (error) =>
      console.error('usage flush failed:', error),
    /** Told the duration of each flush that wrote something, and whether it succeeded (for metrics). */
    private readonly onFlush: (seconds: number, ok: boolean) => void = () => {},
  ) {}

  /** Requests counted and not yet stored: the backlog a crash would lose. */
  pendingRequests(): number {
    let pending = this.writing
    for (const entry of this.requests.values()) pending += entry.count
    return pending
  }

  /** Counts one admitted request (or `count`: a batch's operations) of `orgId` made with key `keyId` at `now`. */
  record(orgId: string, keyId: string, now: number, count = 1): void {
    const date = utcDate(now)
    const id = `${orgId}\u0000${date}`
    const entry = this.requests.get(id)
    if (entry) entry.count += count
    else this.requests.set(id, { orgId, date, count })
    this.lastUsed.set(keyId, now)
  }

  /** Flushes every `intervalMs` until `stop()`. The timer does not keep the process alive. */
  start(intervalMs = 1000): void {
    this.timer ??= setInterval(() => void this.flush(), intervalMs)
    this.timer.unref()
  }

  /** Stops the timer and writes what is pending. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.flush()
  }

  /** Writes what is pending; flushes never overlap. Resolves once everything recorded so far is stored. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write())
    return this.flushing
  }

  private async write(): Promise<void> {
    if (this.requests.size === 0 && this.lastUsed.size === 0) return
    const requests = this.requests
    const lastUsed = this.lastUsed
    this.requests = new Map()
    this.lastUsed = new Map()
    for (const entry of requests.values()) this.writing += entry.count
    const started = performance.now()
    try {
      // Rows are written in one order (organization and date, then key id) by every instance, so two
      // instances' flushes wait for each other instead of deadlocking.
      const usage = [...requests.values()].sort(
        (a, b) => compare(a.orgId, b.orgId) || compare(a.date, b.date),
      )
      const keys = [...lastUsed].sort(([a], [b]) => compare(a, b))
      await this.db.transaction().execute(async (trx) => {
        for (const { orgId, date, count } of usage) await addUsage(trx, orgId, date, 'request_count', count)
        for (const [keyId, at] of keys) await setKeyLastUsed(trx, keyId, at)
      })
      this.onFlush((performance.now() - started) / 1000, true)
    } catch (error) {
      this.onFlush((performance.now() - started) / 1000, false)
      // Put the counts back so the next flush retries them.
      for (const [id, entry] of requests) {
        const pending = this.requests.get(id)
        if (pending) pending.count += entry.count
        else this.requests.set(id, entry)
      }
      for (const [keyId, at] of lastUsed) if (!this.lastUsed.has(keyId)) this.lastUsed.set(keyId, at)
      this.onError(error)
    } finally {
      this.writing = 0
    }
  }
}

/** Code-unit order, the order of the database's keys (not the locale's). */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
