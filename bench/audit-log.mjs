#!/usr/bin/env node
// `node bench/audit-log.mjs` (after `npm run build`): the verifiable log's costs (DESIGN §17), each as
// a ratio measured in the same run. See docs/performance.md, "The verifiable log".
//
// 1. Its share of a transfer POST: the rwa server's CPU per POST /console/rwa/transfers (from /proc,
//    over a run of transfers), against the CPU of the log's append of that POST's audit events, run
//    in this process on the same database with the server's own code (the write's transaction with the
//    append, minus the same transaction without it). Goal: at most 15 % more than without the log.
//    The audit event's own insert the same way (the transaction with it, minus an empty one).
// 2. Inclusion proofs flat: the time of an inclusion proof (its nodes read in one query, the proof and
//    the root computed) at 1k and 1M entries, the trees built directly in the storage. Goal: 1M/1k at
//    most 1.3.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import Database from 'better-sqlite3'
import { median } from './lib/stats.mjs'
import { cpuPerCall, cpuPerTransferPost, distModule, startSeededRwa } from './lib/write-share.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const dist = (path) => distModule(ROOT, path)

const { values: flags } = parseArgs({
  options: {
    transfers: { type: 'string', default: '400' },
    sizes: { type: 'string', default: '1000,1000000' },
    proofs: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
  },
})
const TRANSFERS = Number(flags.transfers)
const SIZES = flags.sizes.split(',').map(Number)
const PROOFS = Number(flags.proofs)
const ROUNDS = Number(flags.rounds)

const { openDatabase } = await dist('server/db/database.js')
const { appendToAuditLog } = await dist('server/audit-log/append.js')
const { insertAuditEvents } = await dist('server/audit/queries.js')
const { readLogNodes } = await dist('server/audit-log/queries.js')
const merkle = await dist('src/tlog/merkle.js')

