// CLI cold start: wall time of whole processes, from spawn to exit, median of several runs.
import { spawnSync } from 'node:child_process'
import { median } from './stats.mjs'

/**
 * Runs `node ...args` of every case `runs` times, interleaved (case 1, case 2, ..., then again), after
 * one unmeasured round that warms the file cache, and returns per case the wall times in ms and their
 * median. Interleaving gives each case the same share of whatever else the machine is doing, so the
 * ratios between them hold on a noisy machine. A case whose run exits non-zero gets `error` (its
 * first failure) and is not run again; the others go on.
 */
export function coldStarts(cases, { runs, env }) {
  const state = cases.map(() => ({ times: [], error: undefined }))
  const once = (args) => {
    const started = process.hrtime.bigint()
    const result = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    if (result.status !== 0) {
      throw new Error(
        `node ${args.join(' ')} exited ${result.status}: ${result.stderr.toString().slice(0, 500)}`,
      )
    }
    return ms
  }
  for (let round = 0; round <= runs; round++) {
    for (const [i, args] of cases.entries()) {
      if (state[i].error) continue
      try {
        const ms = once(args)
        if (round > 0) state[i].times.push(ms)
      } catch (error) {
        state[i].error = error
      }
    }
  }
  return state.map(({ times, error }) =>
    error
      ? { error: error.message }
      : { runs: times.map((t) => Math.round(t * 10) / 10), median_ms: Math.round(median(times) * 10) / 10 },
  )
}
