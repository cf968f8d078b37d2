// The PostgreSQL + Redis deployment the bench's postgres scenarios run on: a database of its own on
// the PostgreSQL server (created for the run, dropped after it), and a Redis key prefix of its own
// (its keys deleted after it).
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import pg from 'pg'

/** A database the bench may connect to in order to create and drop its own. */
export const BENCH_DATABASE_URL =
  process.env.RWA_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
/** The Redis logical database the bench uses (14), away from the default and the tests' (13). */
export const BENCH_REDIS_URL = process.env.RWA_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14'

/** Whether PostgreSQL and Redis answer; what failed if not. */
export async function probe() {
  const problems = []
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('select 1')
  } catch (error) {
    problems.push(`no PostgreSQL at ${BENCH_DATABASE_URL} (${error.message})`)
  } finally {
    await client.end().catch(() => {})
  }
  const redis = new Redis(BENCH_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  let redisError
  redis.on('error', (error) => {
    redisError = error
  })
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    problems.push(`no Redis at ${BENCH_REDIS_URL} (${(redisError ?? error).message})`)
  } finally {
    redis.disconnect()
  }
  return problems.length === 0 ? { ok: true } : { ok: false, problem: problems.join('; ') }
}

/** A new empty database and Redis prefix for one run, and how to remove both. */
export async function createDeployment() {
  const id = randomBytes(4).toString('hex')
  const name = `rwa_bench_${id}`
  const admin = new pg.Client({ connectionString: BENCH_DATABASE_URL })
  await admin.connect()
  try {
    await admin.query(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(BENCH_DATABASE_URL)
  url.pathname = `/${name}`
  const prefix = `rwa-bench:${id}:`
  return {
    databaseUrl: url.toString(),
    redisUrl: BENCH_REDIS_URL,
    prefix,
    async remove() {
      const client = new pg.Client({ connectionString: BENCH_DATABASE_URL })
      await client.connect()
      try {
        await client.query(`drop database if exists "${name}" with (force)`)
      } finally {
        await client.end()
      }
      const redis = new Redis(BENCH_REDIS_URL, { maxRetriesPerRequest: 1 })
      redis.on('error', () => {})
      try {
        let cursor = '0'
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
          if (keys.length > 0) await redis.unlink(...keys)
          cursor = next
        } while (cursor !== '0')
      } finally {
        redis.disconnect()
      }
    },
  }
}
