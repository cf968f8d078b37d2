import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../support/backends.js'
import { cliHome } from '../support/cli.js'
import { freePort } from '../support/redis-server.js'

/* `rwa server start` over PostgreSQL refuses to start, naming what is missing or unreachable. */

const home = cliHome()
// Past the configuration's checks, so the start gets as far as the backend that is missing.
const masterKey = { RWA_MASTER_KEY: randomBytes(32).toString('base64url') }
afterAll(() => home.cleanup())
let database: TestDatabase | undefined
afterEach(async () => {
  await database?.drop()
  database = undefined
})

describe('rwa server start over PostgreSQL', () => {
  it('without a Redis URL: exit 2 naming RWA_REDIS_URL', async () => {
    const run = await home.run(['server', 'start', '--port', '0'], {
      env: { RWA_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' },
    })
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/RWA_REDIS_URL \(--redis-url\): required with RWA_DATABASE_URL/)
  })

  it('without a master key: exit 2 naming RWA_MASTER_KEY and --master-key-file, before anything is created', async () => {
    database = await createTestDatabase({ empty: true })
    const run = await home.run([
      'server',
      'start',
      '--port',
      '0',
      '--database-url',
      database.url,
      '--redis-url',
      TEST_REDIS_URL,
    ])
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/RWA_MASTER_KEY: required with RWA_DATABASE_URL \(or --master-key-file FILE\)/)
    // Refused by the configuration: the database was not even migrated.
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      const { rows } = await client.query(
        `select count(*)::int as n from information_schema.tables where table_schema = 'public'`,
      )
      expect(rows).toEqual([{ n: 0 }])
    } finally {
      await client.end()
    }
  })

  it('a master key that is not 32 bytes of base64url: exit 2 naming the variable, never its value', async () => {
    const run = await home.run(
      [
        'server',
        'start',
        '--port',
        '0',
        '--database-url',
        'postgres://postgres@127.0.0.1:5432/postgres',
        '--redis-url',
        TEST_REDIS_URL,
      ],
      {
        env: { RWA_MASTER_KEY: 'hunter2-not-a-key' },
      },
    )
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/RWA_MASTER_KEY: expected 32 bytes as 43 base64url characters/)
    expect(run.stderr).not.toContain('hunter2')
  })

  it('with --db too: exit 2, a usage error', async () => {
    const run = await home.run([
      'server',
      'start',
      '--db',
      'x.db',
      '--database-url',
      'postgres://postgres@127.0.0.1:5432/postgres',
      '--redis-url',
      TEST_REDIS_URL,
    ])
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/--db \(RWA_DB\) is "x\.db"/)
  })

  it('Redis unreachable: exit 7 naming its URL, and nothing left running', async () => {
    database = await createTestDatabase({ empty: true })
    const redisUrl = `redis://127.0.0.1:${await freePort()}`
    const run = await home.run(
      ['server', 'start', '--port', '0', '--database-url', database.url, '--redis-url', redisUrl],
      { env: masterKey },
    )
    expect(run.exitCode).toBe(7)
    expect(run.stderr).toContain(`Redis at ${redisUrl}`)
    expect(run.stderr).toMatch(/cannot be reached: connect ECONNREFUSED/)
    // The hint is about Redis, not about creating a PostgreSQL database.
    expect(run.stderr).toMatch(/^hint: check that Redis runs/m)
    expect(run.stderr).not.toMatch(/createdb/)
  })

  it('PostgreSQL unreachable or its database missing: exit 7 naming the URL without its password', async () => {
    const port = await freePort()
    const down = await home.run(
      [
        'server',
        'start',
        '--port',
        '0',
        '--database-url',
        `postgres://rwa:hunter2@127.0.0.1:${port}/rwa`,
        '--redis-url',
        TEST_REDIS_URL,
      ],
      { env: masterKey },
    )
    expect(down.exitCode).toBe(7)
    expect(down.stderr).toContain(`PostgreSQL at postgres://rwa:***@127.0.0.1:${port}/rwa cannot be reached`)
    expect(down.stderr).not.toContain('hunter2')
    const missing = await home.run(
      [
        'server',
        'start',
        '--port',
        '0',
        '--database-url',
        'postgres://postgres@127.0.0.1:5432/rwa_no_such_database',
        '--redis-url',
        TEST_REDIS_URL,
      ],
      { env: masterKey },
    )
    expect(missing.exitCode).toBe(7)
    expect(missing.stderr).toMatch(/database "rwa_no_such_database" does not exist/)
  })
})
