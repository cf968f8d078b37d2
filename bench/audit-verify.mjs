#!/usr/bin/env node
// `node bench/audit-verify.mjs [--credentials N] [--rounds N] [--base DIR]` (after `npm run build`): the
// CPU and wall time of `rwa audit verify` on a bundle of N credentials (a tenth revoked; default 5,000),
// one status list, a log entry per issuance and revocation, signed as the server signs them, written by
// bench/lib/audit-bundle.mjs. With --base (another checkout, built), its bin/rwa is timed on the same
// bundle in the same rounds, interleaved, and the ratio printed. See docs/performance.md, "The
// verifiable log".
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { writeAuditBundle } from './lib/audit-bundle.mjs'
import { median } from './lib/stats.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: {
    credentials: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '5' },
    base: { type: 'string' },
  },
})

const work = mkdtempSync(join(tmpdir(), 'rwa-bench-audit-verify-'))
try {
  const { dir, trust, entries } = await writeAuditBundle(
    ROOT,
    join(work, 'bundle'),
    Number(flags.credentials),
  )
  const builds = { this: ROOT, ...(flags.base ? { base: resolve(flags.base) } : {}) }
  const times = Object.fromEntries(Object.keys(builds).map((k) => [k, { cpu: [], wall: [] }]))
  for (let round = 0; round < Number(flags.rounds); round++) {
    for (const [name, root] of Object.entries(builds)) {
      const started = performance.now()
      const usage = execFileSync(
        '/usr/bin/env',
        [
          'bash',
          '-c',
          `TIMEFORMAT='%U %S'; { time node ${JSON.stringify(join(root, 'bin/rwa'))} audit verify ${JSON.stringify(dir)} --trust ${JSON.stringify(trust)} >/dev/null; } 2>&1`,
        ],
        {
          encoding: 'utf8',
          env: { ...process.env, XDG_STATE_HOME: work },
        },
      )
      const [user, sys] = usage.trim().split(/\s+/).slice(-2).map(Number)
      times[name].cpu.push((user + sys) * 1000)
      times[name].wall.push(performance.now() - started)
    }
  }
  console.log(
    `bundle: ${flags.credentials} credentials, ${entries} log entries; ${flags.rounds} rounds, medians`,
  )
  for (const [name, t] of Object.entries(times)) {
    console.log(`${name}\tCPU ${median(t.cpu).toFixed(0)} ms\twall ${median(t.wall).toFixed(0)} ms`)
  }
  if (flags.base) {
    const ratio = (k) => (median(times.this[k]) / median(times.base[k])).toFixed(2)
    console.log(`this / base\tCPU ${ratio('cpu')}\twall ${ratio('wall')}`)
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
