#!/usr/bin/env node
// `node bench/read-compare.mjs --before OTHER/bin/rwa [--only pricing,jurisdiction,transfers-list]` (both
// built): the server CPU per request of two versions of rwa on the reads of the bench, measured
// together, as bench/post-compare.mjs does for the POSTs. Both servers run at once (pinned to core 0
// when taskset exists), each seeded through its API with --orgs enterprise organizations and the bench's
// governance data; then, scenario by scenario, rounds of autocannon (--seconds each, --connections)
// alternate between them, the order reversed every other round, so the machine's load weighs on both
// alike. Prints each side's median µs per request and the median of the rounds' after/before ratios.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadRun } from './lib/load.mjs'
import { pinSelf, startServer, TASKSET } from './lib/processes.mjs'
import { SCENARIOS } from './lib/scenarios.mjs'
import { eachLimited, seedGovernance, seedOrganization } from './lib/seed.mjs'
import { median } from './lib/stats.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: join(ROOT, 'bin/rwa') },
    only: { type: 'string', default: 'pricing,jurisdiction' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    orgs: { type: 'string', default: '24' },
  },
})
if (!flags.before) throw new Error('--before PATH/bin/rwa (a built checkout) is required')
const ROUNDS = Number(flags.rounds)
const SECONDS = Number(flags.seconds)
const scenarios = flags.only.split(',').map((id) => {
  const s = SCENARIOS.find((s) => s.id === id.trim() && s.server === 'rwa' && s.request)
  if (!s) throw new Error(`${id} is not a load scenario of the rwa server`)
  return s
})
if (TASKSET) pinSelf(1)

const work = mkdtempSync(join(tmpdir(), 'rwa-bench-read-compare-'))
const loadStart = loadavg()
const servers = []
try {
  const sides = {}
  // Both started and seeded side by side: the one started second read a few per cent cheaper
  // (bench/post-compare.mjs).
  const start = async (name, bin) => {
    const server = await startServer({
      name,
      args: [
        bin,
        'server',
        'start',
        '--port',
        '0',
        '--db',
        join(work, `${name}.db`),
        '--public-rate-limit',
        'off',
      ],
      core: TASKSET ? 0 : undefined,
      env: { NODE_ENV: 'production' },
    })
    servers.push(server)
    const ids = Array.from({ length: Number(flags.orgs) }, (_, i) => `cmp-${String(i).padStart(3, '0')}`)
    const orgs = []
    await eachLimited(ids, 8, async (id) =>
      orgs.push(await seedOrganization(server.url, server.adminKey, id)),
    )
    orgs.sort((a, b) => a.orgId.localeCompare(b.orgId))
    // A full page of 50 for the list; a few transfers otherwise (seeding is most of a short comparison).
    const transfers = scenarios.some((s) => s.id === 'transfers-list') ? 50 : 2
    await eachLimited(orgs, 8, (org) => seedGovernance(server.url, org, { supply: 1000, transfers }))
    sides[name] = { server, state: { orgs, rows: 0 } }
  }
  await Promise.all([start('before', flags.before), start('after', flags.after)])
  const run = (side, scenario, seconds) =>
    loadRun({
      url: side.server.url,
      seconds,
      connections: Number(flags.connections),
      request: scenario.request(side.state),
      serverPid: side.server.pid,
    })
  for (const scenario of scenarios) {
    // The warm-up alternates too, a second at a time: a side warmed wholly first idles through the
    // other's, and reads dearer than the same build warmed last (bench/post-compare.mjs).
    for (let s = 0; s < Number(flags.warmup); s++) {
      for (const side of Object.values(sides)) await run(side, scenario, 1)
    }
    const us = { before: [], after: [] }
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? ['before', 'after'] : ['after', 'before']
      for (const name of order) {
        const result = await run(sides[name], scenario, SECONDS)
        if (result.non2xx || result.errors)
          throw new Error(`${scenario.id} ${name}: ${result.non2xx} non-2xx`)
        us[name].push((result.server_cpu * result.seconds * 1e6) / result.requests)
      }
    }
    const ratios = us.after.map((a, i) => a / us.before[i])
    const fmt = (xs) => xs.map((x) => Math.round(x)).join('/')
    process.stdout.write(
      `${scenario.id}: before ${Math.round(median(us.before))} µs (${fmt(us.before)}), after ${Math.round(median(us.after))} µs (${fmt(us.after)}), after/before ${median(ratios).toFixed(3)} (median of ${ROUNDS} rounds); load ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}\n`,
    )
  }
  process.stdout.write(`load at the start ${loadStart.map((v) => v.toFixed(2)).join(' ')}\n`)
} finally {
  for (const server of servers) await server.stop()
  rmSync(work, { recursive: true, force: true })
}
