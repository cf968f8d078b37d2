// The verifiable log's figures (docs/governance.md, "The verifiable log", issue 25), each a ratio measured in
// the same run:
//
// 1. Its share of a transfer POST: the rwa server's CPU per POST /console/rwa/transfers (from /proc,
//    over a run of transfers), against the CPU of the log's append of that POST's audit event, run in
//    this process on the same database with the server's own code (the write's transaction with the
//    append, minus the same transaction without it). Goal: at most 15 % more than without the log.
//    The audit event's own insert the same way (the transaction with it, minus an empty one).
// 2. Inclusion proofs flat: the CPU of the server's own inclusion-proof call (`getLogInclusionProof`:
//    the committed log row, the nodes the proof needs in one query, the proof and the root) at a small
//    and a large log, both built directly in the SQLite file. Goal: large/small at most 1.3.
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import Database from 'better-sqlite3'
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

/** Goals of issue 25. */
export const LOG_GOALS = Object.freeze({ postShare: 0.15, proofRatio: 1.3 })

/**
 * Writes the log of `size` entries of organization `orgId` straight into the SQLite file: every
 * complete subtree's node (2·size rows), every complete tile's row and the log row, as appends would
 * have left them. Its leaves
 * hash made-up entries: a proof reads nodes, never the events. A million entries take a minute or so.
 */
export async function buildLog(root, dbPath, orgId, size) {
  const merkle = await distModule(root, 'src/tlog/merkle.js')
  const tiles = await distModule(root, 'server/platform/audit-log/tiles.js')
  const sqlite = new Database(dbPath)
  try {
    const insertNode = sqlite.prepare(
      'INSERT INTO audit_log_nodes (org_id, level, idx, hash) VALUES (?, ?, ?, ?)',
    )
    const insertTile = sqlite.prepare('INSERT INTO audit_log_tiles (org_id, tile, hashes) VALUES (?, ?, ?)')
    let frontier = []
    let tileNodes = []
    const batch = sqlite.transaction((from, to) => {
      for (let i = from; i < to; i++) {
        const leaf = merkle.hashLeaf(createHash('sha256').update(`${orgId} ${i}`).digest())
        const step = merkle.appendToFrontier(i, frontier, leaf)
        frontier = step.frontier
        for (const n of step.completed) {
          insertNode.run(orgId, n.level, n.index, n.hash)
          // A level-8 node completes its tile, as an append stores it (server/pipeline/audit-log/append.ts).
          if (n.level < tiles.TILE_LEVELS) tileNodes.push({ level: n.level, idx: n.index, hash: n.hash })
          else if (n.level === tiles.TILE_LEVELS) {
            insertTile.run(orgId, n.index, tiles.packTile(n.index, tileNodes))
            tileNodes = []
          }
        }
      }
    })
    for (let from = 0; from < size; from += 50_000) batch(from, Math.min(size, from + 50_000))
    sqlite
      .prepare('INSERT INTO audit_logs (org_id, size, root, frontier) VALUES (?, ?, ?, ?)')
      .run(
        orgId,
        size,
        merkle.rootOfFrontier(frontier).toString('hex'),
        frontier.map((h) => h.toString('hex')).join(','),
      )
  } finally {
    sqlite.close()
  }
}

/** The organization a log of `size` entries is built under. */
export const logOrgOf = (size) => `log-${size}`

/** How many proofs of one size are measured before the next size's turn. */
const PROOF_CHUNK = 25
/** Proofs of each size made, unmeasured, before the measured ones. */
const PROOF_WARM_UP = 2000

/**
 * CPU per inclusion proof (seconds), per size and round, through the server's own service call on
 * `dbPath`, where `buildLog` made each size's log. The sizes take turns within a round, every
 * `PROOF_CHUNK` proofs; each proof is of a different leaf, spread over the whole log, and is verified
 * (outside the measured calls). A first unmeasured pass warms both sizes alike.
 */
export async function inclusionProofCosts({ root, dbPath, sizes, proofs, rounds }) {
  const { openDatabase } = await distModule(root, 'server/platform/db/database.js')
  const { createAppContext } = await distModule(root, 'server/pipeline/context.js')
  const { AGGREGATES } = await distModule(root, 'server/aggregates.js')
  const { getLogInclusionProof } = await distModule(root, 'server/areas/audit-log/service.js')
  const merkle = await distModule(root, 'src/tlog/merkle.js')
  const db = await openDatabase(dbPath)
  const ctx = createAppContext({ db, aggregates: AGGREGATES, logger: silentLogger })
  const admin = { keyId: 'bench', orgId: 'admin', roles: ['owner'], isAdmin: true }
  const leafOf = (size, i) => (i * 7919 + 13) % size
  const costs = Object.fromEntries(sizes.map((size) => [size, []]))
  try {
    // Unmeasured first, so neither size pays for the code's first runs (compilation, prepared
    // statements). As many as the full bench measures: after 200, V8 was still optimizing on its own
    // threads, whose CPU counts in the process's, during the quick bench's few hundred measured proofs.
    for (const size of sizes) {
      for (let i = 0; i < PROOF_WARM_UP; i++) {
        await getLogInclusionProof(ctx, admin, {
          org_id: logOrgOf(size),
          // Other leaves than the measured ones, so that no cache holds a measured proof's nodes yet.
          index: leafOf(size, proofs + i),
          tree_size: size,
        })
      }
    }
    for (let round = 0; round < rounds; round++) {
      const chunks = Object.fromEntries(sizes.map((size) => [size, []]))
      // The sizes take turns every PROOF_CHUNK proofs (each turn in the other order than the last), so
      // that warm-up and the machine's load weigh on every size alike, and a round's figure is the
      // median chunk, so that one garbage collection does not decide it. Measured as one block of
      // proofs per size, the quick bench's single round put the ratio anywhere from 0.63 to 1.87.
      for (let from = 0, turn = 0; from < proofs; from += PROOF_CHUNK, turn++) {
        const count = Math.min(PROOF_CHUNK, proofs - from)
        for (const size of turn % 2 === 0 ? sizes : [...sizes].reverse()) {
          const answers = []
          const query = (i) => ({ org_id: logOrgOf(size), index: leafOf(size, from + i), tree_size: size })
          chunks[size].push(
            await cpuPerCall(async (i) => {
              answers.push(await getLogInclusionProof(ctx, admin, query(i)))
            }, count),
          )
          for (const a of answers) {
            const b = (s) => Buffer.from(s, 'base64')
            merkle.verifyInclusion(a.index, a.tree_size, b(a.leaf_hash), a.proof.map(b), b(a.root_hash))
          }
        }
      }
      for (const size of sizes) costs[size].push(median(chunks[size]))
    }
  } finally {
    await db.destroy()
  }
  return costs
}

