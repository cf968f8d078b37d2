import { describe, expect, it } from 'vitest'
import { loadServerConfig } from '../../server/platform/config.js'

const MASTER_KEY = Buffer.alloc(32, 7).toString('base64url')

describe('loadServerConfig', () => {
  it('defaults to 127.0.0.1:4600 over ./rwa.db with the local payment provider', () => {
    expect(loadServerConfig({}, {})).toMatchObject({
      host: '127.0.0.1',
      port: 4600,
      db: 'rwa.db',
      paymentProvider: 'local',
    })
  })

  it('takes RWA_* variables, and flags over variables', () => {
    const env = { RWA_HOST: '0.0.0.0', RWA_PORT: '8080', RWA_DB: '/tmp/x.db' }
    expect(loadServerConfig({}, env)).toMatchObject({ host: '0.0.0.0', port: 8080, db: '/tmp/x.db' })
    expect(loadServerConfig({ port: '9090' }, env).port).toBe(9090)
  })

  it('names the variable at fault', () => {
    expect(() => loadServerConfig({}, { RWA_PORT: 'eighty' })).toThrow(/RWA_PORT/)
    expect(() => loadServerConfig({}, { RWA_PORT: '70000' })).toThrow(/RWA_PORT/)
    expect(() => loadServerConfig({}, { RWA_ADMIN_KEY: 'secret' })).toThrow(/RWA_ADMIN_KEY/)
  })

  it('quotes the value at fault, and says where it came from: the variable, or the flag', () => {
    const port = /: expected a port number, a whole number from 0 to 65535$/
    for (const value of ['eighty', '70000', '-1', '4600x', '80.5']) {
      expect(() => loadServerConfig({}, { RWA_PORT: value }), value).toThrow(
        new RegExp(`^invalid configuration: RWA_PORT \\(--port\\) is "${value}"${port.source}`),
      )
    }
    expect(() => loadServerConfig({ port: 'abc' }, { RWA_PORT: '8080' })).toThrow(
      /^invalid configuration: --port \(RWA_PORT\) is "abc": expected a port number/,
    )
    expect(() => loadServerConfig({}, { RWA_METRICS_PORT: 'x' })).toThrow(
      /RWA_METRICS_PORT \(--metrics-port\) is "x": expected a port number/,
    )
    expect(() => loadServerConfig({}, { RWA_LOG_LEVEL: 'loud' })).toThrow(/RWA_LOG_LEVEL[^:]* is "loud": /)
    // A secret is named, never shown.
    const refusal = (flags: Record<string, string>, env: Record<string, string>) => {
      try {
        loadServerConfig(flags, env)
      } catch (error) {
        return (error as Error).message
      }
      throw new Error('not refused')
    }
    expect(refusal({}, { RWA_ADMIN_KEY: 'hunter2hunter2' })).not.toContain('hunter2')
    expect(refusal({}, { RWA_MASTER_KEY: 'hunter2hunter2' })).not.toContain('hunter2')
    expect(
      refusal({}, { RWA_DATABASE_URL: 'mysql://rwa:hunter2@db/rwa', RWA_REDIS_URL: 'redis://c' }),
    ).not.toContain('hunter2')
  })

  it('takes a PostgreSQL database URL with a Redis URL, a master key, and the Redis key prefix', () => {
    const env = {
      RWA_DATABASE_URL: 'postgres://rwa:secret@db:5432/rwa',
      RWA_REDIS_URL: 'redis://cache:6379/2',
      RWA_REDIS_PREFIX: 'blue:',
      RWA_MASTER_KEY: MASTER_KEY,
    }
    expect(loadServerConfig({}, env)).toMatchObject({
      databaseUrl: 'postgres://rwa:secret@db:5432/rwa',
      redisUrl: 'redis://cache:6379/2',
      redisPrefix: 'blue:',
      masterKey: MASTER_KEY,
    })
    expect(
      loadServerConfig(
        {
          databaseUrl: 'postgresql://db/rwa',
          redisUrl: 'rediss://cache',
          masterKeyFile: '/etc/rwa/master-key',
        },
        {},
      ),
    ).toMatchObject({
      databaseUrl: 'postgresql://db/rwa',
      redisUrl: 'rediss://cache',
      redisPrefix: 'rwa:',
      masterKeyFile: '/etc/rwa/master-key',
    })
  })

  it('requires a master key with a database URL (RWA_MASTER_KEY or --master-key-file), one of the two, well formed', () => {
    const pg = { RWA_DATABASE_URL: 'postgres://db/rwa', RWA_REDIS_URL: 'redis://cache' }
    expect(() => loadServerConfig({}, pg)).toThrow(
      /RWA_MASTER_KEY: required with RWA_DATABASE_URL \(or --master-key-file FILE\)/,
    )
    expect(() => loadServerConfig({ masterKeyFile: 'k' }, { ...pg, RWA_MASTER_KEY: MASTER_KEY })).toThrow(
      /--master-key-file \(RWA_MASTER_KEY_FILE\) is "k": names a master key file while RWA_MASTER_KEY gives the key/,
    )
    const short = 'c2hvcnQ'
    let message = ''
    try {
      loadServerConfig({}, { ...pg, RWA_MASTER_KEY: short })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/RWA_MASTER_KEY: expected 32 bytes as 43 base64url characters/)
    expect(message).not.toContain(short)
    // SQLite needs none: the start creates <db>.master-key.
    expect(loadServerConfig({}, {}).masterKey).toBeUndefined()
  })

  it('says what a database URL must be when it is another database (mysql://), not just "Invalid URL"', () => {
    const env = { RWA_DATABASE_URL: 'mysql://rwa@db:3306/rwa', RWA_REDIS_URL: 'redis://cache' }
    expect(() => loadServerConfig({}, env)).toThrow(
      /RWA_DATABASE_URL \(--database-url\): must be a PostgreSQL URL, postgres:\/\/user:password@host:5432\/name \(only PostgreSQL, or SQLite with --db, is supported\)/,
    )
  })

  it('requires RWA_REDIS_URL with a database URL, naming it', () => {
    expect(() => loadServerConfig({}, { RWA_DATABASE_URL: 'postgres://db/rwa' })).toThrow(
      /RWA_REDIS_URL \(--redis-url\): required with RWA_DATABASE_URL/,
    )
  })

  it('refuses --db together with a database URL, and a Redis URL without one', () => {
    const both = { RWA_DATABASE_URL: 'postgres://db/rwa', RWA_REDIS_URL: 'redis://cache' }
    expect(() => loadServerConfig({ db: 'x.db' }, both)).toThrow(
      /--db \(RWA_DB\) is "x\.db": names a SQLite file/,
    )
    expect(() => loadServerConfig({}, { ...both, RWA_DB: 'x.db' })).toThrow(/RWA_DB/)
    expect(() => loadServerConfig({}, { RWA_REDIS_URL: 'redis://cache' })).toThrow(
      /RWA_REDIS_URL \(--redis-url\): is used only with RWA_DATABASE_URL/,
    )
  })

  it('takes --public-rate-limit as RATE/BURST or off, and names it when malformed', () => {
    expect(loadServerConfig({}, {}).publicRateLimit).toEqual({ perSecond: 20, burst: 100 })
    expect(loadServerConfig({ publicRateLimit: '5/50' }, {}).publicRateLimit).toEqual({
      perSecond: 5,
      burst: 50,
    })
    expect(loadServerConfig({}, { RWA_PUBLIC_RATE_LIMIT: '0.5/3' }).publicRateLimit).toEqual({
      perSecond: 0.5,
      burst: 3,
    })
    expect(loadServerConfig({ publicRateLimit: 'off' }, {}).publicRateLimit).toBeNull()
    expect(loadServerConfig({}, { RWA_PUBLIC_RATE_LIMIT: '0' }).publicRateLimit).toBeNull()
    for (const bad of ['20', '20/', '0/100', '20/0', '20/1.5', '-1/5', 'unlimited']) {
      expect(() => loadServerConfig({ publicRateLimit: bad }, {}), bad).toThrow(
        `--public-rate-limit (RWA_PUBLIC_RATE_LIMIT) is "${bad}": expected RATE/BURST, requests per second and the most at once, e.g. 20/100`,
      )
    }
    expect(loadServerConfig({ trustProxy: '1' }, {}).trustProxy).toBe(1)
    expect(() => loadServerConfig({}, { RWA_TRUST_PROXY: 'yes' })).toThrow(
      /RWA_TRUST_PROXY \(--trust-proxy\)/,
    )
  })

  it('names a malformed URL', () => {
    expect(() =>
      loadServerConfig({}, { RWA_DATABASE_URL: 'mysql://db/rwa', RWA_REDIS_URL: 'redis://c' }),
    ).toThrow(/RWA_DATABASE_URL \(--database-url\)/)
    expect(() =>
      loadServerConfig({}, { RWA_DATABASE_URL: 'postgres://db/rwa', RWA_REDIS_URL: 'http://c' }),
    ).toThrow(/RWA_REDIS_URL \(--redis-url\)/)
    expect(() => loadServerConfig({}, { RWA_REDIS_PREFIX: 'a b' })).toThrow(/RWA_REDIS_PREFIX/)
  })
})

