import SQLite from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliHome } from '../support/cli.js'
import { createServerStorage, type ServerProcess, startServerProcess } from '../support/server-process.js'

/*
 * A server that cannot use its database answers 503 `database_unavailable` (README.md, "Errors"), and the CLI
 * says so as what it is: a service out of reach (exit 7), to retry later, never a bug "to report". The
 * real CLI against a real server process whose SQLite file another process holds locked past the
 * server's busy timeout (5 s).
 */

const home = cliHome()
let server: ServerProcess
beforeAll(async () => {
  server = await startServerProcess({ storage: await createServerStorage('sqlite') })
})
afterAll(async () => {
  await server?.cleanup()
  home.cleanup()
})

describe('the CLI when the server has lost its database', () => {
  it('exits 7 on 503 database_unavailable, saying to retry, and works again once the database is back', async () => {
    const env = { RWA_URL: server.url, RWA_API_KEY: server.adminKey }
    const args = ['keys', 'create', '--org', 'acme', '--name', 'during-the-lock']
    const other = new SQLite(server.storage.dbPath!)
    try {
      other.exec('BEGIN EXCLUSIVE')
      const refused = await home.run(args, { env, timeout: 30_000 })
      expect(refused.exitCode, refused.stderr).toBe(7)
      expect(refused.stderr).toMatch(/database/i)
      expect(refused.stderr).not.toMatch(/report it/)
      expect(refused.stdout).toBe('')
    } finally {
      other.exec('ROLLBACK')
      other.close()
    }
    const retried = await home.run(args, { env })
    expect(retried.exitCode, retried.stderr).toBe(0)
  }, 60_000)
})
