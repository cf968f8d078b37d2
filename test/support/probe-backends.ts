import { Redis } from 'ioredis'
import pg from 'pg'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './backends.js'

/** Whether the PostgreSQL and Redis the `postgres` test project needs answer, and what failed if not. */
export async function probeBackends(): Promise<{ ok: true } | { ok: false; problem: string }> {
  const problems: string[] = []
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('select 1')
  } catch (error) {
    problems.push(`no PostgreSQL at ${TEST_DATABASE_URL} (${(error as Error).message})`)
  } finally {
    await client.end().catch(() => {})
  }
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  let redisError: Error | undefined
  redis.on('error', (error: Error) => {
    redisError = error
  })
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    problems.push(`no Redis at ${TEST_REDIS_URL} (${(redisError ?? (error as Error)).message})`)
  } finally {
    redis.disconnect()
  }
  return problems.length === 0 ? { ok: true } : { ok: false, problem: problems.join('; ') }
}
