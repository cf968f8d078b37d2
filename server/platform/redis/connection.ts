import { Redis } from 'ioredis'
import { redactUrl } from '../db/database.js'
import { UnreachableError } from '../errors.js'

/** How long one Redis command may take before the caller stops waiting and falls back. */
export const REDIS_COMMAND_TIMEOUT_MS = 1000

/** What a Redis-backed piece reports when it loses Redis and when it has it back (logs, metrics). */
export type RedisStateListener = (event: {
  component: 'limits' | 'invalidations'
  state: 'lost' | 'back'
  error?: unknown
}) => void

/**
 * Connects to Redis at `url` and waits until it answers; fails with an UnreachableError naming the URL
 * (without its password) if it cannot. Afterwards the client reconnects by itself, forever; commands
 * sent while it is disconnected fail at once instead of queuing (the callers fall back), and a command
 * that gets no answer in REDIS_COMMAND_TIMEOUT_MS fails.
 */
export async function connectRedis(url: string, name: string): Promise<Redis> {
  const redis = new Redis(url, {
    connectionName: name,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 5000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  })
  // Without a listener ioredis prints every failed reconnection attempt; the pieces report outages.
  let lastError: Error | undefined
  redis.on('error', (error: Error) => {
    lastError = error
  })
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    redis.disconnect()
    // The socket's error (ECONNREFUSED ...) says more than the "Connection is closed" connect() rejects with.
    const why = (lastError ?? (error as Error)).message
    throw new UnreachableError(`Redis at ${redactUrl(url)} cannot be reached: ${why}`, { cause: error })
  }
  return redis
}

/** A PING that fails when Redis does not answer: the readiness check of a Redis-backed piece. */
export async function pingRedis(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') throw new Error(`Redis connection is ${redis.status}`)
  await redis.ping()
}
