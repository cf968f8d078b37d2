#!/usr/bin/env node
// `npm run bench`: throughput and latency of the rwa server and cold start of the rwa CLI, each as a
// ratio against a bare baseline measured in the same run. See docs/performance.md.
//
// Layout: the bare baselines and the rwa server each run in their own process, pinned to one core;
// this process is the load generator (autocannon) on another core. Rounds are interleaved (every
// scenario once per round, each beside its baseline), so a burst of noise from the shared machine hits
// both sides of a ratio alike; the ratio reported is the median of the per-round ratios.
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { runAuditLog } from './lib/audit-log.mjs'
import { runEventsOutbox } from './lib/events-outbox.mjs'
import { coldStarts as measureColdStarts } from './lib/cold-start.mjs'
import { loadRun } from './lib/load.mjs'
import { BENCH_DATABASE_URL, BENCH_REDIS_URL, createDeployment, probe } from './lib/postgres.mjs'
import { TASKSET, pinSelf, startServer } from './lib/processes.mjs'
import { FLOOD_CONNECTIONS, runFlood } from './lib/flood.mjs'
import { startFloor } from './lib/floors.mjs'
import { readProfile, summarizeProfile } from './lib/profile.mjs'
import { printReport } from './lib/report.mjs'
import { DEFAULT_SIZES, printScale, runScale } from './lib/scale.mjs'
import { SCENARIOS } from './lib/scenarios.mjs'
import { call, eachLimited, seedGovernance, seedOrganization } from './lib/seed.mjs'
import { median } from './lib/stats.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const RWA_BIN = join(ROOT, 'bin/rwa')
const RESULTS = join(ROOT, 'bench/results')

const USAGE = `usage: npm run bench -- [options]
  --quick            a short run for CI smoke (1 s warm-up, 1 round of 3 s, 3 CLI runs)
  --rounds N         measured rounds per scenario (default 3)
  --duration S       seconds per round (default 10)
  --warmup S         seconds of unmeasured warm-up per scenario (default 5)
  --connections N    autocannon connections (default 50)
  --cli-runs N       runs per CLI cold-start figure (default 10)
  --only IDS         comma-separated scenario ids (their baselines are added); ids: ${SCENARIOS.map((s) => s.id).join(', ')}
                     (cli: the CLI cold starts alone, no load scenario; they run after any other scenario anyway;
                     flood: ${FLOOD_CONNECTIONS} connections on /openapi.json and a status list while an
                     authenticated read's p99 is compared with its quiet p99, bucket on and off; it runs
                     in every run without --only, after the load scenarios;
                     log: the verifiable log's cost on a transfer POST (server CPU with the log append
                     and without it, same run; goal ≤ 1.15) and an inclusion proof's CPU at a small
                     and a large log built directly in SQLite (--log-sizes; goal large/small ≤ 1.3);
                     it runs in every run without --only, after the flood;
                     outbox: the events outbox's cost on a transfer POST (server CPU with its event and
                     delivery and without, same run; goal ≤ 1.25), beside the outbox as it was before
                     (the transfer read back, the endpoints queried); it runs after the log;
                     subscription, a diagnostic of the authenticated path, runs only when named;
                     the *-pg1/*-pg2 scenarios need PostgreSQL at RWA_BENCH_DATABASE_URL, default
                     ${BENCH_DATABASE_URL}, and Redis at RWA_BENCH_REDIS_URL, default ${BENCH_REDIS_URL})
  --profile          run the rwa server under node --cpu-prof and print its top frames
  --scale            (or --only scale) only the scale scenario: one organization at 1k, 100k and 1M
                     transfers, seeded directly into each server's SQLite file; POST transfer,
                     authenticated read, token detail, a list page and a page deep in the cursor,
                     at every size, interleaved; cost ratios 1M/1k (targets 1.3, list pages 2).
                     Bursts of --scale-burst requests (default 750) under the per-minute limit;
                     --rounds (default 3) rounds; --connections applies (default here 10)
  --scale-sizes N,N  transfers per size (default ${DEFAULT_SIZES.join(',')})
  --scale-burst N    requests per scenario, size and round (default 750)
  --log-sizes N,N    the small and large log of the log's proof figure (default 1000,1000000;
                     with --quick 1000,100000: building 1M entries takes one to three minutes)
Exits 1 if any request answered non-2xx or failed, or a scenario could not run.`

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    'cli-runs': { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    scale: { type: 'boolean', default: false },
    'scale-sizes': { type: 'string' },
    'scale-burst': { type: 'string' },
    'log-sizes': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
})
if (flags.help) {
  process.stdout.write(`${USAGE}\n`)
  process.exit(0)
}

