// What a write costs, one request at a time, on a fresh rwa server (SQLite) seeded with one
// organization. Reports:
// (1) the server's CPU per request (user + system, from /proc) over N transfer POSTs and N credential
//     POSTs sent one after another — the load generator's and the machine's noise cannot queue up, so
//     this compares builds better than req/s on a busy machine (it includes the WAL checkpoints);
// (2) the WAL bytes the commits of N more transfers wrote — every page a commit touches is written
//     whole to the WAL — and what they added to the database file, per table and index (dbstat).
//
//   npm run build && node bench/write-bytes.mjs [N]      (default N = 1000)
//
// During (2) this process holds a read transaction open on its own connection, so no checkpoint can
// restart the WAL: its growth is exactly the frames the N commits wrote.

import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { cpuSeconds, startServer } from './lib/processes.mjs'
import { call, propertyData, SOURCE, seedGovernance, seedOrganization, transferBody } from './lib/seed.mjs'

const N = Number(process.argv[2] ?? 1000)
const WARMUP = 200
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
  const post = (path, body) => call(server.url, 'POST', path, { key: org.key, body })
  // One live credential per title deed (docs/verification.md, "One property, one live credential"):
  // the warm-up's and the measured credentials name deeds of their own.
  const credential = (i, run) => ({
    jurisdiction: SOURCE,
    owner_did: `did:web:${org.orgId}:holder-${i % 16}`,
    property_data: { ...propertyData(i), title_deed: `TD-BYTES-${run}-${i}` },
  })
  // Warm-up, not measured: the JIT compiles the paths first.
  for (let i = 0; i < WARMUP; i++) await post('/console/rwa/credentials', credential(i, 'warm'))
  for (let i = 0; i < WARMUP; i++) await post('/console/rwa/transfers', transferBody(org, 20 + i))
  let cpu = cpuSeconds(server.pid)
  for (let i = 0; i < N; i++) await post('/console/rwa/transfers', transferBody(org, 20 + WARMUP + i))
  const transferCpu = cpuSeconds(server.pid) - cpu
  cpu = cpuSeconds(server.pid)
  for (let i = 0; i < N; i++) await post('/console/rwa/credentials', credential(i, 'measured'))
  const credentialCpu = cpuSeconds(server.pid) - cpu
  const reader = new SQLite(file)
  reader.pragma('wal_checkpoint(TRUNCATE)')
  const before = sizes(reader)
  reader.prepare('begin').run()
  reader.prepare('select count(*) from transfers').get()
  for (let i = 20 + WARMUP + N; i < 20 + WARMUP + 2 * N; i++)
    await post('/console/rwa/transfers', transferBody(org, i))
  const wal = statSync(`${file}-wal`).size
  reader.prepare('commit').run()
  reader.close()
  await server.stop()
  server = undefined
  const db = new SQLite(file, { readonly: true })
  const after = sizes(db)
  db.close()

  const us = (seconds) => Math.round((seconds * 1e6) / N)
  console.log(
    `server CPU per request, one at a time: transfer POST ${us(transferCpu)} µs, credential POST ${us(credentialCpu)} µs`,
  )
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
