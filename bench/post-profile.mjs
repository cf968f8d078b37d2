#!/usr/bin/env node
// `node bench/post-profile.mjs` (after `npm run build`): where the server's CPU goes in one transfer
// (or credential) POST. See docs/performance.md, "Where a transfer POST's time goes".
//
// 1. The rwa server's CPU per POST (/proc, user + system, over --rounds runs of --posts POSTs, after a
//    warm-up), without a profiler.
// 2. The same POSTs again on a second server under `node --cpu-prof`: the samples of the measured run
//    only, split by what they were spent on (bench/lib/split.mjs); each part's share of the profile
//    times the unprofiled CPU per POST gives its µs per POST.
//
// With `--batch N`, each of the --posts requests is a `POST /console/rwa/batch` of N operations of the
// kind (two in flight unless --concurrency says otherwise), and the figures are per operation; give
// enough --orgs that no organization passes its minute (each operation counts as one request).
//
// `--rules all` (or a comma list of rule names) profiles a transfer under those rules.
//
// Both servers run pinned to core 0 (when taskset exists), this process on core 1.
//
// `--cpu-prof` samples on a wall clock: time a thread spends blocked in a system call (the WAL's
// writes, the checkpoints' fsyncs) or preempted by other processes is charged to the frame it was in,
// so on a loaded machine the commit's share overstates its CPU; `perf record` on the server gives CPU.
// `--warmup N` runs N more operations on each server first: V8 keeps optimizing for thousands of
// POSTs, its compiler threads' CPU counted as the server's (docs/performance.md, "Fourth pass: the
// writes").
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { batchTo, postTarget, postTo, rulesNamed } from './lib/post-target.mjs'
import { cpuSeconds, pinSelf, TASKSET } from './lib/processes.mjs'
import { readProfile } from './lib/profile.mjs'
import { eachLimited } from './lib/seed.mjs'
import { splitProfile } from './lib/split.mjs'
import { median } from './lib/stats.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: {
    kind: { type: 'string', default: 'transfer' },
    posts: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string' },
    batch: { type: 'string' },
    orgs: { type: 'string', default: '4' },
    json: { type: 'boolean', default: false },
    'keep-profile': { type: 'string' },
    // Another checkout's bin/rwa (built), to compare two versions on the same machine, run by run.
    rwa: { type: 'string' },
    'no-profile': { type: 'boolean', default: false },
    // The tokens' rules: none, all, or a comma list of ALL_RULES' names (bench/lib/post-target.mjs).
    rules: { type: 'string', default: 'none' },
    warmup: { type: 'string', default: '0' },
  },
})
const KIND = flags.kind
if (!['transfer', 'credential'].includes(KIND)) throw new Error('--kind transfer|credential')
const POSTS = Number(flags.posts)
const ROUNDS = Number(flags.rounds)
const BATCH = flags.batch === undefined ? undefined : Number(flags.batch)
const CONCURRENCY = Number(flags.concurrency ?? (BATCH ? 2 : 8))
const ORGS = Number(flags.orgs)
/** Operations per round: the figures are per operation (a POST, or one operation of a batch). */
const OPS = POSTS * (BATCH ?? 1)
const WHAT = BATCH ? `${KIND} in a batch of ${BATCH}` : `${KIND} POST`
if (TASKSET) pinSelf(1)

const work = mkdtempSync(join(tmpdir(), 'rwa-bench-post-'))
const loadStart = loadavg()
try {
  const plain = await serve('plain', [])
  const perPost = []
  for (let round = 0; round < ROUNDS; round++) {
    const before = cpuSeconds(plain.server.pid)
    await posts(plain)
    perPost.push(((cpuSeconds(plain.server.pid) - before) * 1e6) / OPS)
  }
  await plain.server.stop()
  const us = median(perPost)
  if (flags['no-profile']) {
    process.stdout.write(
      `${WHAT}: ${Math.round(us)} µs of server CPU per operation (median of ${ROUNDS} rounds of ${OPS}: ${perPost.map(Math.round).join(', ')}); load ${loadStart.map((v) => v.toFixed(2)).join(' ')} → ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}\n`,
    )
    process.exit(0)
  }

  const profileDir = join(work, 'profile')
  mkdirSync(profileDir)
  const profiled = await serve('profiled', ['--cpu-prof', `--cpu-prof-dir=${profileDir}`])
  const start = Number(process.hrtime.bigint() / 1000n)
  await posts(profiled)
  const window = [start, Number(process.hrtime.bigint() / 1000n)]
  await profiled.server.stop()
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'))
  const split = splitProfile(readProfile(join(profileDir, file)), [window])
  if (flags['keep-profile']) {
    copyFileSync(join(profileDir, file), flags['keep-profile'])
    writeFileSync(`${flags['keep-profile']}.window`, JSON.stringify(window))
  }

  const report = {
    kind: KIND,
    posts: POSTS,
    batch: BATCH ?? null,
    rounds: ROUNDS,
    concurrency: CONCURRENCY,
    load_average: { start: loadStart, end: loadavg() },
    server_cpu_us_per_post: Math.round(us),
    per_round: perPost.map(Math.round),
    profiled_busy_ms_per_post: split.busy_ms / OPS,
    parts: split.parts.map((p) => ({ name: p.name, share: p.share, us_per_post: Math.round(p.share * us) })),
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
  else {
    const out = (line) => process.stdout.write(`${line}\n`)
    out(
      `${WHAT}: ${report.server_cpu_us_per_post} µs of server CPU per operation (median of ${ROUNDS} rounds of ${OPS}: ${report.per_round.join(', ')}); load ${loadStart.map((v) => v.toFixed(2)).join(' ')} → ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}`,
    )
    for (const p of report.parts) {
      out(`${String(p.us_per_post).padStart(6)} µs  ${(p.share * 100).toFixed(1).padStart(5)} %  ${p.name}`)
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}

/** A server on a fresh database, with ORGS enterprise organizations seeded and warmed up. */
async function serve(name, nodeArgs) {
  const bin = flags.rwa ?? join(ROOT, 'bin/rwa')
  const target = await postTarget({
    name,
    bin,
    work,
    kind: KIND,
    prefix: `profile-${name}`,
    orgs: ORGS,
    nodeArgs,
    rules: rulesNamed('--rules', flags.rules),
  })
  const warmups = Math.ceil(Number(flags.warmup) / (BATCH ?? 1))
  await eachLimited(Array.from({ length: warmups }), CONCURRENCY, () =>
    BATCH ? batchTo(target, BATCH) : postTo(target),
  )
  return target
}

/** POSTS POSTs (or batches), CONCURRENCY at a time, spread over the organizations. */
function posts(target) {
  return eachLimited(Array.from({ length: POSTS }), CONCURRENCY, () =>
    BATCH ? batchTo(target, BATCH) : postTo(target),
  )
}
