import { Redis } from 'ioredis'
import pg from 'pg'

/*
 * The storage a test runs on. Every HTTP test runs twice: over SQLite (the `sqlite` vitest project) and
 * over PostgreSQL with Redis (the `postgres` project, which sets RWA_TEST_DIALECT=postgres). Each test
 * gets a PostgreSQL database of its own, created here and dropped when it is done, and a Redis key
 * prefix of its own in the test logical database, whose keys it deletes.
 */

export type TestDialect = 'sqlite' | 'postgres'

export const TEST_DIALECT: TestDialect = process.env.RWA_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite'

/**
 * Throws when this module was loaded for the other project: a worker keeps its modules from file to
 * file (test/vitest.config.ts, `isolate: false`), so a worker shared by both projects would run the
 * PostgreSQL half over SQLite without a word. Vitest gives each project its own workers; this keeps it so.
 */
export function assertDialectOfProject(): void {
  const asked = process.env.RWA_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite'
  if (asked !== TEST_DIALECT) {
    throw new Error(`this worker loaded the test storage for ${TEST_DIALECT}, but its file asks for ${asked}`)
  }
}

/** A database on the test server that tests may connect to in order to create and drop their own. */
export const TEST_DATABASE_URL =
  process.env.RWA_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/** The Redis logical database the tests use (13), away from the default one. */
export const TEST_REDIS_URL = process.env.RWA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/13'

/**
 * What this run's databases and Redis keys start with. The run id (set by the vitest config for the
 * whole run) names them, so the run's global teardown finds whatever a crashed test left.
 */
const runId = () => process.env.RWA_TEST_RUN_ID ?? `r${process.pid}`
export const databaseNamePrefix = () => `rwa_t_${runId()}_`
export const redisPrefixOfRun = () => `rwa-test:${runId()}:`

let sequence = 0
const unique = () => `${process.pid}_${Date.now().toString(36)}_${sequence++}`

let adminPool: pg.Pool | undefined
/** Drops started and not yet awaited: a test does not wait for its database to be dropped. */
const pendingDrops = new Set<Promise<void>>()

/** This worker's connections for CREATE/DROP DATABASE. */
function admin(): pg.Pool {
  if (!adminPool) {
    adminPool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 3 })
    adminPool.on('error', () => {})
  }
  return adminPool
}

/** The URL of database `name` on the test server. */
export function databaseUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/**
 * The database every test database of this run is copied from: migrated once by the global setup, so
 * a test's database starts with the current schema without running the migrations again (tests that
 * are about migrating ask for an empty one).
 */
export const templateDatabaseName = () => `${databaseNamePrefix()}template`.toLowerCase()

export interface TestDatabase {
  name: string
  url: string
  /** Drops the database (ending whatever connections are still open on it) before the test file ends. */
  drop(): Promise<void>
}

/** A new PostgreSQL database: a copy of the migrated template, or `empty` (no schema at all). */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const name = `${databaseNamePrefix()}${unique()}`.toLowerCase()
  const template = options.empty ? 'template1' : templateDatabaseName()
  await admin().query(`create database "${name}" template "${template}"`)
  return {
    name,
    url: databaseUrl(name),
    async drop() {
      const dropping = admin()
        .query(`drop database if exists "${name}" with (force)`)
        .then(() => {})
      pendingDrops.add(dropping)
      dropping.finally(() => pendingDrops.delete(dropping)).catch(() => {})
    },
  }
}

export interface TestRedisPrefix {
  prefix: string
  /** Deletes every key under the prefix. */
  clean(): Promise<void>
}

/** A key prefix no other test uses, in the test logical database. */
export function createRedisPrefix(): TestRedisPrefix {
  const prefix = `${redisPrefixOfRun()}${unique()}:`
  return { prefix, clean: () => deleteRedisKeys(`${prefix}*`) }
}

/** Deletes the keys matching `pattern` in the test logical database. */
export async function deleteRedisKeys(pattern: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000)
      if (keys.length > 0) await redis.unlink(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}

/** Drops this run's databases that are left (a test that crashed before its cleanup). */
export async function dropDatabasesOfRun(): Promise<string[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    const { rows } = await client.query<{ datname: string }>(
      'select datname from pg_database where datname like $1',
      [`${databaseNamePrefix().toLowerCase().replaceAll('_', '\\_')}%`],
    )
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`)
    return rows.map((r) => r.datname)
  } finally {
    await client.end()
  }
}

/** Waits for this worker's pending drops and closes its admin connections (after each test file). */
export async function closeAdmin(): Promise<void> {
  await Promise.all(pendingDrops)
  const pool = adminPool
  adminPool = undefined
  await pool?.end()
}

/** Creates this run's template database with the current schema (the global setup). */
export async function createTemplateDatabase(migrate: (url: string) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    await client.query(`create database "${templateDatabaseName()}"`)
  } finally {
    await client.end()
  }
  await migrate(databaseUrl(templateDatabaseName()))
}
