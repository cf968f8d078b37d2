// The flood scenario (issue 22): 100 connections hammering the public /openapi.json and a status list
// while one client makes authenticated token reads at a steady rate; that client's p99 under the flood
// is compared with its p99 without it, in the same run, round after round (the ratio is the median of
// the per-round ratios; goal ≤ 2). Twice: with the per-client bucket on (its default, 20/s in bursts
// of 100: nearly every flood request is a 429, which is the point) and off (what the cached document
// and the status list signed once per change give on their own).
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadRun, round } from './load.mjs'
import { cpuSeconds, pinned, startServer } from './processes.mjs'
import { call, seedGovernance, seedOrganization } from './seed.mjs'
import { median } from './stats.mjs'

const WORKER = fileURLToPath(new URL('./flood-worker.mjs', import.meta.url))

/** The flood: connections, split over the two public paths by autocannon (each connection alternates). */
export const FLOOD_CONNECTIONS = 100
/** The measured client: a steady rate well under an enterprise organization's 5,000 a minute. */
const READ_RATE = 40
const READ_CONNECTIONS = 4

const VARIANTS = [
  { id: 'limit-on', title: 'per-client bucket on (default 20/100)', args: [] },
  { id: 'limit-off', title: 'bucket off (caching alone)', args: ['--public-rate-limit', 'off'] },
]

/**
 * Runs the scenario on fresh SQLite servers (one per variant, on the servers' core; the flood worker on
 * the load generator's). The servers log at warn: at info every admitted flood request is a log line
 * (refused ones are not), which here the bench process would have to read from their stderr. Returns the report section;
 * pushes to `failures` any non-2xx answer to the measured client (the flood's 429s are expected).
 */
export async function runFlood({ rwaBin, work, core, loadCore, rounds, seconds, warmup, log, failures }) {
  const out = { connections: FLOOD_CONNECTIONS, read_rate: READ_RATE, goal: 2, variants: [] }
  for (const variant of VARIANTS) {
    const server = await startServer({
      name: `flood-${variant.id}`,
      args: [
        rwaBin,
        'server',
        'start',
        '--port',
        '0',
        '--db',
        join(work, `flood-${variant.id}.db`),
        '--log-level',
        'warn',
        ...variant.args,
      ],
      core,
      env: { NODE_ENV: 'production' },
    })
    try {
      out.variants.push(
        await measureVariant(variant, server, { rounds, seconds, warmup, loadCore, log, failures }),
      )
    } catch (error) {
      failures.push(`flood ${variant.id}: ${error instanceof Error ? error.message : String(error)}`)
      out.variants.push({ id: variant.id, title: variant.title, skipped: String(error) })
    } finally {
      const how = await server.stop()
      if (how !== 0) failures.push(`flood-${variant.id} server exited with ${how}`)
    }
  }
  return out
}

async function measureVariant(variant, server, { rounds, seconds, warmup, loadCore, log, failures }) {
  const org = await seedOrganization(server.url, server.adminKey, 'flood')
  await seedGovernance(server.url, org, { supply: 1000, transfers: 2 })
  const credentials = JSON.stringify(
    await call(server.url, 'GET', '/console/rwa/credentials', { key: org.key }),
  )
  const statusList = /\/console\/rwa\/status\/[A-Za-z0-9_-]+/.exec(credentials)?.[0]
  if (!statusList) throw new Error('the seeded credential names no status list')
  const paths = ['/openapi.json', statusList]
  const read = {
    method: 'GET',
    path: `/console/rwa/tokens/${org.tokenId}`,
    headers: { 'x-api-key': org.key },
  }
  const measureRead = (s) =>
    loadRun({
      url: server.url,
      seconds: s,
      connections: READ_CONNECTIONS,
      overallRate: READ_RATE,
      request: read,
      serverPid: server.pid,
    })
  await measureRead(warmup)

  const perRound = []
  for (let r = 1; r <= rounds; r++) {
    const quiet = await measureRead(seconds)
    // The flood starts a second early and ends a second late, so it covers the whole measured window.
    const cpu0 = cpuSeconds(server.pid)
    const flood = startFlood({ url: server.url, paths, seconds: seconds + 2, core: loadCore })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const flooded = await measureRead(seconds)
    const floodResult = await flood
    // The server's CPU per flood request, which the machine's load hardly moves (unlike latency): its
    // CPU over the flood less what the reads cost (their share of a core while quiet, for as long).
    const floodCpu = cpuSeconds(server.pid) - cpu0 - quiet.server_cpu * seconds
    floodResult.server_us_per_request = round((floodCpu / Math.max(1, floodResult.requests)) * 1e6, 1)
    for (const [phase, run] of [
      ['quiet', quiet],
      ['flooded', flooded],
    ]) {
      if (run.non2xx || run.errors || run.timeouts) {
        failures.push(
          `flood ${variant.id} ${phase} reads: ${run.non2xx} non-2xx ${JSON.stringify(run.status_codes)}, ${run.errors} errors, ${run.timeouts} timeouts`,
        )
      }
    }
    const ratio = flooded.p99_ms / quiet.p99_ms
    log(
      `flood ${variant.id} round ${r}/${rounds}: read p99 ${quiet.p99_ms} ms quiet, ${flooded.p99_ms} ms flooded (${round(ratio, 2)}×); flood ${floodResult.rps} req/s ${JSON.stringify(floodResult.status_codes)}, server ${floodResult.server_us_per_request} µs CPU per flood request`,
    )
    perRound.push({ quiet, flooded, flood: floodResult, ratio })
  }
  const ratio = round(median(perRound.map((r) => r.ratio)), 2)
  return {
    id: variant.id,
    title: variant.title,
    read: `GET ${read.path.replace(org.tokenId, '{id}')} with an API key, ${READ_RATE} req/s on ${READ_CONNECTIONS} connections`,
    flood_paths: ['/openapi.json', '/console/rwa/status/{list_id}'],
    quiet_p99_ms: median(perRound.map((r) => r.quiet.p99_ms)),
    flooded_p99_ms: median(perRound.map((r) => r.flooded.p99_ms)),
    quiet_p50_ms: median(perRound.map((r) => r.quiet.p50_ms)),
    flooded_p50_ms: median(perRound.map((r) => r.flooded.p50_ms)),
    ratio,
    ratio_per_round: perRound.map((r) => round(r.ratio, 2)),
    goal_met: ratio <= 2,
    flood_rps: median(perRound.map((r) => r.flood.rps)),
    flood_status_codes: sumCodes(perRound.map((r) => r.flood.status_codes)),
    server_us_per_flood_request: median(perRound.map((r) => r.flood.server_us_per_request)),
    server_cpu_flooded: median(perRound.map((r) => r.flooded.server_cpu)),
    rounds: perRound,
  }
}

/** Runs the flood worker for `seconds`; resolves with what it counted. */
function startFlood({ url, paths, seconds, core }) {
  const args = [WORKER, JSON.stringify({ url, paths, connections: FLOOD_CONNECTIONS, seconds })]
  const [command, ...rest] = pinned(core, [process.execPath, ...args])
  const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      try {
        if (code !== 0) throw new Error(`flood worker exited with ${code}`)
        resolve(JSON.parse(stdout))
      } catch (error) {
        reject(error)
      }
    })
  })
}

function sumCodes(list) {
  const sum = {}
  for (const codes of list) for (const [code, n] of Object.entries(codes)) sum[code] = (sum[code] ?? 0) + n
  return sum
}