describe('SERVER_SETTINGS (what `rwa server start --help` lists)', () => {
  it('has every setting of the configuration, each with its own RWA_* variable', async () => {
    const { serverConfigSchema } = await import('../../server/platform/config.js')
    const { SERVER_SETTINGS } = await import('../../src/contract/server-settings.js')
    expect(SERVER_SETTINGS.map((s) => s.field).sort()).toEqual(Object.keys(serverConfigSchema.shape).sort())
    const envs = SERVER_SETTINGS.map((s) => s.env)
    expect(new Set(envs).size).toBe(envs.length)
    for (const env of envs) expect(env).toMatch(/^RWA_[A-Z_]+$/)
    // `rwa server start` hands each flag to the setting of the same name: commander's attribute
    // name of the flag (`--database-url` → databaseUrl) must be the field.
    for (const setting of SERVER_SETTINGS.filter((s) => s.flag)) {
      const attribute = setting
        .flag!.split(' ')[0]!
        .slice(2)
        .replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
      expect(attribute, setting.flag).toBe(setting.field)
    }
  })

  it('shows the defaults the configuration really applies', async () => {
    const { SERVER_SETTINGS } = await import('../../src/contract/server-settings.js')
    const applied = { ...loadServerConfig({}, {}) } as Record<string, unknown>
    // The one setting parsed into an object: shown as it is written.
    const { perSecond, burst } = loadServerConfig({}, {}).publicRateLimit!
    applied.publicRateLimit = `${perSecond}/${burst}`
    for (const setting of SERVER_SETTINGS) {
      if (applied[setting.field] !== undefined)
        expect(setting.default, setting.field).toBe(String(applied[setting.field]))
    }
  })

  it('reads each variable the table names', async () => {
    const { SERVER_SETTINGS } = await import('../../src/contract/server-settings.js')
    const host = SERVER_SETTINGS.find((s) => s.field === 'host')!
    expect(loadServerConfig({}, { [host.env]: '0.0.0.0' }).host).toBe('0.0.0.0')
  })
})
