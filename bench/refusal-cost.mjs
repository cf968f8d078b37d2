#!/usr/bin/env node
// `node bench/refusal-cost.mjs` (after `npm run build`): what a flood of requests refused by the
// per-client bucket costs the server (issue 22; docs/performance.md, "Public endpoints under a flood").
// A server whose bucket admits one request a second (`--public-rate-limit 1/1`, so nearly every
// request is a 429) takes `--connections` keep-alive connections from one address sending `--path` as
// fast as they are answered, for `--seconds`, `--rounds` times. Per round: the requests the flood got
// answered, and the server's CPU (user + system, from /proc; less what it uses idle, measured first)
// per request and per second of flood. CPU time rather than latency: the machine's load moves it far
// less. `--bin` measures another build (a checkout of an older commit, built) with the same flood.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { cpuSeconds, startServer } from './lib/processes.mjs'
import { median } from './lib/stats.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: {
    bin: { type: 'string', default: join(ROOT, 'bin', 'rwa') },
    connections: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    path: { type: 'string', default: '/openapi.json' },
  },
})

const work = mkdtempSync(join(tmpdir(), 'rwa-refusal-'))
const server = await startServer({
  name: 'refusal-cost',
  args: [flags.bin, 'server', 'start', '--port', '0', '--db', join(work, 'r.db'), '--log-level', 'warn'],
  env: { NODE_ENV: 'production', RWA_PUBLIC_RATE_LIMIT: '1/1' },
})
const rounds = []
let idleShare
try {
  // What the server uses with nothing to answer (its timers), subtracted from each round.
  const idle0 = cpuSeconds(server.pid)
  await new Promise((resolve) => setTimeout(resolve, Number(flags.seconds) * 1000))
  idleShare = (cpuSeconds(server.pid) - idle0) / Number(flags.seconds)
  for (let r = 0; r < Number(flags.rounds); r++) {
    const cpu0 = cpuSeconds(server.pid)
    const started = performance.now()
    const result = await autocannon({
      url: server.url,
      connections: Number(flags.connections),
      duration: Number(flags.seconds),
      timeout: 10,
      requests: [{ method: 'GET', path: flags.path }],
    })
    const wall = (performance.now() - started) / 1000
    const cpu = cpuSeconds(server.pid) - cpu0 - idleShare * wall
    const codes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([c, s]) => [c, s.count]))
    const requests = result.requests.total
    rounds.push({
      requests,
      rps: Math.round(requests / wall),
      codes,
      us_per_request: Math.round((cpu / Math.max(1, requests)) * 1e7) / 10,
      cpu_share: Math.round((cpu / wall) * 100) / 100,
    })
    process.stderr.write(`round ${r + 1}: ${JSON.stringify(rounds.at(-1))}\n`)
  }
} finally {
  await server.stop()
  rmSync(work, { recursive: true, force: true })
}
const summary = {
  bin: flags.bin,
  connections: Number(flags.connections),
  path: flags.path,
  idle_cpu_share: Math.round(idleShare * 1000) / 1000,
  rps: median(rounds.map((r) => r.rps)),
  us_per_request: median(rounds.map((r) => r.us_per_request)),
  cpu_share: median(rounds.map((r) => r.cpu_share)),
  rounds,
}
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