const positive = (name, value, fallback) => {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!(n > 0)) throw new Error(`--${name} must be a positive number, got ${value}`)
  return n
}
const plan = Object.freeze({
  warmup: positive('warmup', flags.warmup, flags.quick ? 1 : 5),
  duration: positive('duration', flags.duration, flags.quick ? 3 : 10),
  rounds: Math.round(positive('rounds', flags.rounds, flags.quick ? 1 : 3)),
  connections: Math.round(positive('connections', flags.connections, 50)),
  scaleConnections: Math.round(positive('connections', flags.connections, 10)),
  cliRuns: Math.round(positive('cli-runs', flags['cli-runs'], flags.quick ? 3 : 10)),
  // The verifiable log's figures: transfer POSTs per round, proofs per size and round, the two sizes.
  logTransfers: flags.quick ? 150 : 400,
  logProofs: flags.quick ? 500 : 2000,
  logSizes: (flags['log-sizes'] ?? (flags.quick ? '1000,100000' : '1000,1000000'))
    .split(',')
    .map((n) => Math.round(positive('log-sizes', n))),
})
/** Transfers seeded per organization, so that every `limit=50` page is full from the first request. */
const SEEDED_TRANSFERS = 50
/** Rows in the point-select baseline's table. */
const BASELINE_ROWS = 5000
/** Stay this far under each organization's per-minute limit, so the limiter never refuses. */
const LIMIT_HEADROOM = 0.8

/**
 * The throughput scenarios load GET pricing (a route without a key) from one address at thousands of
 * requests a second: the per-client bucket (20/s: README.md, "Configuration") would refuse nearly all of it.
 * They measure the answer, so their servers run without the bucket; the flood scenario measures it.
 */
const THROUGHPUT_ARGS = ['--public-rate-limit', 'off']

const failures = []
const log = (line) => process.stderr.write(`bench: ${line}\n`)

if (flags.scale || flags.only?.split(',').some((id) => id.trim() === 'scale')) await scaleMain()
else await main()

