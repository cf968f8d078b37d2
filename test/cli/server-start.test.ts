import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { SERVER_SETTINGS } from '../../src/contract/server-settings.js'
import { sqliteStorageAt, startServerProcess } from '../support/server-process.js'
import { cliHome, startSandbox } from '../support/cli.js'

/* `rwa server start` and `rwa sandbox` as a CI pipeline runs them. */

vi.setConfig({ testTimeout: 120_000 })

const home = cliHome()
const dir = mkdtempSync(join(tmpdir(), 'rwa-start-'))
afterAll(() => {
  home.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

/** Holds a port on 127.0.0.1 until closed. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as AddressInfo).port, server }
}

describe('rwa server start', () => {
  it('on a busy port fails before creating anything; a later start on a free port prints a working admin key', async () => {
    mkdirSync(join(dir, 'busy'))
    const dbPath = join(dir, 'busy', 'rwa.db')
    const { port, server } = await holdPort()
    try {
      const busy = await home.run(['server', 'start', '--port', String(port), '--db', dbPath])
      expect(busy.exitCode).not.toBe(0)
      expect(busy.stderr).toMatch(
        new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use; nothing was started or created`),
      )
      expect(busy.stderr).toMatch(/^hint: .*--port 0/m)
      expect(busy.stderr).not.toMatch(/admin API key/)
      expect(existsSync(dbPath)).toBe(false)
    } finally {
      server.close()
    }

    const started = await startServerProcess({ storage: sqliteStorageAt(dbPath) })
    try {
      expect(started.adminKey).toMatch(/^rwa_live_/)
      const keys = await home.run(['keys', 'list', '--json'], {
        env: { RWA_URL: started.url, RWA_API_KEY: started.adminKey },
      })
      expect(keys.exitCode, keys.stderr).toBe(0)
      expect(JSON.parse(keys.stdout).keys[0].org_id).toBe('admin')
    } finally {
      await started.stop()
    }
  })

  it('says so when RWA_ADMIN_KEY is ignored on an existing database, and not when it is the admin key', async () => {
    mkdirSync(join(dir, 'preset'))
    const dbPath = join(dir, 'preset', 'rwa.db')
    const preset = `rwa_live_${'p'.repeat(43)}`
    const first = await startServerProcess({ storage: sqliteStorageAt(dbPath), adminKey: preset })
    await first.stop()
    expect(first.stderr()).not.toMatch(/admin API key|RWA_ADMIN_KEY/)

    const same = await startServerProcess({ storage: sqliteStorageAt(dbPath), adminKey: preset })
    await same.stop()
    expect(same.stderr()).not.toMatch(/RWA_ADMIN_KEY is ignored/)

    const other = await startServerProcess({
      storage: sqliteStorageAt(dbPath),
      adminKey: `rwa_live_${'q'.repeat(43)}`,
    })
    await other.stop()
    expect(other.stderr()).toContain(
      `RWA_ADMIN_KEY is ignored: the database ${dbPath} already has an admin key (RWA_ADMIN_KEY applies only to a new database)`,
    )
    // At warn, so that --log-level warn keeps it.
    const line = other
      .stderr()
      .split('\n')
      .find((l) => l.includes('RWA_ADMIN_KEY is ignored'))!
    expect(JSON.parse(line).level).toBe('warn')
  })

  it('refuses --db in a directory that does not exist (exit 2, naming it) and creates nothing', async () => {
    const typo = join(dir, 'no-such-dir', 'rwa.db')
    const run = await home.run(['server', 'start', '--port', '0', '--db', typo])
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toContain(
      `the directory ${join(dir, 'no-such-dir')} of the database ${typo} does not exist`,
    )
    expect(run.stderr).toMatch(/^hint: .*mkdir -p/m)
    expect(run.stderr).not.toMatch(/admin API key/)
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false)
  })

  it('creates the database, its -wal and its -shm readable by their owner alone (0600), and narrows an existing one', async () => {
    mkdirSync(join(dir, 'modes'))
    const dbPath = join(dir, 'modes', 'rwa.db')
    const started = await startServerProcess({ storage: sqliteStorageAt(dbPath) })
    try {
      const files = readdirSync(join(dir, 'modes')).filter((f) => f.startsWith('rwa.db'))
      expect(files).toEqual(
        expect.arrayContaining(['rwa.db', 'rwa.db-wal', 'rwa.db-shm', 'rwa.db.master-key']),
      )
      for (const f of files) expect((statSync(join(dir, 'modes', f)).mode & 0o777).toString(8), f).toBe('600')
    } finally {
      await started.stop()
    }
    const { chmodSync } = await import('node:fs')
    chmodSync(dbPath, 0o644)
    const again = await startServerProcess({ storage: sqliteStorageAt(dbPath) })
    await again.stop()
    expect((statSync(dbPath).mode & 0o777).toString(8)).toBe('600')
  })

  it('a database it cannot open is named in the error', async () => {
    const notSqlite = join(dir, 'not-sqlite.db')
    writeFileSync(notSqlite, 'this is not a database, just text that is long enough to be read')
    const run = await home.run(['server', 'start', '--port', '0', '--db', notSqlite])
    expect(run.exitCode).toBe(1)
    expect(run.stderr).toContain(`error: cannot open the database ${notSqlite}: file is not a database`)
    expect(run.stderr).toMatch(/^hint: .*--db \/ RWA_DB/m)
  })

  it('--help lists every flag and every RWA_* variable, with its default', async () => {
    const help = await home.run(['server', 'start', '--help'])
    expect(help.exitCode).toBe(0)
    // Commander wraps descriptions at the width: compare with the line breaks taken out.
    const text = help.stdout.replace(/\s+/g, ' ')
    for (const setting of SERVER_SETTINGS) {
      expect(text, setting.env).toContain(setting.env)
      if (setting.flag) expect(text).toContain(setting.flag)
      if (setting.default)
        expect(text, setting.env).toContain(`default${setting.flag ? ' ' : ': '}${setting.default}`)
    }
  })
})

describe('rwa sandbox', () => {
  it('honours RWA_PORT and RWA_DB, and shows each default once in --help', async () => {
    const help = await home.run(['sandbox', '--help'])
    expect(help.stdout).not.toMatch(/\(default: "/)
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/--port <port> [^-]*env RWA_PORT, default 4600/)

    const dbPath = join(dir, 'sandbox-env.db')
    const { child, info } = await startSandbox(home, [], { RWA_PORT: '0', RWA_DB: dbPath })
    try {
      expect(info).toMatchObject({ db: dbPath, temporary: false })
      expect(info.url).not.toMatch(/:4600$/)
      child.kill('SIGTERM')
      expect((await child).exitCode).toBe(0)
      // Not temporary: it stays.
      expect(existsSync(dbPath)).toBe(true)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})