/**
 * The log's cost on a transfer POST: the server's CPU per POST over `rounds` runs of `transfers`, then
 * in this process the append of one such POST's event in the write's transaction, against the same
 * transaction without it. Seconds per POST or event, per round.
 */
export async function transferPostLogCosts({ root, dbPath, transfers, rounds, core }) {
  const { appendToAuditLog } = await distModule(root, 'server/pipeline/audit-log/append.js')
  const { insertAuditEvents } = await distModule(root, 'server/pipeline/audit/queries.js')
  return measureWriteShare({ root, dbPath, transfers, rounds, core }, async ({ db, org }) => {
    // A transfer POST records one change, its decision (transfer.<status>): its latest event stands for it.
    const sample = await db
      .selectFrom('audit_events')
      .selectAll()
      .where('org_id', '=', org.orgId)
      .where('action', 'like', 'transfer.%')
      .orderBy('event_id', 'desc')
      .executeTakeFirstOrThrow()
    let serial = 0
    const event = () => {
      const { log_index: _l, ...row } = sample
      serial += 1
      return {
        ...row,
        event_id: `aud_bench${String(serial).padStart(9, '0')}`,
        request_id: `bench-${serial}`,
      }
    }
    const bare = []
    const withoutLog = []
    const withLog = []
    for (let round = 0; round < rounds; round++) {
      // The write's transaction alone: what is left of the audit event's cost once it is taken away.
      bare.push(await cpuPerCall(() => db.transaction().execute(async () => {}), transfers))
      withoutLog.push(
        await cpuPerCall(
          () => db.transaction().execute((trx) => insertAuditEvents(trx, [event()])),
          transfers,
        ),
      )
      withLog.push(
        await cpuPerCall(
          () =>
            db.transaction().execute(async (trx) => {
              const events = [event()]
              // The append, before the answer is made (it gives the transfer's log_index).
              await appendToAuditLog(trx, events)
              await insertAuditEvents(trx, events)
            }),
          transfers,
        ),
      )
    }
    return { bare, withoutLog, withLog }
  })
}

/**
 * Both figures, as rows for bench/results/latest.json: `{ id, title, value, unit, baseline?, ratio?,
 * goal?, goal_met? }`, the ratios taken from medians over the rounds. `work` is a directory for the
 * SQLite files; `sizes` the small and large log; `core` the server's.
 */
export async function runAuditLog({ root, work, core, transfers, rounds, sizes, proofs, log = () => {} }) {
  const postDb = join(work, 'log-post.db')
  const post = await transferPostLogCosts({ root, dbPath: postDb, transfers, rounds, core })
  const proofDb = join(work, 'log-proofs.db')
  const { openDatabase } = await distModule(root, 'server/platform/db/database.js')
  await (await openDatabase(proofDb)).destroy() // creates the schema
  for (const size of sizes) {
    const started = Date.now()
    await buildLog(root, proofDb, logOrgOf(size), size)
    log(`log: built a log of ${size} entries in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
  const proofCosts = await inclusionProofCosts({ root, dbPath: proofDb, sizes, proofs, rounds })

  const append = Math.max(0, median(post.withLog) - median(post.withoutLog))
  const insert = Math.max(0, median(post.withoutLog) - median(post.bare))
  const small = sizes[0]
  const large = sizes.at(-1)
  const proofRatio = median(proofCosts[large]) / median(proofCosts[small])
  return [
    ...shareRows({
      id: 'log',
      titles: {
        without: 'transfer POST without the log append (server CPU)',
        with: 'transfer POST with the log append (server CPU)',
      },
      perPost: post.perPost,
      piece: append,
      goal: 1 + LOG_GOALS.postShare,
      extra: { append_us: us(append), audit_insert_us: us(insert) },
    }),
    ...sizes.map((size) => ({
      id: `log-inclusion-${size}`,
      title: `inclusion proof at ${size.toLocaleString('en')} entries (CPU)`,
      value: us(median(proofCosts[size])),
      unit: 'µs',
      rounds: proofCosts[size].map(us),
      ...(size === large && large !== small
        ? {
            baseline: `log-inclusion-${small}`,
            ratio: ratioOf(proofRatio),
            goal: LOG_GOALS.proofRatio,
            goal_met: proofRatio <= LOG_GOALS.proofRatio,
          }
        : {}),
    })),
  ]
}
