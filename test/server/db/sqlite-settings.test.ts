import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../../../server/platform/db/database.js'
import { holdingConnection } from '../../../server/platform/db/held-connection.js'

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** The temporary files SQLite has open in this process (it unlinks them as it opens them). */
const sqliteTempFiles = (): string[] =>
  readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`)
      } catch {
        return ''
      }
    })
    .filter((target) => target.includes('etilqs_'))

describe('the SQLite database as the server opens it', () => {
  it.runIf(process.platform === 'linux')(
    'journals savepoints in memory: a write whose savepoints change many pages opens no temporary file',
    async () => {
      const directory = mkdtempSync(join(tmpdir(), 'rwa-sqlite-settings-'))
      directories.push(directory)
      const db = await openDatabase(join(directory, 'rwa.db'))
      try {
        await sql`create table scratch (id integer primary key, v blob)`.execute(db)
        for (let row = 0; row < 400; row++)
          await sql`insert into scratch (v) values (zeroblob(2000))`.execute(db)
        const open = await holdingConnection(() =>
          db.transaction().execute(async () => {
            // A batch's shape: one write, a savepoint per operation, each changing existing pages (a
            // savepoint keeps the original of each page it changes), 2 KB a row: over 64 KB each.
            for (let op = 0; op < 4; op++) {
              await db.transaction().execute(async () => {
                await sql`update scratch set v = randomblob(2000) where id % 4 = ${op}`.execute(db)
              })
            }
            return sqliteTempFiles()
          }),
        )
        expect(open).toEqual([])
        // Every update was kept, each savepoint released into the write.
        const changed = sql<{ n: number }>`select count(*) as n from scratch where v <> zeroblob(2000)`
        expect((await changed.execute(db)).rows[0]?.n).toBe(400)
      } finally {
        await db.destroy()
      }
    },
  )
})
