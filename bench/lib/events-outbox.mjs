// The events outbox's share of a transfer POST (docs/webhooks.md, issue 27), as a ratio measured in the same
// run: the rwa server's CPU per POST /console/rwa/transfers (from /proc, over a run of transfers),
// against the CPU of that POST's outbox work run in this process on the same database with the server's
// own code: the write's transaction with `enqueueEvents` for its one change (`transfer.<status>`, with
// the answer the service hands over in its change, the event inserted, and a delivery to the one
// endpoint subscribed to transfers, the organization's enabled endpoints cached), minus the same
// transaction without it. Goal: at most 25 % more than without the outbox. Beside it, the same work as
// the outbox did before (the transfer read back as GET answers it, the endpoints queried each time).
import { join } from 'node:path'
import { median } from './stats.mjs'
import {
  cpuPerCall,
  distModule,
  measureWriteShare,
  ratioOf,
  shareRows,
  silentLogger,
  us,
} from './write-share.mjs'

/** The goal of issue 27: the outbox adds at most 25 % to a transfer POST's CPU. */
export const OUTBOX_GOALS = Object.freeze({ postShare: 0.25 })

/** CPU (seconds) per POST and per outbox call, per round. */
export async function transferPostOutboxCosts({ root, dbPath, transfers, rounds, core }) {
  const { createAppContext } = await distModule(root, 'server/pipeline/context.js')
  const { AGGREGATES } = await distModule(root, 'server/aggregates.js')
  const { enqueueEvents } = await distModule(root, 'server/pipeline/events/outbox.js')
  const { apiObjectOf } = await distModule(root, 'server/pipeline/events/objects.js')
  const { holdingConnection } = await distModule(root, 'server/platform/db/held-connection.js')
  const { MasterKey } = await distModule(root, 'server/platform/signing/master-key.js')
  return measureWriteShare({ root, dbPath, transfers, rounds, core }, async ({ db, org }) => {
    const ctx = createAppContext({
      db,
      aggregates: AGGREGATES,
      logger: silentLogger,
      masterKey: MasterKey.generate(),
    })
    // One endpoint subscribed to transfers, so the outbox also queues a delivery (written here rather
    // than through the API, so that the server's worker attempts nothing during the measurement).
    await db
      .insertInto('webhook_endpoints')
      .values({
        webhook_id: 'wh_bench',
        org_id: org.orgId,
        url: 'https://hooks.example.com/rwa',
        events: JSON.stringify(['transfer.*']),
        description: null,
        status: 'enabled',
        secret: 'not used: nothing is delivered',
        created_at: new Date().toISOString(),
        failing_since: null,
      })
      .execute()
    const transfer = await db
      .selectFrom('transfers')
      .select(['transfer_id', 'status'])
      .where('org_id', '=', org.orgId)
      .orderBy('transfer_id', 'desc')
      .executeTakeFirstOrThrow()
    // The transfer as GET answers it, which the service records in its change
    // (server/areas/rwa/transfers/record.ts): the outbox copies it with its log position.
    const answered = await holdingConnection(() =>
      apiObjectOf(ctx, db, org.orgId, { type: 'transfer', id: transfer.transfer_id }, undefined),
    )
    const change = {
      orgId: org.orgId,
      action: `transfer.${transfer.status}`,
      target: { type: 'transfer', id: transfer.transfer_id },
      answer: (log_index) => ({ ...answered, log_index, proof: { ...answered.proof, log_index } }),
    }
    const { answer: _, ...readBackChange } = change
    const enqueue = (c, before = () => {}) =>
      holdingConnection(() =>
        db.transaction().execute((trx) => {
          before()
          return enqueueEvents(
            ctx,
            trx,
            { changes: [c], afterCommit: [], appended: 0 },
            [c],
            [{ log_index: 1 }],
          )
        }),
      )
    // What the outbox wrote, counted: a measurement of a call that silently did nothing is refused.
    const written = async () => {
      const count = (table) =>
        db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('org_id', '=', org.orgId)
          .executeTakeFirstOrThrow()
          .then((row) => Number(row.n))
      return { events: await count('events'), deliveries: await count('webhook_deliveries') }
    }
    const start = await written()
    const bare = []
    const withOutbox = []
    const readBack = []
    for (let round = 0; round < rounds; round++) {
      bare.push(
        await cpuPerCall(() => holdingConnection(() => db.transaction().execute(async () => {})), transfers),
      )
      withOutbox.push(await cpuPerCall(() => enqueue(change), transfers))
      readBack.push(
        await cpuPerCall(() => enqueue(readBackChange, () => ctx.webhookEndpoints.forgetAll()), transfers),
      )
    }
    const end = await written()
    const expected = 2 * transfers * rounds
    for (const what of ['events', 'deliveries']) {
      if (end[what] - start[what] !== expected)
        throw new Error(`the outbox calls wrote ${end[what] - start[what]} ${what}, not ${expected}`)
    }
    return { bare, withOutbox, readBack }
  })
}

/** The figures as rows for bench/results/latest.json (as bench/lib/audit-log.mjs gives the log's). */
export async function runEventsOutbox({ root, work, core, transfers, rounds }) {
  const costs = await transferPostOutboxCosts({
    root,
    dbPath: join(work, 'outbox-post.db'),
    transfers,
    rounds,
    core,
  })
  const outbox = Math.max(0, median(costs.withOutbox) - median(costs.bare))
  const before = Math.max(0, median(costs.readBack) - median(costs.bare))
  return [
    ...shareRows({
      id: 'outbox',
      titles: {
        without: 'transfer POST without the events outbox (server CPU)',
        with: 'transfer POST with its event and delivery (server CPU)',
      },
      perPost: costs.perPost,
      piece: outbox,
      goal: 1 + OUTBOX_GOALS.postShare,
      extra: { outbox_us: us(outbox) },
    }),
    {
      id: 'outbox-read-back',
      title: 'the outbox reading the transfer back and querying endpoints, as before (CPU)',
      value: us(before),
      unit: 'µs',
      // Against the outbox's own cost now (`outbox_us` of outbox-post), not the POST's.
      times_the_outbox_now: ratioOf(before / Math.max(outbox, 1e-9)),
    },
  ]
}
