#!/usr/bin/env node
// `node bench/read-inprocess.mjs --before OTHER [--after .] [--path jurisdiction|pricing|list]`: the CPU
// per request of two builds' apps (OTHER/dist and this checkout's dist) in one process, without HTTP:
// each app over its own fresh SQLite file, seeded through its own API, then batches of requests
// (`app.request`) alternating between the two builds, so that a shared machine's load, which moves
// from one second to the next, weighs on both alike. What it leaves out is the socket and Node's HTTP
// parser, the same for both builds; what it measures is the app's own path (routing, observation,
// authentication, limits, the route). Log lines go to a file per build, as JSON, as the server writes them.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { SOURCE, seedGovernance, seedOrganization } from './lib/seed.mjs'
import { median } from './lib/stats.mjs'

const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: '.' },
    path: { type: 'string', default: 'jurisdiction' },
    batches: { type: 'string', default: '40' },
    batch: { type: 'string', default: '500' },
    orgs: { type: 'string', default: '8' },
  },
})
if (!flags.before) throw new Error('--before PATH (a built checkout) is required')
const work = mkdtempSync(join(tmpdir(), 'rwa-read-inprocess-'))
const apps = {}
const realFetch = globalThis.fetch
// The seeding helpers call fetch(url): `http://<build>/...` goes to that build's app in process.
globalThis.fetch = (url, init) => {
  const app = apps[new URL(url).host]
  return app ? app.request(String(url), init) : realFetch(url, init)
}
try {
  const sides = {}
  for (const name of ['before', 'after']) {
    const dist = resolve(name === 'before' ? flags.before : flags.after, 'dist/server')
    const { createApp } = await import(`${dist}/app.js`)
    const { createAppContext } = await import(`${dist}/pipeline/context.js`)
    const { AGGREGATES } = await import(`${dist}/aggregates.js`)
    const { openDatabase, migrate } = await import(`${dist}/platform/db/database.js`)
    const { MasterKey } = await import(`${dist}/platform/signing/master-key.js`)
    const { ensureAdminKey } = await import(`${dist}/bootstrap.js`)
    const { jsonLogger } = await import(`${dist}/platform/logging/logger.js`)
    const { ServerMetrics } = await import(`${dist}/platform/metrics/metrics.js`)
    const { default: pino } = await import('pino')
    const db = await openDatabase(join(work, `${name}.db`))
    await migrate(db)
    const logger = jsonLogger({ destination: pino.destination({ dest: join(work, `${name}.log`), sync: false }) })
    const ctx = createAppContext({
      db,
      aggregates: AGGREGATES,
      masterKey: MasterKey.generate(),
      logger,
      metrics: new ServerMetrics({ processMetrics: true }),
      publicRateLimit: null,
    })
    ctx.meter.start()
    apps[name] = createApp(ctx)
    const adminKey = (await ensureAdminKey(ctx)).printable
    const url = `http://${name}`
    const orgs = []
    for (let i = 0; i < Number(flags.orgs); i++) orgs.push(await seedOrganization(url, adminKey, `ip-${i}`))
    for (const org of orgs) await seedGovernance(url, org, { supply: 1000, transfers: flags.path === 'list' ? 50 : 2 })
    sides[name] = { app: apps[name], orgs }
  }
  const pathOf = {
    jurisdiction: `/console/rwa/jurisdictions/${SOURCE}`,
    pricing: '/console/billing/pricing',
    list: '/console/rwa/transfers?limit=50',
  }[flags.path]
  const batch = Number(flags.batch)
  const runBatch = async ({ app, orgs }) => {
    const t0 = process.cpuUsage()
    for (let i = 0; i < batch; i++) {
      const res = await app.request(`http://x${pathOf}`, { headers: { 'x-api-key': orgs[i % orgs.length].key } })
      if (res.status !== 200) throw new Error(`status ${res.status}`)
      await res.arrayBuffer()
    }
    const used = process.cpuUsage(t0)
    return (used.user + used.system) / batch
  }
  for (const side of Object.values(sides)) await runBatch(side)
  const us = { before: [], after: [] }
  const loadStart = loadavg()
  for (let b = 0; b < Number(flags.batches); b++) {
    for (const name of b % 2 === 0 ? ['before', 'after'] : ['after', 'before']) us[name].push(await runBatch(sides[name]))
  }
  const ratios = us.after.map((a, i) => a / us.before[i])
  process.stdout.write(
    `${flags.path} in process: before ${median(us.before).toFixed(1)} µs, after ${median(us.after).toFixed(1)} µs, after/before ${median(ratios).toFixed(3)} (median of ${flags.batches} alternating batches of ${batch}; ratios' interquartile ${quantile(ratios, 0.25).toFixed(3)}–${quantile(ratios, 0.75).toFixed(3)}); load ${loadStart.map((v) => v.toFixed(2)).join(' ')} → ${loadavg().map((v) => v.toFixed(2)).join(' ')}\n`,
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}
// The apps' meters and log destinations would keep the process alive.
process.exit(0)

function quantile(xs, q) {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}
