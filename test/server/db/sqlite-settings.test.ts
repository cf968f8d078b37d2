import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, WAL_AUTOCHECKPOINT_PAGES } from '../../../server/platform/db/database.js'
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

  it('copies the WAL back only past 10,000 pages, and what it holds is committed: reopened, every row is there', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'rwa-sqlite-settings-'))
    directories.push(directory)
    const path = join(directory, 'rwa.db')
    let db = await openDatabase(path)
    const walFrames = () => Math.floor((statSync(`${path}-wal`).size - 32) / (4096 + 24))
    try {
      expect(WAL_AUTOCHECKPOINT_PAGES).toBe(10_000)
      await sql`create table scratch (id integer primary key, v blob)`.execute(db)
      // 1,500 commits of a page each (a 3,000-byte row, its own leaf page most of the time): at SQLite's
      // default of 1,000 pages a checkpoint would have reset the WAL before it held them all.
      for (let row = 0; row < 1_500; row++)
        await sql`insert into scratch (v) values (randomblob(3000))`.execute(db)
      expect(walFrames()).toBeGreaterThan(1_500)
      expect(walFrames()).toBeLessThan(WAL_AUTOCHECKPOINT_PAGES)
    } finally {
      await db.destroy()
    }
    db = await openDatabase(path)
    try {
      const count = sql<{ n: number }>`select count(*) as n from scratch`
      expect((await count.execute(db)).rows[0]?.n).toBe(1_500)
    } finally {
      await db.destroy()
    }
  })
})
