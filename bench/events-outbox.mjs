#!/usr/bin/env node
// `node bench/events-outbox.mjs` (after `npm run build`): the events outbox's share of a transfer POST
// (DESIGN §20), as a ratio measured in the same run. The rwa server's CPU per POST
// /console/rwa/transfers (from /proc, over a run of transfers), against the CPU of that POST's outbox work run in this
// process on the same database with the server's own code: the write's transaction with
// `enqueueEvents` for its one change (`transfer.<status>`: the transfer as GET answers it, which the
// service hands over in its change, the event inserted, and a delivery to the one endpoint subscribed to
// transfers, the organization's enabled endpoints cached), minus the same transaction without it.
// Goal: at most 25 % more.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { median } from './lib/stats.mjs'
import {
  cpuPerCall,
  cpuPerTransferPost,
  distModule,
  silentLogger,
  startSeededRwa,
} from './lib/write-share.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const dist = (path) => distModule(ROOT, path)

const { values: flags } = parseArgs({
  options: { transfers: { type: 'string', default: '400' }, rounds: { type: 'string', default: '3' } },
})
const TRANSFERS = Number(flags.transfers)
const ROUNDS = Number(flags.rounds)

const { openDatabase } = await dist('server/db/database.js')
const { createAppContext } = await dist('server/context.js')
const { enqueueEvents } = await dist('server/events/outbox.js')
const { apiObjectOf } = await dist('server/events/objects.js')
const { MasterKey } = await dist('server/signing/master-key.js')
const { holdingConnection } = await dist('server/db/held-connection.js')

const dir = mkdtempSync(join(tmpdir(), 'rwa-bench-outbox-'))
const dbPath = join(dir, 'rwa.db')
try {
  const { server, org } = await startSeededRwa({ root: ROOT, dbPath })
  const perPost = await cpuPerTransferPost(server, org, { count: TRANSFERS, rounds: ROUNDS })
  await server.stop()

  const db = await openDatabase(dbPath)
  const ctx = createAppContext({ db, logger: silentLogger, masterKey: MasterKey.generate() })
  // One endpoint subscribed to transfers, so the outbox also queues a delivery (written here rather
  // than through the API, so that the server's worker attempts nothing during the measurement).
  await db
    .insertInto('webhook_endpoints')
    .values({
      webhook_id: 'wh_bench',
      org_id: 'bench',
      url: 'https://hooks.example.com/rwa',
      events: JSON.stringify(['transfer.*']),
      description: null,
      status: 'enabled',
      secret: 'whsec_YmVuY2g=',
      created_at: new Date().toISOString(),
      failing_since: null,
    })
    .execute()
  const transfer = await db
    .selectFrom('transfers')
    .select(['transfer_id', 'status'])
    .where('org_id', '=', 'bench')
    .orderBy('transfer_id', 'desc')
    .executeTakeFirstOrThrow()
  // The transfer as GET answers it, which the service records in its change (server/rwa/transfers/
  // record.ts): the outbox reads nothing back, and copies it with its proof's log position.
  const answered = await holdingConnection(() =>
    apiObjectOf(ctx, db, 'bench', { type: 'transfer', id: transfer.transfer_id }, undefined),
  )
  const change = {
    orgId: 'bench',
    action: `transfer.${transfer.status}`,
    target: { type: 'transfer', id: transfer.transfer_id },
    answer: (log_index) => ({ ...answered, proof: { ...answered.proof, log_index } }),
  }
  const cpuOf = (work) => cpuPerCall(work, TRANSFERS)
  // As the outbox did before (issue 27's hot path): the record read back, the endpoints queried.
  const { answer: _, ...readBackChange } = change
  const withOutbox = []
  const readBack = []
  const without = []
  for (let round = 0; round < ROUNDS; round++) {
    without.push(await cpuOf(() => holdingConnection(() => db.transaction().execute(async () => {}))))
    readBack.push(
      await cpuOf(() =>
        holdingConnection(() =>
          db.transaction().execute((trx) => {
            ctx.webhookEndpoints.forgetAll()
            return enqueueEvents(ctx, trx, { changes: [readBackChange], afterCommit: [] })
          }),
        ),
      ),
    )
    withOutbox.push(
      await cpuOf(() =>
        // Held, as a write is: the transfer's proof reads its log index through ctx.db.
        holdingConnection(() =>
          db.transaction().execute((trx) => enqueueEvents(ctx, trx, { changes: [change], afterCommit: [] })),
        ),
      ),
    )
  }
  const events = await db.selectFrom('events').select(db.fn.countAll().as('n')).executeTakeFirst()
  await db.destroy()
  const post = median(perPost)
  const cost = Math.max(0, median(withOutbox) - median(without))
  const share = cost / (post - cost)
  const oldCost = Math.max(0, median(readBack) - median(without))
  const rows = [
    ['transfer POST, server CPU', `${(post * 1e3).toFixed(3)} ms`, ''],
    [
      'outbox: its event and delivery (CPU)',
      `${(cost * 1e3).toFixed(3)} ms`,
      `+${(share * 100).toFixed(1)} % (goal ≤ 25 %)`,
    ],
    [
      'the same, reading the transfer back and querying endpoints (as before)',
      `${(oldCost * 1e3).toFixed(3)} ms`,
      `${(oldCost / Math.max(cost, 1e-9)).toFixed(2)}x the outbox's cost now`,
    ],
  ]
  for (const row of rows) console.log(row.join('\t'))
  console.log(`(${ROUNDS} rounds; ${TRANSFERS} transfers a round; ${Number(events.n)} events)`)
  if (share > 0.25) process.exitCode = 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
