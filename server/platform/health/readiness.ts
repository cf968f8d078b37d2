import { statSync } from 'node:fs'
import type { ReadinessCheckResult } from '../../../src/contract/operations.js'
import type { Db } from '../db/database.js'
import { migrations } from '../db/migrations/index.js'
import { appliedMigrations, ping } from './queries.js'

/**
 * Thrown by a check with a reason fit for the public `/readyz` answer. Any other error is reported as
 * "did not answer" (its details go to the log, never to the caller).
 */
export class NotReadyError extends Error {}

/** One thing an instance needs before it takes traffic. */
export interface ReadinessCheck {
  /** `database`, `migrations`... as `/readyz` names it (Redis is not one: docs/operations.md, Probes). */
  readonly name: string
  /** Resolves when ready; rejects when not (a NotReadyError says why in public). */
  check(): Promise<void>
}

/** A check that has not answered by then is not ready: a balancer's probe must not hang. */
const CHECK_TIMEOUT_MS = 2000

/**
 * Whether this instance may take traffic: every check passes and the server is not shutting down.
 * `drain()` (on the first SIGTERM) makes every later evaluation answer `shutdown` at once, so a load
 * balancer stops sending requests before the listener closes.
 */
export class Readiness {
  private draining = false

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    /** Told why a check failed, with the details the public answer leaves out. */
    private readonly onFailure: (name: string, error: unknown) => void = () => {},
  ) {}

  /** From now on the instance is not ready; it keeps serving whatever still arrives. */
  drain(): void {
    this.draining = true
  }

  get isDraining(): boolean {
    return this.draining
  }

  /** Runs every check at once; each result says whether it passed, and why not. */
  async evaluate(): Promise<ReadinessCheckResult[]> {
    if (this.draining) return [{ name: 'shutdown', ready: false, detail: 'the server is shutting down' }]
    return Promise.all(this.checks.map((check) => this.run(check)))
  }

  private async run(check: ReadinessCheck): Promise<ReadinessCheckResult> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new NotReadyError(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`)),
        CHECK_TIMEOUT_MS,
      )
      timer.unref()
    })
    try {
      await Promise.race([check.check(), timeout])
      return { name: check.name, ready: true }
    } catch (error) {
      this.onFailure(check.name, error)
      const detail = error instanceof NotReadyError ? error.message : 'did not answer'
      return { name: check.name, ready: false, detail }
    } finally {
      clearTimeout(timer)
    }
  }
}

/**
 * The database answers a statement. Given the SQLite file's path, also that the file open is still
 * the one at that path: a deleted or replaced file (an unmounted volume, a restore gone wrong) keeps
 * answering from the open handle while every write is lost, so the instance must leave rotation.
 */
export function databaseCheck(db: Db, sqliteFile?: string): ReadinessCheck {
  const opened = sqliteFile === undefined || sqliteFile === ':memory:' ? undefined : identity(sqliteFile)
  return {
    name: 'database',
    async check() {
      if (opened) {
        const now = identity(sqliteFile!)
        if (!now) throw new NotReadyError('the database file is gone')
        if (now !== opened)
          throw new NotReadyError('the database file was replaced since the server opened it')
      }
      await ping(db)
    },
  }
}

/** Device and inode of a file, or undefined when it does not exist. */
function identity(path: string): string | undefined {
  const stat = statSync(path, { throwIfNoEntry: false })
  return stat ? `${stat.dev}:${stat.ino}` : undefined
}

/** Every migration this server knows is applied to the database. */
export function migrationsCheck(db: Db, known: readonly string[] = Object.keys(migrations)): ReadinessCheck {
  return {
    name: 'migrations',
    async check() {
      const applied = new Set(await appliedMigrations(db))
      const pending = known.filter((name) => !applied.has(name))
      if (pending.length > 0) throw new NotReadyError(`pending: ${pending.join(', ')}`)
    },
  }
}

/** The checks of a server over `db`: the database answers and its migrations are done. */
export const databaseReadiness = (db: Db, sqliteFile?: string): ReadinessCheck[] => [
  databaseCheck(db, sqliteFile),
  migrationsCheck(db),
]
