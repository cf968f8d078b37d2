#!/usr/bin/env node
// `node bench/events-outbox.mjs` (after `npm run build`): the events outbox's share of a transfer POST
// (DESIGN §20), as a ratio measured in the same run. The rwa server's CPU per POST
// /console/rwa/transfers (from /proc, over a run of transfers), against the CPU of that POST's outbox work run in this
// process on the same database with the server's own code: the write's transaction with
// `enqueueEvents` for its one change (`transfer.<status>`: the transfer read back as GET answers it, the
// event inserted, and a delivery to the one endpoint subscribed to transfers), minus the same
// transaction without it. Goal: at most 25 % more.
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
const { holdingConnection } = await dist('server/db/held-connection.js')

const dir = mkdtempSync(join(tmpdir(), 'rwa-bench-outbox-'))
const dbPath = join(dir, 'rwa.db')
try {
  const { server, org } = await startSeededRwa({ root: ROOT, dbPath })
  const perPost = await cpuPerTransferPost(server, org, { count: TRANSFERS, rounds: ROUNDS })
  await server.stop()

  const db = await openDatabase(dbPath)
  const ctx = createAppContext({ db, logger: silentLogger })
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
  const change = {
    orgId: 'bench',
    action: `transfer.${transfer.status}`,
    target: { type: 'transfer', id: transfer.transfer_id },
  }
  const cpuOf = (work) => cpuPerCall(work, TRANSFERS)
  const withOutbox = []
  const without = []
  for (let round = 0; round < ROUNDS; round++) {
    without.push(await cpuOf(() => holdingConnection(() => db.transaction().execute(async () => {}))))
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
  const rows = [
    ['transfer POST, server CPU', `${(post * 1e3).toFixed(3)} ms`, ''],
    [
      'outbox: its event and delivery (CPU)',
      `${(cost * 1e3).toFixed(3)} ms`,
      `+${(share * 100).toFixed(1)} % (goal ≤ 25 %)`,
    ],
  ]
  for (const row of rows) console.log(row.join('\t'))
  console.log(`(${ROUNDS} rounds; ${TRANSFERS} transfers a round; ${Number(events.n)} events)`)
  if (share > 0.25) process.exitCode = 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