async function main() {
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (bin/rwa runs the compiled, bundled code)')
  }
  const selected = selectScenarios(flags.only)
  // Two cores or more: servers on core 0, this load generator on core 1. On one core they share it.
  const cores = availableParallelism()
  const pinning = TASKSET && cores >= 2 ? { server: 0, load: 1 } : undefined
  if (pinning) pinSelf(pinning.load)

  const work = mkdtempSync(join(tmpdir(), 'rwa-bench-'))
  const profileDir = join(RESULTS, 'profiles', stamp())
  const startedAt = new Date()
  const loadStart = loadavg()
  log(
    `plan ${JSON.stringify(plan)}; pinning ${pinning ? JSON.stringify(pinning) : 'none'}; load ${fmtLoad(loadStart)}`,
  )

  const servers = {}
  const runs = Object.fromEntries(selected.map((s) => [s.id, { warmup: undefined, rounds: [] }]))
  let state = { rows: BASELINE_ROWS, orgs: [], pgOrgs: [] }
  let cli
  let flood
  let auditLog
  let outbox
  let seeding
  let pgSeeding
  let deployment
  try {
    const needed = new Set(selected.map((s) => s.server))
    const start = (name, args) =>
      startServer({ name, args, core: pinning?.server, env: { NODE_ENV: 'production' } }).then((s) => {
        servers[name] = s
      })
    if (needed.has('hello')) await start('hello', [join(ROOT, 'bench/baselines/hello.mjs')])
    for (const observe of ['hello', 'observed']) {
      const name = `hono-${observe}`
      const args = ['--observe', observe === 'hello' ? 'none' : 'all']
      if (needed.has(name)) await start(name, [join(ROOT, 'bench/baselines/hono.mjs'), ...args])
    }
    if (needed.has('select')) {
      await start('select', [
        join(ROOT, 'bench/baselines/point-select.mjs'),
        ...['--db', join(work, 'select.db'), '--rows', String(BASELINE_ROWS)],
      ])
    }
    if (needed.has('insert')) {
      await start('insert', [join(ROOT, 'bench/baselines/insert.mjs'), '--db', join(work, 'insert.db')])
    }
    // rwa is always started: the CLI cold-start figures talk to it.
    const profileArgs = flags.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []
    await start('rwa', [
      ...profileArgs,
      RWA_BIN,
      'server',
      'start',
      '--port',
      '0',
      '--db',
      join(work, 'rwa.db'),
      ...THROUGHPUT_ARGS,
    ])
    if (!servers.rwa.adminKey) throw new Error('the rwa server printed no admin key')
    if (needed.has('read-floor')) {
      // The floors of the reads read the rwa server's own file, bucket as its throughput servers run.
      await start('read-floor', [
        join(ROOT, 'bench/baselines/read-floor.mjs'),
        ...['--db', join(work, 'rwa.db'), '--public-rate', 'off'],
      ])
    }
    if (needed.has('rwa-pg') || needed.has('rwa-pg2')) {
      deployment = await startPostgresDeployment(servers, pinning, profileArgs)
      if (deployment.skipped) {
        for (const s of selected.filter((s) => s.postgres)) runs[s.id].skipped = deployment.skipped
      }
    }

    const governance = await governanceAvailable(servers.rwa)
    if (!governance) log('governance endpoints not available on this build: their scenarios are skipped')
    let runnable = selected.filter((s) => (!s.governance || governance) && !runs[s.id].skipped)
    for (const s of selected.filter((s) => !runnable.includes(s) && !runs[s.id].skipped)) {
      runs[s.id].skipped = 'the /console/rwa endpoints are not in this build'
      failures.push(`${s.id}: skipped, governance endpoints missing`)
    }

    // Warm-up first for the fastest server: its rate bounds every other, which sizes the seeding.
    const ordered = [...runnable].sort((a, b) => (a.id === 'hello' ? -1 : b.id === 'hello' ? 1 : 0))
    // The floors work for the seeded organizations, on a copy of the server's database (startFloor).
    const forOrganizations = (s) => s.auth || s.server === 'floor'
    for (const scenario of ordered) {
      if (forOrganizations(scenario) && !seeding) {
        const upperRate = runs.hello?.warmup?.rps ?? (await quickRate(servers.rwa))
        const withGovernance = runnable.some((s) => s.governance)
        seeding = await seed(servers.rwa, upperRate, runnable, withGovernance).catch((error) => ({ error }))
        if (seeding.error) {
          // Without seeded organizations the authenticated scenarios cannot run; the others still can.
          failures.push(
            `seeding failed, authenticated scenarios and floors skipped: ${seeding.error.message}`,
          )
          for (const s of runnable.filter(forOrganizations)) runs[s.id].skipped = 'seeding failed'
          runnable = runnable.filter((s) => !forOrganizations(s))
        } else state = { ...state, orgs: seeding.orgs }
      }
      if (scenario.server === 'floor' && !servers.floor && runnable.includes(scenario)) {
        const floor = await startFloor({
          root: ROOT,
          rwaDb: join(work, 'rwa.db'),
          orgs: seeding.orgs,
          work,
          core: pinning?.server,
        }).catch((error) => ({ error }))
        if (floor.error) {
          failures.push(`the floor process did not start, its scenarios skipped: ${floor.error.message}`)
          for (const s of runnable.filter((s) => s.server === 'floor')) runs[s.id].skipped = 'no floor'
          runnable = runnable.filter((s) => s.server !== 'floor')
        } else servers.floor = floor
      }
      if (scenario.postgres && !pgSeeding && runnable.includes(scenario)) {
        const upperRate = runs.hello?.warmup?.rps ?? (await quickRate(servers.rwa))
        const onPostgres = runnable.filter((s) => s.postgres)
        pgSeeding = await seed(servers['rwa-pg'], upperRate, onPostgres, true).catch((error) => ({ error }))
        if (pgSeeding.error) {
          failures.push(`seeding PostgreSQL failed, its scenarios skipped: ${pgSeeding.error.message}`)
          for (const s of onPostgres) runs[s.id].skipped = 'seeding failed'
          runnable = runnable.filter((s) => !s.postgres)
        } else state = { ...state, pgOrgs: pgSeeding.orgs }
      }
      if (!runnable.includes(scenario) || scenario.derivedFrom) continue
      runs[scenario.id].warmup = await measure(scenario, servers, state, plan.warmup)
      log(`warm-up ${scenario.id}: ${runs[scenario.id].warmup.rps} req/s`)
    }
    for (let round = 1; round <= plan.rounds; round++) {
      for (const scenario of runnable.filter((s) => !s.derivedFrom)) {
        const run = await measure(scenario, servers, state, plan.duration)
        runs[scenario.id].rounds.push(run)
        log(
          `round ${round}/${plan.rounds} ${scenario.id}: ${run.rps} req/s, p99 ${run.p99_ms} ms, load ${run.load_average.join(' ')}`,
        )
      }
    }
    if (seeding?.records) seeding.transfers_after = await transferTotals(servers.rwa.url, seeding.orgs)
    if (pgSeeding?.records) {
      pgSeeding.transfers_after = await transferTotals(servers['rwa-pg'].url, pgSeeding.orgs)
    }

    if (floodSelected(flags.only)) {
      flood = await runFlood({
        rwaBin: RWA_BIN,
        work,
        core: pinning?.server,
        loadCore: pinning?.load,
        rounds: plan.rounds,
        seconds: plan.duration,
        warmup: plan.warmup,
        log,
        failures,
      })
    }
    if (selectedByName(flags.only, 'log')) {
      const sizes = plan.logSizes
      log(
        `log: ${plan.logTransfers} transfer POSTs and ${plan.logProofs} proofs at ${sizes.join(' and ')} entries, ${plan.rounds} round(s)`,
      )
      try {
        auditLog = {
          sizes,
          transfers_per_round: plan.logTransfers,
          proofs_per_size_and_round: plan.logProofs,
          rounds: plan.rounds,
          rows: await runAuditLog({
            root: ROOT,
            work,
            core: pinning?.server,
            transfers: plan.logTransfers,
            proofs: plan.logProofs,
            rounds: plan.rounds,
            sizes,
            log,
          }),
        }
      } catch (error) {
        failures.push(`log: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
    if (selectedByName(flags.only, 'outbox')) {
      log(`outbox: ${plan.logTransfers} transfer POSTs, ${plan.rounds} round(s)`)
      try {
        outbox = {
          transfers_per_round: plan.logTransfers,
          rounds: plan.rounds,
          rows: await runEventsOutbox({
            root: ROOT,
            work,
            core: pinning?.server,
            transfers: plan.logTransfers,
            rounds: plan.rounds,
          }),
        }
      } catch (error) {
        failures.push(`outbox: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
    cli = coldStarts(servers.rwa.url, work)
  } catch (error) {
    failures.push(`aborted: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    for (const server of Object.values(servers)) {
      const how = await server.stop()
      if (how !== 0)
        failures.push(`${server.name} server exited with ${how}:\n${server.stderr().slice(-2000)}`)
    }
    rmSync(work, { recursive: true, force: true })
    if (deployment?.remove) {
      await deployment
        .remove()
        .catch((error) => failures.push(`removing the bench database: ${error.message}`))
    }
  }

  const report = {
    ...runFacts(startedAt, cores, pinning, loadStart),
    plan,
    seeding: seeding?.orgs ? { ...seeding, orgs: undefined } : null,
    postgres: deployment?.databaseUrl
      ? {
          database: 'a new database on RWA_BENCH_DATABASE_URL, dropped after the run',
          redis: deployment.redisUrl,
          seeding: pgSeeding?.orgs ? { ...pgSeeding, orgs: undefined } : null,
        }
      : deployment?.skipped
        ? { skipped: deployment.skipped }
        : null,
    scenarios: selected.map((s) => summarize(s, runs)),
    flood: flood ?? null,
    log: auditLog ?? null,
    outbox: outbox ?? null,
    cli,
    failures: [...failures, ...non2xxFailures(runs)],
  }
  if (flags.profile) report.profiles = profiles(profileDir, selected, runs, servers)

  mkdirSync(RESULTS, { recursive: true })
  writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`)
  printReport(report)
  process.stdout.write(`\nwritten: bench/results/latest.json\n`)
  process.exitCode = report.failures.length > 0 ? 1 : 0
}

/** `--scale`: the scale scenario alone (bench/lib/scale.mjs), its table, and latest.json. */
async function scaleMain() {
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (bin/rwa runs the compiled, bundled code)')
  }
  const cores = availableParallelism()
  const pinning = TASKSET && cores >= 2 ? { server: 0, load: 1 } : undefined
  if (pinning) pinSelf(pinning.load)
  const sizes = flags['scale-sizes']
    ? flags['scale-sizes'].split(',').map((n) => Math.round(positive('scale-sizes', n)))
    : DEFAULT_SIZES
  const work = mkdtempSync(join(tmpdir(), 'rwa-bench-scale-'))
  const startedAt = new Date()
  const loadStart = loadavg()
  log(
    `scale: sizes ${sizes.join(', ')}; pinning ${pinning ? JSON.stringify(pinning) : 'none'}; load ${fmtLoad(loadStart)}`,
  )
  let scale
  try {
    scale = await runScale({
      root: ROOT,
      rwaBin: RWA_BIN,
      work,
      core: pinning?.server,
      sizes,
      rounds: plan.rounds,
      burst: Math.round(positive('scale-burst', flags['scale-burst'], 750)),
      connections: plan.scaleConnections,
      log,
      failures,
    })
  } catch (error) {
    failures.push(`scale aborted: ${error instanceof Error ? error.stack : String(error)}`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  const report = {
    ...runFacts(startedAt, cores, pinning, loadStart),
    scale: scale ?? null,
    failures,
  }
  mkdirSync(RESULTS, { recursive: true })
  writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`)
  process.stdout.write(
    `\nrwa benchmark (scale) — ${report.date}\nmachine: ${cores} cores (${report.machine.cpu_model}), Node ${process.version}; load average ${report.load_average.start.join(' ')} → ${report.load_average.end.join(' ')}\n`,
  )
  if (scale) printScale(scale)
  for (const failure of failures) process.stdout.write(`FAILED: ${failure}\n`)
  process.stdout.write(`\nwritten: bench/results/latest.json\n`)
  process.exitCode = failures.length > 0 ? 1 : 0
}

/**
 * Starts the PostgreSQL + Redis deployment: a new database and Redis prefix, instance A (which migrates
 * the database and prints the admin key) on the servers' core, then instance B on the other core (on a
 * 2-core machine, the load generator's). `servers['rwa-pg']` is A alone; `servers['rwa-pg2']` is A
 * and B together, the load split between them. Without PostgreSQL or Redis the scenarios are skipped,
 * and with CI=true that fails the run.
 */
async function startPostgresDeployment(servers, pinning, profileArgs) {
  const reachable = await probe()
  if (!reachable.ok) {
    const skipped = `${reachable.problem}; set RWA_BENCH_DATABASE_URL and RWA_BENCH_REDIS_URL`
    log(`postgres scenarios skipped: ${skipped}`)
    if (process.env.CI === 'true') failures.push(`postgres scenarios could not run: ${skipped}`)
    return { skipped }
  }
  const deployment = await createDeployment()
  const args = [
    'server',
    'start',
    '--port',
    '0',
    '--database-url',
    deployment.databaseUrl,
    '--redis-url',
    deployment.redisUrl,
    ...THROUGHPUT_ARGS,
  ]
  // Both instances share the deployment's master key (required over PostgreSQL:
  // README.md, "Signing keys at rest").
  const env = {
    NODE_ENV: 'production',
    RWA_REDIS_PREFIX: deployment.prefix,
    RWA_MASTER_KEY: randomBytes(32).toString('base64url'),
  }
  try {
    const a = await startServer({
      name: 'rwa-pg',
      args: [...profileArgs, RWA_BIN, ...args],
      core: pinning?.server,
      env,
    })
    servers['rwa-pg'] = a
    const b = await startServer({ name: 'rwa-pg-b', args: [RWA_BIN, ...args], core: pinning?.load, env })
    if (!a.adminKey || b.adminKey)
      throw new Error('the first PostgreSQL instance should print the admin key, the second not')
    servers['rwa-pg2'] = {
      ...b,
      name: 'rwa-pg2',
      urls: [a.url, b.url],
      pids: [a.pid, b.pid],
      adminKey: a.adminKey,
    }
  } catch (error) {
    await deployment.remove().catch(() => {})
    throw error
  }
  log(`postgres deployment: ${servers['rwa-pg'].url} and ${servers['rwa-pg2'].url}`)
  return deployment
}

/** What every report starts with: when, the command, the machine and its load before and after. */
function runFacts(startedAt, cores, pinning, loadStart) {
  return {
    date: startedAt.toISOString(),
    finished: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    machine: {
      cores,
      cpu_model: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      pinning: pinning ?? null,
    },
    load_average: {
      start: loadStart.map((v) => Math.round(v * 100) / 100),
      end: loadavg().map((v) => Math.round(v * 100) / 100),
    },
  }
}

/** The scenarios named by --only, with the baselines they need; all of them by default. */
function selectScenarios(only) {
  if (!only) return SCENARIOS.filter((s) => !s.optional)
  const ids = new Set(only.split(',').map((id) => id.trim()))
  // `cli` names the cold-start figures, which every run measures: alone it selects no load scenario;
  // `flood` is a scenario of its own servers (bench/lib/flood.mjs), run after the load scenarios.
  ids.delete('cli')
  ids.delete('flood')
  ids.delete('log')
  ids.delete('outbox')
  for (const id of ids) if (!SCENARIOS.some((s) => s.id === id)) throw new Error(`unknown scenario ${id}`)
  // A baseline may itself have one (jurisdiction-pg1 → jurisdiction → select): add them all.
  for (let added = true; added; ) {
    added = false
    for (const s of SCENARIOS) {
      for (const needed of [s.baseline, s.derivedFrom]) {
        if (ids.has(s.id) && needed && !ids.has(needed)) {
          ids.add(needed)
          added = true
        }
      }
    }
  }
  return SCENARIOS.filter((s) => ids.has(s.id))
}

/** Whether the flood scenario runs: in every run without --only, and when --only names it. */
function floodSelected(only) {
  return selectedByName(only, 'flood')
}

/** Whether a part that is not a load scenario (flood, log) runs: without --only, or when it names it. */
function selectedByName(only, id) {
  return !only || only.split(',').some((name) => name.trim() === id)
}

/** One load run of `scenario` for `seconds`, against the server it names. */
async function measure(scenario, servers, state, seconds) {
  const server = servers[scenario.server]
  const start = process.hrtime.bigint() / 1000n
  // Scenarios measured their own way (bench/lib/floors.mjs) answer what loadRun answers.
  const run = scenario.run
    ? await scenario.run({ server, state, seconds })
    : await loadRun({
        urls: server.urls ?? [server.url],
        seconds,
        connections: plan.connections,
        request: scenario.request(state),
        serverPids: server.pids ?? [server.pid],
      })
  // When profiling: the span of this run on the monotonic clock, to cut the profile by scenario.
  const window = [Number(start), Number(process.hrtime.bigint() / 1000n)]
  return { ...run, window, load_average: loadavg().map((v) => Math.round(v * 100) / 100) }
}

/** Whether this build serves the governance endpoints (they may land after the bench). */
async function governanceAvailable(rwa) {
  const response = await fetch(`${rwa.url}/console/rwa/jurisdictions?limit=1`, {
    headers: { 'x-api-key': rwa.adminKey },
  })
  await response.arrayBuffer()
  return response.status === 200
}

/** An upper bound on request rate when the hello baseline is not part of this run: a short probe. */
async function quickRate(rwa) {
  const run = await loadRun({
    url: rwa.url,
    seconds: 2,
    connections: plan.connections,
    request: { method: 'GET', path: '/console/billing/pricing' },
    serverPid: rwa.pid,
  })
  return run.rps
}

/**
 * Limits are per organization, and an enterprise organization may make `rpm` requests a minute: far
 * fewer than a benchmark sends. So the load is spread round-robin over enough enterprise organizations
 * that none of them passes LIMIT_HEADROOM of its limit even if every request of the last minute came
 * at `upperRate` (the fastest server's rate). The limiter is on the path of every request and never
 * refuses. Each organization gets the same governance data.
 */
async function seed(rwa, upperRate, scenarios, governance) {
  const pricing = await call(rwa.url, 'GET', '/console/billing/pricing')
  const rpm = pricing.tiers.enterprise.limits.requests_per_minute
  const authScenarios = scenarios.filter((s) => s.auth).length
  const authSeconds = Math.min(60, authScenarios * (plan.warmup + plan.rounds * plan.duration))
  const count = Math.max(1, Math.ceil((upperRate * authSeconds) / (LIMIT_HEADROOM * rpm)))
  // Seeding makes two admin calls per organization, all within about a minute.
  if (2 * count > LIMIT_HEADROOM * rpm) {
    throw new Error(
      `${count} organizations would exceed the admin key's own limit of ${rpm}/min while seeding`,
    )
  }
  log(`seeding ${count} enterprise organizations (limit ${rpm}/min each, upper rate ${upperRate} req/s)`)
  const started = Date.now()
  const orgs = []
  const ids = Array.from({ length: count }, (_, i) => `bench-${String(i).padStart(4, '0')}`)
  await eachLimited(ids, 16, async (id) => orgs.push(await seedOrganization(rwa.url, rwa.adminKey, id)))
  orgs.sort((a, b) => a.orgId.localeCompare(b.orgId))
  if (governance) {
    // Supply for every transfer the run can make: one unit each, at most `upperRate` a second, in each
    // scenario that transfers on this store.
    const transferScenarios = Math.max(1, scenarios.filter((s) => s.transfers).length)
    const supply =
      Math.ceil(upperRate * transferScenarios * (plan.warmup + plan.rounds * plan.duration)) +
      SEEDED_TRANSFERS +
      1
    await eachLimited(orgs, 32, (org) =>
      seedGovernance(rwa.url, org, { supply, transfers: SEEDED_TRANSFERS }),
    )
  }
  const seconds = (Date.now() - started) / 1000
  const perOrg = governance ? 2 + 2 + 1 + 1 + 1 + 3 + SEEDED_TRANSFERS : 2
  log(`seeded in ${seconds.toFixed(1)} s`)
  return {
    orgs,
    org_count: count,
    per_minute_limit: rpm,
    upper_rate: upperRate,
    api_calls: count * perOrg,
    records: governance
      ? {
          jurisdictions: 2 * count,
          trust: count,
          credentials: count,
          tokens: count,
          attestations: 3 * count,
          transfers: SEEDED_TRANSFERS * count,
        }
      : null,
    seconds: Math.round(seconds * 10) / 10,
  }
}

/** How many transfers the organizations hold at the end, and how many of them were approved. */
async function transferTotals(url, orgs) {
  let total = 0
  let approved = 0
  await eachLimited(orgs, 16, async (org) => {
    // Await first, then add: `total += await ...` reads `total` before the await and loses updates.
    const all = await call(url, 'GET', '/console/rwa/transfers?limit=1', { key: org.key })
    const ok = await call(url, 'GET', '/console/rwa/transfers?limit=1&status=approved', { key: org.key })
    total += all.total
    approved += ok.total
  })
  return { total, approved, rejected: total - approved }
}

/** Cold start of the CLI against the running server, and of bare node as the baseline. */
function coldStarts(url, work) {
  // A fresh HOME so no saved profile of the person running the bench changes what the CLI does.
  const env = {
    ...process.env,
    HOME: work,
    XDG_CONFIG_HOME: join(work, '.config'),
    NO_COLOR: '1',
    RWA_URL: url,
  }
  delete env.RWA_API_KEY
  delete env.RWA_PROFILE
  const cases = {
    node: { command: 'node -e 0', args: ['-e', '0'] },
    help: { command: 'rwa --help', args: [RWA_BIN, '--help'] },
    pricing: { command: 'rwa pricing --json', args: [RWA_BIN, 'pricing', '--json'] },
  }
  const measured = measureColdStarts(
    Object.values(cases).map((c) => c.args),
    { runs: plan.cliRuns, env },
  )
  const figures = Object.fromEntries(
    Object.entries(cases).map(([name, c], i) => [name, { command: c.command, ...measured[i] }]),
  )
  for (const figure of Object.values(figures)) {
    if (figure.error) failures.push(`cli: ${figure.command} failed: ${figure.error}`)
  }
  // The targets of the performance issue: `rwa --help` ≤ 2 × and a remote call ≤ 2.5 × `node -e 0`.
  for (const [figure, target] of [
    [figures.help, 2.0],
    [figures.pricing, 2.5],
  ]) {
    if (figure.median_ms === undefined || figures.node.median_ms === undefined) continue
    figure.ratio = round2(figure.median_ms / figures.node.median_ms)
    figure.target = target
    figure.target_met = figure.ratio <= target
  }
  return figures
}

/** Medians over the rounds, the ratio to the baseline, and whether the targets are met. */
function summarize(scenario, runs) {
  // A derived row (bench/lib/floors.mjs) is another scenario's rounds against its own baseline.
  const { warmup, rounds, skipped } = runs[scenario.derivedFrom ?? scenario.id]
  const out = { id: scenario.id, title: scenario.title, server: scenario.server }
  if (scenario.baseline) Object.assign(out, { baseline: scenario.baseline, target: scenario.target })
  if (skipped || rounds.length === 0) return { ...out, skipped: skipped ?? 'did not run' }
  const pick = (field) => median(rounds.map((r) => r[field]))
  Object.assign(out, {
    rps: Math.round(pick('rps')),
    p50_ms: pick('p50_ms'),
    p99_ms: pick('p99_ms'),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0) + (warmup?.non2xx ?? 0),
    errors:
      rounds.reduce((n, r) => n + r.errors + r.timeouts, 0) + (warmup ? warmup.errors + warmup.timeouts : 0),
    server_cpu: pick('server_cpu'),
    generator_cpu: pick('generator_cpu'),
    server_cpu_us_per_request: Math.round(
      median(rounds.map((r) => (r.server_cpu * r.seconds * 1e6) / r.requests)),
    ),
  })
  const base = scenario.baseline && runs[scenario.baseline]
  if (base && base.rounds.length === rounds.length) {
    const perRound = rounds.map((r, i) => r.rps / base.rounds[i].rps)
    out.ratio_per_round = perRound.map(round2)
    out.ratio = round2(median(perRound))
    if (scenario.target !== undefined) out.target_met = out.ratio >= scenario.target
    // The same comparison by server CPU per request (baseline ÷ scenario): unlike req/s it does not
    // flatter a scenario whose baseline was held back by the load generator or the machine.
    const cpuPerRequest = (r) => (r.server_cpu * r.seconds) / r.requests
    out.cpu_ratio = round2(median(rounds.map((r, i) => cpuPerRequest(base.rounds[i]) / cpuPerRequest(r))))
  }
  out.warmup = warmup
  out.rounds = rounds
  return out
}

function non2xxFailures(runs) {
  const found = []
  for (const [id, { warmup, rounds }] of Object.entries(runs)) {
    for (const run of [warmup, ...rounds].filter(Boolean)) {
      if (run.non2xx || run.errors || run.timeouts) {
        found.push(
          `${id}: ${run.non2xx} non-2xx ${JSON.stringify(run.status_codes)}, ${run.errors} errors, ${run.timeouts} timeouts`,
        )
      }
    }
  }
  return found
}

/**
 * The rwa servers' CPU profiles cut into one summary per scenario: only the samples taken during its
 * measured rounds (not the warm-up, the seeding or the other scenarios). The SQLite server's profile
 * serves its scenarios; PostgreSQL instance A's serves the PostgreSQL ones (with two instances, the
 * half of the load A answered).
 */
function profiles(dir, selected, runs, servers) {
  if (!existsSync(dir)) return []
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
  const serverOfPid = new Map([
    [servers.rwa?.pid, ['rwa']],
    [servers['rwa-pg']?.pid, ['rwa-pg', 'rwa-pg2']],
  ])
  const out = []
  for (const file of files) {
    // Node names profiles CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile.
    const pid = Number(file.split('.')[3])
    const names = serverOfPid.get(pid) ?? []
    const profile = readProfile(join(dir, file))
    for (const s of selected.filter((s) => names.includes(s.server) && runs[s.id].rounds.length > 0)) {
      const windows = runs[s.id].rounds.map((r) => r.window)
      out.push({ file: join(dir, file), scenario: s.id, ...summarizeProfile(profile, { windows }) })
    }
  }
  return out
}

function stamp() {
  return new Date().toISOString().replace(/[:.]/g, '-')
}

function fmtLoad(values) {
  return values.map((v) => v.toFixed(2)).join(' ')
}

function round2(value) {
  return Math.round(value * 100) / 100
}
