// CLI cold start: wall time of whole processes, from spawn to exit, median of several runs.
import { spawnSync } from 'node:child_process'
import { median } from './stats.mjs'

/**
 * Runs `node ...args` `runs` times (after one unmeasured run that warms the file cache) and returns
 * the wall times in ms and their median. Throws if a run exits non-zero.
 */
export function coldStart(args, { runs, env }) {
  const once = () => {
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
  once()
  const times = Array.from({ length: runs }, once)
  return { runs: times.map((t) => Math.round(t * 10) / 10), median_ms: Math.round(median(times) * 10) / 10 }
}
