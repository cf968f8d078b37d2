// Bytes written per transfer: POSTs N transfers through the API of a fresh rwa server (SQLite) and
// reports (1) the WAL bytes their commits wrote — every page a commit touches is written whole to the
// WAL — and (2) what they added to the database file, per table and index (SQLite's dbstat).
//
//   npm run build && node bench/write-bytes.mjs [N]      (default N = 1000)
//
// While the transfers run, this process holds a read transaction open on its own connection, so no
// checkpoint can restart the WAL: its growth is exactly the frames the N commits wrote.

import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { startServer } from './lib/processes.mjs'
import { call, seedGovernance, seedOrganization, transferBody } from './lib/seed.mjs'

const N = Number(process.argv[2] ?? 1000)
const RWA_BIN = new URL('../bin/rwa', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'rwa-write-bytes-'))
const file = join(dir, 'rwa.db')

/** Bytes (pages and payload) of every table and index, from dbstat. */
function sizes(db) {
  const rows = db
    .prepare('select name, sum(pgsize) as pages, sum(payload) as payload from dbstat group by name')
    .all()
  return new Map(rows.map((r) => [r.name, r]))
}

const start = () =>
  startServer({
    name: 'rwa',
    args: [RWA_BIN, 'server', 'start', '--port', '0', '--db', file],
    env: { NODE_ENV: 'production' },
  })

try {
  let server = await start()
  const org = await seedOrganization(server.url, server.adminKey, 'org_bytes')
  await seedGovernance(server.url, org, { supply: 1_000_000, transfers: 20 })
  const reader = new SQLite(file)
  reader.pragma('wal_checkpoint(TRUNCATE)')
  const before = sizes(reader)
  reader.prepare('begin').run()
  reader.prepare('select count(*) from transfers').get()
  for (let i = 20; i < 20 + N; i++) {
    await call(server.url, 'POST', '/console/rwa/transfers', { key: org.key, body: transferBody(org, i) })
  }
  const wal = statSync(`${file}-wal`).size
  reader.prepare('commit').run()
  reader.close()
  await server.stop()
  server = undefined
  const db = new SQLite(file, { readonly: true })
  const after = sizes(db)
  db.close()

  console.log(`${N} transfers through the API (approved and rejected alternating)`)
  console.log(`WAL written by their commits: ${wal} bytes, ${Math.round(wal / N)} bytes per transfer`)
  console.log('growth of the database file per transfer, by table/index (pages; payload):')
  let pages = 0
  let payload = 0
  for (const [name, a] of after) {
    const b = before.get(name) ?? { pages: 0, payload: 0 }
    const dp = (a.pages - b.pages) / N
    const dl = (a.payload - b.payload) / N
    if (dp === 0 && dl === 0) continue
    pages += dp
    payload += dl
    console.log(`  ${name.padEnd(36)} ${dp.toFixed(0).padStart(6)} ${dl.toFixed(0).padStart(6)}`)
  }
  console.log(`  ${'total'.padEnd(36)} ${pages.toFixed(0).padStart(6)} ${payload.toFixed(0).padStart(6)}`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