const dir = mkdtempSync(join(tmpdir(), 'rwa-bench-log-'))
const dbPath = join(dir, 'rwa.db')
try {
  // ── 1. The log's share of a transfer POST ────────────────────────────────────────────────────────
  const { server, org } = await startSeededRwa({ root: ROOT, dbPath })
  const perPost = await cpuPerTransferPost(server, org, { count: TRANSFERS, rounds: ROUNDS })
  await server.stop()

  const db = await openDatabase(dbPath)
  const sample = await db
    .selectFrom('audit_events')
    .selectAll()
    .where('org_id', '=', 'bench')
    .where('action', 'like', 'transfer.%')
    .orderBy('event_id', 'desc')
    .executeTakeFirst()
  const total = await db.selectFrom('audit_events').select(db.fn.countAll().as('n')).executeTakeFirst()
  const eventsPerPost = 1 // a transfer POST records one change: its decision (transfer.<status>)
  let serial = 0
  const event = () => {
    const { log_index: _l, ...row } = sample
    serial += 1
    return { ...row, event_id: `aud_bench${String(serial).padStart(9, '0')}`, request_id: `bench-${serial}` }
  }
  const cpuOf = (work) => cpuPerCall(work, TRANSFERS)
  const withLog = []
  const withoutLog = []
  // The write's transaction alone: what is left of the audit event's cost once it is taken away.
  const bare = []
  for (let round = 0; round < ROUNDS; round++) {
    bare.push(await cpuOf(() => db.transaction().execute(async () => {})))
    withoutLog.push(
      await cpuOf(() =>
        db.transaction().execute(async (trx) => {
          await insertAuditEvents(trx, [event()])
        }),
      ),
    )
    withLog.push(
      await cpuOf(() =>
        db.transaction().execute(async (trx) => {
          const events = [event()]
          await appendToAuditLog(trx, events)
          await insertAuditEvents(trx, events)
        }),
      ),
    )
  }
  await db.destroy()
  const post = median(perPost)
  const logCost = Math.max(0, median(withLog) - median(withoutLog)) * eventsPerPost
  const auditCost = Math.max(0, median(withoutLog) - median(bare)) * eventsPerPost
  const share = logCost / (post - logCost)

  // ── 2. Inclusion proofs at 1k and 1M entries ─────────────────────────────────────────────────────
  const sqlite = new Database(dbPath)
  const insertNode = sqlite.prepare(
    'INSERT INTO audit_log_nodes (org_id, level, idx, hash) VALUES (?, ?, ?, ?)',
  )
  const insertLog = sqlite.prepare(
    'INSERT INTO audit_logs (org_id, size, root, frontier) VALUES (?, ?, ?, ?)',
  )
  for (const size of SIZES) {
    const orgId = `size-${size}`
    const started = Date.now()
    let frontier = []
    const batch = sqlite.transaction((from, to) => {
      for (let i = from; i < to; i++) {
        const leaf = merkle.hashLeaf(createHash('sha256').update(`${orgId} ${i}`).digest())
        const step = merkle.appendToFrontier(i, frontier, leaf)
        frontier = step.frontier
        for (const n of step.completed) insertNode.run(orgId, n.level, n.index, n.hash.toString('hex'))
      }
    })
    for (let from = 0; from < size; from += 50_000) batch(from, Math.min(size, from + 50_000))
    insertLog.run(
      orgId,
      size,
      merkle.rootOfFrontier(frontier).toString('hex'),
      frontier.map((h) => h.toString('hex')).join(','),
    )
    console.error(`built a log of ${size} entries in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
  sqlite.close()

  const proofDb = await openDatabase(dbPath)
  const proofTime = {}
  for (const size of SIZES) proofTime[size] = []
  // The service's computation (server/audit-log/service.ts, withNodes): the nodes a proof needs, read
  // in one query, then the proof and the root.
  const prove = async (orgId, index, size) => {
    const compute = (read) => ({
      leaf: read(0, index),
      proof: merkle.inclusionProof(index, size, read),
      root: merkle.treeRoot(size, read),
    })
    const rows = await readLogNodes(proofDb, orgId, merkle.nodesNeeded(compute))
    const { leaf, proof, root } = compute(
      merkle.readerOf(rows.map((r) => ({ level: r.level, index: r.idx, hash: Buffer.from(r.hash, 'hex') }))),
    )
    merkle.verifyInclusion(index, size, leaf, proof, root)
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of SIZES) {
      const start = process.hrtime.bigint()
      for (let i = 0; i < PROOFS; i++) await prove(`size-${size}`, (i * 7919) % size, size)
      proofTime[size].push(Number(process.hrtime.bigint() - start) / 1e3 / PROOFS)
    }
  }
  await proofDb.destroy()

  const small = SIZES[0]
  const large = SIZES.at(-1)
  const flat = median(proofTime[large]) / median(proofTime[small])
  const rows = [
    ['transfer POST, server CPU', `${(post * 1e3).toFixed(3)} ms`, ''],
    [
      'log append of its event (CPU)',
      `${(logCost * 1e3).toFixed(3)} ms`,
      `+${(share * 100).toFixed(1)} % (goal ≤ 15 %)`,
    ],
    [
      'audit event insert of its event (CPU)',
      `${(auditCost * 1e3).toFixed(3)} ms`,
      `+${((auditCost / (post - auditCost - logCost)) * 100).toFixed(1)} % (DESIGN §16, no goal)`,
    ],
    ...SIZES.map((size) => [
      `inclusion proof at ${size} entries`,
      `${median(proofTime[size]).toFixed(1)} µs`,
      '',
    ]),
    [`inclusion proof ${large}/${small}`, flat.toFixed(2), 'goal ≤ 1.3'],
  ]
  for (const row of rows) console.log(row.join('\t'))
  console.log(
    `(${ROUNDS} rounds; ${TRANSFERS} transfers a round; ${PROOFS} proofs a size and round; ${Number(total.n)} audit events)`,
  )
  if (share > 0.15 || flat > 1.3) process.exitCode = 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
