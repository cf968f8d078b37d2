#!/usr/bin/env node
// `node bench/events-outbox.mjs [--transfers N] [--rounds R]` (after `npm run build`): the events
// outbox's share of a transfer POST alone (bench/lib/events-outbox.mjs; `npm run bench` runs the same
// code as its `outbox` part). Exits 1 when the goal (at most 25 % more) is missed.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { runEventsOutbox } from './lib/events-outbox.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: { transfers: { type: 'string', default: '400' }, rounds: { type: 'string', default: '3' } },
})
const work = mkdtempSync(join(tmpdir(), 'rwa-bench-outbox-'))
try {
  const rows = await runEventsOutbox({
    root: ROOT,
    work,
    transfers: Number(flags.transfers),
    rounds: Number(flags.rounds),
  })
  for (const r of rows) {
    const ratio =
      r.ratio !== undefined
        ? `${r.ratio.toFixed(2)} vs ${r.baseline} (outbox ${r.outbox_us} µs)`
        : r.times_the_outbox_now !== undefined
          ? `${r.times_the_outbox_now.toFixed(2)}x the outbox now`
          : ''
    const goal = r.goal === undefined ? '' : `goal ≤ ${r.goal}: ${r.goal_met ? 'met' : 'NOT met'}`
    console.log([r.title, `${r.value} ${r.unit}`, ratio, goal].join('\t'))
  }
  if (rows.some((r) => r.goal_met === false)) process.exitCode = 1
} finally {
  rmSync(work, { recursive: true, force: true })
}
