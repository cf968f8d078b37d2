#!/usr/bin/env node
// `node bench/post-compare.mjs --before OTHER/bin/rwa [--kind transfer|credential]` (both built): the
// server CPU per POST of two versions of rwa, measured together. Both servers run at once (pinned to
// core 0 when taskset exists), and the POSTs alternate between them in short bursts, so the machine's
// load — heavy and changing on a shared machine — weighs on both alike; the ratio is the figure.
// With `--batch N` each burst is --burst `POST /console/rwa/batch` of N operations of the kind (default
// 2 batches a burst, one at a time), and the figures are per operation; --orgs organizations (default
// 8) share the batches, each operation counting against its organization's minute.
// `--after-rules all` (or `--before-rules all`) sets every transfer rule on that side's tokens, loose
// enough that its transfers pass (bench/lib/post-target.mjs, ALL_RULES): a transfer under every rule
// against one under none (docs/performance.md, "A transfer under every rule"). A comma list of ALL_RULES'
// names (`--after-rules transfer_windows,min_holding`) sets only those, with ALL_RULES' values: what
// each rule costs alone.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { batchTo, postTarget, postTo, rulesNamed } from './lib/post-target.mjs'
import { cpuSeconds, pinSelf, TASKSET } from './lib/processes.mjs'
import { eachLimited } from './lib/seed.mjs'
import { median } from './lib/stats.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: join(ROOT, 'bin/rwa') },
    kind: { type: 'string', default: 'transfer' },
    bursts: { type: 'string', default: '20' },
    burst: { type: 'string' },
    concurrency: { type: 'string' },
    batch: { type: 'string' },
    orgs: { type: 'string', default: '8' },
    // Operations each server runs before the bursts (beyond postTarget's 200 POSTs): V8 keeps optimizing
    // for thousands of POSTs, its compiler threads' CPU counted as the server's, so short runs compare
    // two servers warming up (docs/performance.md, "Fourth pass: the writes"). 3000 reaches steady state.
    warmup: { type: 'string', default: '0' },
    // Node's flags for one side (space-separated), to measure a runtime setting on the same build;
    // given as `--after-node-args=--flag`: parseArgs takes a value starting with a dash only after `=`.
    'before-node-args': { type: 'string', default: '' },
    'after-node-args': { type: 'string', default: '' },
    'before-rules': { type: 'string', default: 'none' },
    'after-rules': { type: 'string', default: 'none' },
  },
})
if (!flags.before) throw new Error('--before PATH/bin/rwa (a built checkout) is required')
const KIND = flags.kind
const BURSTS = Number(flags.bursts)
const BATCH = flags.batch === undefined ? undefined : Number(flags.batch)
const BURST = Number(flags.burst ?? (BATCH ? 2 : 50))
const CONCURRENCY = Number(flags.concurrency ?? (BATCH ? 1 : 8))
/** Operations per burst: the figures are per operation (a POST, or one operation of a batch). */
const OPS = BURST * (BATCH ?? 1)
if (TASKSET) pinSelf(1)

const work = mkdtempSync(join(tmpdir(), 'rwa-bench-compare-'))
const loadStart = loadavg()
try {
  // Started and seeded side by side: the one started second read 3-5 % cheaper (same build on both sides).
  const [before, after] = await Promise.all([
    serve('before', flags.before, flags['before-node-args'], flags['before-rules']),
    serve('after', flags.after, flags['after-node-args'], flags['after-rules']),
  ])
  const versions = { before, after }
  // The warm-up alternates too, in slices: a side warmed wholly before the other then idled through the
  // other's warm-up, and read 7-14 % dearer than the same build warmed last (control runs, same build on
  // both sides, --bursts 16).
  const warmups = Math.ceil(Number(flags.warmup) / (BATCH ?? 1))
  const slice = Math.max(1, Math.ceil(warmups / 6))
  for (let done = 0; done < warmups; done += slice) {
    for (const v of Object.values(versions)) {
      await eachLimited(Array.from({ length: Math.min(slice, warmups - done) }), CONCURRENCY, () =>
        BATCH ? batchTo(v, BATCH) : postTo(v),
      )
    }
  }
  const perPost = { before: [], after: [] }
  for (let b = 0; b < BURSTS; b++) {
    // Alternate which goes first, so neither always follows the other.
    const order = b % 2 === 0 ? ['before', 'after'] : ['after', 'before']
    for (const name of order) {
      const v = versions[name]
      const cpu0 = cpuSeconds(v.server.pid)
      await eachLimited(Array.from({ length: BURST }), CONCURRENCY, () =>
        BATCH ? batchTo(v, BATCH) : postTo(v),
      )
      perPost[name].push(((cpuSeconds(v.server.pid) - cpu0) * 1e6) / OPS)
    }
  }
  for (const v of Object.values(versions)) await v.server.stop()
  const sum = (xs) => xs.reduce((a, b) => a + b, 0)
  const meanBefore = sum(perPost.before) / BURSTS
  const meanAfter = sum(perPost.after) / BURSTS
  const ratios = perPost.before.map((x, i) => perPost.after[i] / x)
  process.stdout.write(
    `${BATCH ? `${KIND} in batches of ${BATCH}, server CPU per operation` : `${KIND} POST, server CPU per POST`}${flags['before-rules'] !== 'none' || flags['after-rules'] !== 'none' ? ` (rules: before ${flags['before-rules']}, after ${flags['after-rules']})` : ''} over ${BURSTS} alternating bursts of ${BURST}: before ${Math.round(meanBefore)} µs, after ${Math.round(meanAfter)} µs, after/before ${(meanAfter / meanBefore).toFixed(2)} (median of the bursts' ratios ${median(ratios).toFixed(2)}); load ${loadStart.map((v) => v.toFixed(2)).join(' ')} → ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}\n`,
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}

function serve(name, bin, nodeArgs, rules) {
  return postTarget({
    rules: rulesNamed(`--${name}-rules`, rules),
    name,
    bin,
    work,
    kind: KIND,
    prefix: `cmp-${name}`,
    orgs: Number(flags.orgs),
    nodeArgs: nodeArgs.split(' ').filter(Boolean),
  })
}
