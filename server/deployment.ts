import { SHARED_CACHE_TTL_MS } from './platform/caches/auth-cache.js'
import type { ServerConfig } from './platform/config.js'
import type { AppContextOptions } from './pipeline/context.js'
import { type Db, openDatabase, openPostgres } from './platform/db/database.js'
import { databaseReadiness } from './platform/health/readiness.js'
import type { RedisStateListener } from './platform/redis/connection.js'
import { connectSharedState } from './platform/redis/shared-state.js'

/**
 * What a server runs on: the embedded SQLite file with its state in memory, or PostgreSQL shared with
 * other instances, with limits and cache invalidations shared through Redis.
 */
export interface Deployment {
  kind: 'sqlite' | 'postgres'
  db: Db
  /** The app-context pieces this deployment decides (none for SQLite: the in-memory defaults). */
  context: Pick<AppContextOptions, 'limits' | 'bus' | 'cacheTtlMs' | 'readinessChecks'>
  /** Closes Redis and the database (after the meter's last flush). */
  close(): Promise<void>
}

/**
 * Opens the storage the configuration names. With a database URL, both PostgreSQL and Redis must
 * answer at start (an UnreachableError names the one that does not); afterwards, losing Redis is
 * reported through `log` and never fails a request.
 */
export async function openDeployment(
  config: ServerConfig,
  log: (line: string, level?: 'info' | 'warn') => void,
  options: {
    onQueryError?: (error: unknown) => void
    /** Told when a Redis-backed piece loses Redis (`limit` or `invalidations`), for the error metric. */
    onRedisLost?: (operation: 'limit' | 'invalidations') => void
  } = {},
): Promise<Deployment> {
  if (config.databaseUrl === undefined) {
    const db = await openDatabase(config.db, options)
    const context = { readinessChecks: databaseReadiness(db, config.db) }
    return { kind: 'sqlite', db, context, close: () => db.destroy() }
  }
  const db = await openPostgres(config.databaseUrl, {
    onQueryError: options.onQueryError,
    onError: (error) => log(`postgres connection lost: ${error.message} (the pool reconnects)`, 'warn'),
  })
  try {
    const shared = await connectSharedState(config.redisUrl!, db, {
      prefix: config.redisPrefix,
      onState: (event) => {
        logRedisState(log)(event)
        if (event.state === 'lost')
          options.onRedisLost?.(event.component === 'limits' ? 'limit' : 'invalidations')
      },
    })
    return {
      kind: 'postgres',
      db,
      context: {
        limits: shared.limits,
        bus: shared.bus,
        cacheTtlMs: SHARED_CACHE_TTL_MS,
        // Redis is not among them: without it each instance limits in its own memory and still
        // answers, so it stays in rotation (the outage is logged; `limits.ping()` reports it).
        readinessChecks: databaseReadiness(db),
      },
      async close() {
        await shared.close()
        await db.destroy()
      },
    }
  } catch (error) {
    await db.destroy()
    throw error
  }
}

/** One log line when a Redis-backed piece loses Redis, and one when it has it back. */
export function logRedisState(log: (line: string, level?: 'info' | 'warn') => void): RedisStateListener {
  return ({ component, state, error }) => {
    const why = error instanceof Error ? ` (${error.message})` : ''
    // A loss is what an operator must see (at warn, so --log-level warn keeps it); the return is news.
    const level = state === 'lost' ? 'warn' : 'info'
    if (component === 'limits') {
      log(
        state === 'lost'
          ? `redis lost${why}: limiting in this instance's memory until it is back`
          : 'redis is back: limits are shared again',
        level,
      )
    } else {
      log(
        state === 'lost'
          ? `redis lost for invalidations${why}: changes made elsewhere reach this instance within ${SHARED_CACHE_TTL_MS / 1000} s until it is back`
          : 'redis is back for invalidations: cached keys and organizations forgotten',
        level,
      )
    }
  }
}
