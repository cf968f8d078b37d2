// What one piece of a write costs against the whole write, measured in the same run: the rwa server's
// CPU per transfer POST (from /proc, over a run of POSTs), and the CPU of that piece run in this process
// on the same database with the server's own code. Used by the verifiable log's figures
// (docs/governance.md, "The verifiable log", bench/audit-log.mjs) and the events outbox's (docs/webhooks.md,
// bench/events-outbox.mjs).
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { cpuSeconds, startServer } from './processes.mjs'
import { call, seedGovernance, seedOrganization, transferBody } from './seed.mjs'
import { median } from './stats.mjs'

/** Imports a module of the build (`dist/`), e.g. `distModule(root, 'server/platform/db/database.js')`. */
export const distModule = (root, path) => import(pathToFileURL(join(root, 'dist', path)).href)

/** A logger that drops everything, for an AppContext built in the bench process. */
export const silentLogger = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  child() {
    return this
  },
}

/**
 * Starts the rwa server (`bin/rwa` under `root`) on a new SQLite file `dbPath`, pinned to `core`, and
 * seeds organization `orgId` through the API: enterprise tier, one key, the bench governance data
 * (bench/lib/seed.mjs) with `supply` units and `transfers` transfers already made. Returns the server
 * (stop it when done) and the organization.
 */
export async function startSeededRwa({
  root,
  dbPath,
  orgId = 'bench',
  supply = 1_000_000,
  transfers = 20,
  core = 0,
  args = [],
}) {
  const server = await startServer({
    name: 'rwa',
    args: [
      join(root, 'bin/rwa'),
      ...['server', 'start', '--port', '0', '--db', dbPath, '--log-level', 'warn'],
      ...args,
    ],
    core,
  })
  try {
    const org = await seedOrganization(server.url, server.adminKey, orgId)
    await seedGovernance(server.url, org, { supply, transfers })
    return { server, org }
  } catch (error) {
    await server.stop()
    throw error
  }
}

/**
 * The server's CPU seconds per `POST /console/rwa/transfers`, one figure per round of `count` POSTs
 * made one after another (approved and rejected alternating, bench/lib/seed.mjs `transferBody`).
 */
export async function cpuPerTransferPost(server, org, { count, rounds }) {
  const perRound = []
  let made = 0
  for (let round = 0; round < rounds; round++) {
    const before = cpuSeconds(server.pid)
    for (let i = 0; i < count; i++) {
      await call(server.url, 'POST', '/console/rwa/transfers', {
        key: org.key,
        body: transferBody(org, made++),
      })
    }
    perRound.push((cpuSeconds(server.pid) - before) / count)
  }
  return perRound
}

/** This process's CPU seconds (user + system) per call of `work`, over `count` calls one after another. */
export async function cpuPerCall(work, count) {
  const start = process.cpuUsage()
  for (let i = 0; i < count; i++) await work(i)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1e6 / count
}

/**
 * The two halves of a share, on one database: the server's CPU per transfer POST (`perPost`, per
 * round of `transfers` POSTs: `startSeededRwa` on `dbPath`, then `cpuPerTransferPost`), then, once the
 * server has stopped, `measurePiece({ db, org })` in this process on the same file, opened with the
 * server's own code. Returns `{ perPost, ...what measurePiece returned }`.
 */
export async function measureWriteShare({ root, dbPath, transfers, rounds, core }, measurePiece) {
  const { server, org } = await startSeededRwa({ root, dbPath, core })
  let perPost
  try {
    perPost = await cpuPerTransferPost(server, org, { count: transfers, rounds })
  } finally {
    await server.stop()
  }
  const { openDatabase } = await distModule(root, 'server/platform/db/database.js')
  const db = await openDatabase(dbPath)
  try {
    return { perPost, ...(await measurePiece({ db, org })) }
  } finally {
    await db.destroy()
  }
}

/** Seconds as µs, to 0.1 µs: the unit of the rows. */
export const us = (seconds) => Math.round(seconds * 1e7) / 10

/** A ratio to three decimals, as the rows give it. */
export const ratioOf = (value) => Math.round(value * 1000) / 1000

/**
 * The rows of a piece's share of a transfer POST: `<id>-post-without`, the server's CPU per POST less
 * the piece's (`piece`, seconds per POST), and `<id>-post`, the median POST against it, its goal
 * `goal` (at most that ratio) and its rounds; `extra` adds fields to the second row.
 */
export function shareRows({ id, titles, perPost, piece, goal, extra = {} }) {
  const post = median(perPost)
  const without = post - piece
  return [
    { id: `${id}-post-without`, title: titles.without, value: us(without), unit: 'µs' },
    {
      id: `${id}-post`,
      title: titles.with,
      value: us(post),
      unit: 'µs',
      baseline: `${id}-post-without`,
      ratio: ratioOf(post / without),
      goal,
      goal_met: post / without <= goal,
      ...extra,
      rounds: perPost.map(us),
    },
  ]
}
