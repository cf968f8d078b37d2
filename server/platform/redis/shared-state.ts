import type { Db } from '../db/database.js'
import { connectRedis, type RedisStateListener } from './connection.js'
import { RedisInvalidationBus } from './invalidation-bus.js'
import { RedisLimitStore } from './limit-store.js'

/** The state several instances share through Redis: the limits and the invalidation bus. */
export interface SharedState {
  limits: RedisLimitStore
  bus: RedisInvalidationBus
  /** Stops the store's probe and closes both Redis connections. */
  close(): Promise<void>
}

/**
 * Connects to Redis at `url` (two connections: commands, and the bus's subscription) and sets up the
 * shared limit store and invalidation bus, every key and channel under `prefix`. Fails with an
 * UnreachableError naming the URL when Redis does not answer.
 */
export async function connectSharedState(
  url: string,
  db: Db,
  options: { prefix: string; onState?: RedisStateListener },
): Promise<SharedState> {
  const commands = await connectRedis(url, 'rwa')
  let subscriber: Awaited<ReturnType<typeof connectRedis>>
  try {
    subscriber = await connectRedis(url, 'rwa-invalidations')
  } catch (error) {
    commands.disconnect()
    throw error
  }
  const limits = new RedisLimitStore(commands, db, options)
  const bus = new RedisInvalidationBus(commands, subscriber, options)
  await bus.start()
  return {
    limits,
    bus,
    async close() {
      await limits.close()
      await bus.close()
      commands.disconnect()
    },
  }
}
